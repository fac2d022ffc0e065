#pragma once
// One configured run solved end to end below the commands: the privacy program of the model,
// the engine chosen by name from the registry, the records streamed to an observer. `rdpdyn
// solve` adds the outputs on top; the `pdi` analysis keeps the final row.
#include "models/run_config.hpp"
#include "solver/engine.hpp"

namespace rdpdyn {

/// The engine the configuration names. Throws SpecError ('analysis.engine') for an unknown name.
const Engine& configured_engine(const RunConfig& config, const EngineRegistry& engines);

/// Solves the configured run: noisy GD and Langevin diffusion through the configured engine,
/// noisy mini-batch GD through the worst case over the differing record's batch
/// (models/noisy_sgd_worst_case.hpp, characteristics engine). Throws SpecError for input the
/// models or engines refuse (remove-one adjacency, a user function leaving its domain).
EngineSummary solve_configured_run(const RunConfig& config, const EngineRegistry& engines,
                                   RecordObserver& observer);

}  // namespace rdpdyn

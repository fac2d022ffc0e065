#pragma once
// The run as an engine is asked about it (solver/engine_request.hpp), from its configuration: one
// place that reads the features the engines' dry runs and memory estimates depend on.
#include "models/run_config.hpp"
#include "solver/engine_request.hpp"

namespace rdpdyn {

/// The request of `config` (its steps, keyed as algorithm.steps or algorithm.intervals).
EngineRequest engine_request_of(const RunConfig& config);

}  // namespace rdpdyn

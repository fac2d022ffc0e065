#pragma once
// The library's entry point (docs/library.md): solves configured runs with the engines of the
// registry, evaluates any registered analysis and converts to (epsilon, delta), with the numbers
// of `rdpdyn solve` and `rdpdyn compare` for the same run. PETSc (and MPI) start only when a run
// needs the finite-difference engine, once per process, and are finalised at exit, as for the
// command line and the Python module.
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "accounting/epsilon_delta.hpp"
#include "commands/compare.hpp"
#include "models/run_config.hpp"
#include "solver/engine.hpp"

namespace rdpdyn {

class Session {
 public:
  /// The engines of this build ("characteristics", "finite-difference"); a run picks one by its
  /// key analysis.engine (the loader checks the run against it).
  std::vector<std::string> engine_names() const;
  /// The registered analyses, in the order of `rdpdyn compare` (`rdpdyn analyses` describes them).
  std::vector<std::string> analysis_names() const;

  /// Solves `run` with the engine it names and passes every record (outward-rounded R at the run's
  /// orders, in step order; output.record_every / record_steps choose them) to `observer`; returns
  /// the last row and the engine's attributes. Throws SpecError for input a model or engine refuses.
  EngineSummary solve(const RunConfig& run, RecordObserver& observer) const;

  /// epsilon at `delta` of a row R of solve() (e.g. EngineRecord::R), as `rdpdyn solve` reports
  /// the final row's (models/configured_solve.hpp, row_epsilon).
  EpsilonAtOrder epsilon(const RunConfig& run, std::span<const double> R, double delta) const;

  /// The registered analysis `name` evaluated on `run` at its orders, as its row of `rdpdyn compare`:
  /// whether it applies (else why not), R, its status here, epsilon at `delta` (default: the run's
  /// report.delta; NaN without either), and delta_at_epsilon at the run's report.epsilon (NaN without
  /// it). Throws SpecError for a name not in the registry.
  ComparisonEntry analyse(const RunConfig& run, std::string_view name,
                          std::optional<double> delta = std::nullopt) const;
};

}  // namespace rdpdyn

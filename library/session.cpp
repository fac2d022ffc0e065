#include "library/session.hpp"

#include "analyses/analysis.hpp"
#include "models/configured_solve.hpp"
#include "models/privacy_model.hpp"
#include "numerics/spec_error.hpp"
#include "solver/engine_registry.hpp"
#include "solver/petsc_session.hpp"

namespace rdpdyn {
namespace {

/// One PETSc per process: it cannot start again once finalised (MPI cannot), so every Session shares
/// this one, started on first need and finalised at exit.
PetscSession& petsc() {
  static PetscSession session("rdpdyn-library", {});
  return session;
}

/// The registry over the communicator the run needs (PETSc started for an engine that needs it).
EngineRegistry engines_of(const RunConfig& run) { return engines_for(run.engine, petsc()); }

}  // namespace

std::vector<std::string> Session::engine_names() const { return engine_registry(petsc().comm()).names(); }

std::vector<std::string> Session::analysis_names() const {
  std::vector<std::string> names;
  for (const Analysis& a : analysis_registry()) names.push_back(a.name);
  return names;
}

EngineSummary Session::solve(const RunConfig& run, RecordObserver& observer) const {
  return solve_configured_run(run, engines_of(run), observer);
}

EpsilonAtOrder Session::epsilon(const RunConfig& run, std::span<const double> R, double delta) const {
  const EngineRegistry engines = engine_registry(MPI_COMM_SELF);  // for what the engine is, not to solve
  return row_epsilon(run, configured_engine(run, engines), R, delta);
}

ComparisonEntry Session::analyse(const RunConfig& run, std::string_view name, std::optional<double> delta) const {
  const Analysis* analysis = find_analysis(name);
  if (!analysis) throw SpecError("analysis", "\"" + std::string(name) + "\"", unknown_analysis_rule(name, false));
  const EngineRegistry engines = engines_of(run);
  const TrainingRun training = training_run_of(run.spec);
  const AnalysisInput input{run, training, engines};
  return compare_entry(*analysis, input, run.spec.orders, delta ? delta : run.spec.report_delta,
                       run.spec.report_epsilon);
}

}  // namespace rdpdyn

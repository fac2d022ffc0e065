#pragma once
// The engine interface: every way of solving the PDI (C21 eq. (13); docs/math.md section 2.1) takes
// a privacy program, initial data, the orders and a record plan, and reports the recorded rows to
// one observer type. Engines are chosen by name from an EngineRegistry (solver/engine_registry.hpp);
// adding an engine is one class and one line there.
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "dynamics/initial_curve.hpp"
#include "dynamics/privacy_program.hpp"
#include "dynamics/solution.hpp"
#include "solver/engine_request.hpp"
#include "solver/finite_difference_grid.hpp"
#include "solver/interval_flow.hpp"
#include "solver/step_progress.hpp"

namespace rdpdyn {

/// What a solve is asked for besides the program: which steps to record, the integration
/// tolerance of numerically integrated intervals, and the grid of grid-based engines.
struct EngineSettings {
  RecordPlan record;
  IntegrationTolerance tolerance;
  FiniteDifferenceGrid grid{};
  StepProgress progress{};
};

/// A 2-D series an engine reports beside R at every record (same shape), e.g. the uncertified
/// finite-difference value.
struct RowSeriesSpec {
  std::string name;  ///< dataset /extras/<name>: non-empty, unique among the extras, no '/'
  std::string description;
  std::string units;
};

/// A vector over the orders, e.g. a flag per order that the boundary influences it.
struct PerOrderVector {
  std::string name;
  std::string description;
  std::vector<double> values;  ///< one per order
};

/// One recorded row: completed steps, time, LSI constant of the iterate law, R at every order
/// (certified upper bounds) and the engine's extra series in the order of Engine::row_series().
struct EngineRecord {
  std::int64_t step = 0;
  double t = 0.0;
  double lsi_constant = 0.0;
  std::span<const double> R;
  std::vector<std::span<const double>> extras;
};

/// Receives the records of a solve, in order (on the writing rank of a distributed engine).
class RecordObserver {
 public:
  virtual ~RecordObserver() = default;
  virtual void record(const EngineRecord& row) = 0;
};

/// What an engine reports once the solve is over.
struct EngineSummary {
  std::vector<double> final_R;  ///< the last recorded row, on every rank
  std::vector<PerOrderVector> per_order;
  std::map<std::string, std::string> attributes;  ///< e.g. grid size, largest gap
};

class Engine {
 public:
  virtual ~Engine() = default;
  /// The configuration's name ([analysis] engine = "...").
  virtual std::string name() const = 0;
  /// How the values are computed and their accuracy controlled (HDF5 attribute `method`).
  virtual std::string method(const EngineSettings& settings) const = 0;
  /// The extra row series every record carries.
  virtual std::vector<RowSeriesSpec> row_series() const { return {}; }

  // What the engine knows of itself, asked before anything is solved (nothing else compares names).

  /// A dry run: nothing when the engine can solve the run `request` describes, else the key, value
  /// and rule that stop it. May complete the defaults of the engine's own settings (the grid).
  virtual std::optional<EngineRefusal> admit(EngineRequest& request) const = 0;
  /// The default gamma for a run that gives none: the pointwise-optimal one where the engine
  /// supports it for these initial data (its bound is below every fixed gamma's, docs/math.md
  /// section 3.4), else C21 Thm 2's 1/2.
  virtual bool optimal_gamma_by_default(const InitialCurve& initial) const = 0;
  /// PETSc (and MPI) must be started before it solves (a single process otherwise never pays for MPI).
  virtual bool needs_petsc() const { return false; }
  /// For data linear in alpha every row is exactly alpha w(t), with no discretisation in alpha: the
  /// bound then holds at every order, not only the configured ones (models/configured_solve.hpp).
  virtual bool keeps_linear_data_exact() const { return false; }
  /// The memory the engine keeps beyond the records, for the estimate made before a run starts.
  virtual std::vector<MemoryTerm> memory_terms(const EngineRequest&) const { return {}; }
  /// The work of one step at one order relative to the characteristics engine's, for balancing a
  /// sweep's points over processes.
  virtual double relative_cost() const { return 1.0; }
  /// Solves the program and streams the records to `observer`. Throws std::invalid_argument for
  /// input the engine cannot solve and std::domain_error when a user function leaves its domain.
  virtual EngineSummary solve(const PrivacyProgram& program, const InitialCurve& initial,
                              std::span<const double> orders, const EngineSettings& settings,
                              RecordObserver& observer) const = 0;
};

/// The engines known to a build, by name.
class EngineRegistry {
 public:
  void add(std::unique_ptr<Engine> engine) { engines_.push_back(std::move(engine)); }
  /// nullptr when no engine has that name.
  const Engine* find(const std::string& name) const {
    for (const auto& e : engines_)
      if (e->name() == name) return e.get();
    return nullptr;
  }
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& e : engines_) out.push_back(e->name());
    return out;
  }

 private:
  std::vector<std::unique_ptr<Engine>> engines_;
};

}  // namespace rdpdyn

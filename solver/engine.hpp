#pragma once
// The engine interface: every way of solving the PDI (C21 eq. (13); docs/math.md section 2.1) takes
// a privacy program, initial data, the orders and a record plan, and reports the recorded rows to
// one observer type. Engines are chosen by name from an EngineRegistry (solver/engine_registry.hpp);
// adding an engine is one class and one line there.
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "dynamics/initial_curve.hpp"
#include "dynamics/privacy_program.hpp"
#include "dynamics/solution.hpp"
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

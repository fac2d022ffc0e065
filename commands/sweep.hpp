#pragma once
// `rdpdyn sweep`: bound surfaces. The configuration's [sweep] table names analyses of the registry
// (analyses/registry.cpp, or "best") and axes over any numeric keys; every point of the Cartesian
// product is a complete configuration checked by the rules of `solve`. A point that breaks a rule
// gets NaN and its reason, and the sweep goes on (docs/config.md, "[sweep]").
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "analyses/analysis.hpp"
#include "models/run_config.hpp"
#include "solver/engine.hpp"

namespace rdpdyn {

/// One axis of a sweep: a dotted key of the configuration and the values it takes.
struct SweepAxis {
  std::string key;             ///< e.g. "algorithm.sigma", "algorithm.schedule[0].eta"
  std::vector<double> values;  ///< in the order given (a range: start to stop)
  bool integer = false;        ///< written to the configuration as TOML integers (steps, n, ...)
  std::string description;     ///< how the values were given, e.g. "range 0.01..0.5, 5 values, log"
};

/// The name of the per-point tightest analysis in SweepSpec::analyses (as `compare`'s best).
inline constexpr const char* kBestAnalysis = "best";

struct SweepSpec {
  std::vector<std::string> analyses{"pdi"};  ///< registry names or kBestAnalysis
  std::vector<SweepAxis> axes;

  std::size_t point_count() const;
  /// The axis values of point `index` (row-major: the last axis varies fastest).
  std::vector<double> point(std::size_t index) const;
};

/// Builds the configuration of one point from its axis values (one per axis, in order), checked
/// by the rules of `solve`; throws SpecError when the point breaks one.
using PointConfiguration = std::function<RunConfig(std::span<const double> axis_values)>;

/// One analysis over every point. Arrays are row-major over the axes (then the orders for R);
/// NaN where the analysis does not apply or the point is invalid, with the reason.
struct SweepSurface {
  std::string name;  ///< registry name or "best"
  std::string citation;
  std::string status;  ///< "published", "derived", "disputed"; "best": "per point"
  std::string status_note;
  std::vector<double> R;           ///< points x orders (nats)
  std::vector<double> epsilon;     ///< per point, at the point's [report] delta (NaN without one)
  std::vector<double> best_order;  ///< the order attaining epsilon
  /// the conversion attaining epsilon at each point (ComparisonEntry::conversion; "" where none)
  std::vector<std::string> conversion;
  std::vector<std::string> reason;  ///< "" where valid
  std::vector<std::string> chosen;  ///< "best" only: the analysis that gave epsilon at each point
};

struct SweepResult {
  SweepSpec spec;
  std::vector<double> orders;
  std::vector<double> delta;           ///< per point: the point's [report] delta, NaN without one
  std::vector<SweepSurface> surfaces;  ///< in the order of spec.analyses
  std::vector<std::uint8_t> computed;  ///< per point: 1 where this process evaluated it
  std::vector<std::string> invalid;    ///< per point: why its configuration breaks a rule, "" if valid

  /// Points evaluated here whose configuration passed the checks.
  std::size_t valid_points() const;
  /// The reason of the first (lowest index) invalid point, "" if none.
  std::string first_invalid() const;
};

/// Called after each point with (points done, points to do) by this process.
using SweepProgress = std::function<void(std::size_t done, std::size_t total)>;

/// Checks the analyses named by `spec` against the registry; throws SpecError naming
/// "sweep.analyses" otherwise.
void check_sweep_analyses(const SweepSpec& spec);

/// Evaluates the points listed in `points` (indices into the product; all of them when empty is
/// not wanted, pass every index). `orders` are the orders every point must have (they are the last
/// dimension of R). Deterministic: a point's values do not depend on which other points run.
SweepResult run_sweep(const SweepSpec& spec, std::span<const double> orders, const PointConfiguration& configure,
                      const EngineRegistry& engines, std::span<const std::size_t> points,
                      const SweepProgress& progress = {});

/// Assigns points to `ranks` processes, balanced by estimated cost: longest first, each to the
/// least loaded rank (ties: the lower rank). Returns the rank of each point.
std::vector<int> balance_points(std::span<const double> costs, int ranks);

}  // namespace rdpdyn

#pragma once
// RDP -> (epsilon, delta)-DP conversions (docs/math.md section 4), their inverses, and calibration of
// a parameter (noise, number of steps) to a target (epsilon, delta) by bisection.
//
// A mechanism that is (alpha, R)-RDP at every order of a grid is (epsilon, delta)-DP for the
// epsilon of any one order; the best certificate is the minimum over the grid. (epsilon, delta)-DP
// is monotone in epsilon, so a negative value certifies epsilon = 0: results are clamped at 0.
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

namespace rdpdyn {

enum class RdpConversion {
  Mironov,   ///< Mironov 2017, Prop. 3
  Improved,  ///< Balle et al. 2020, Thm 21 = Canonne, Kamath & Steinke 2020, Prop. 12
};

/// Mironov 2017 Prop. 3: epsilon = R + log(1/delta) / (alpha - 1). alpha > 1, R >= 0 (may be
/// +infinity), delta in (0, 1); throws std::invalid_argument otherwise.
double epsilon_mironov(double alpha, double rdp, double delta);

/// Balle et al. 2020 Thm 21 / CKS 2020 Prop. 12:
/// epsilon = R + log((alpha - 1)/alpha) - (log delta + log alpha) / (alpha - 1), clamped at 0.
double epsilon_improved(double alpha, double rdp, double delta);

double rdp_to_epsilon(RdpConversion conversion, double alpha, double rdp, double delta);

/// Inverse of epsilon_mironov in delta: delta = exp((alpha - 1)(R - epsilon)), at most 1.
/// epsilon >= 0 finite.
double delta_mironov(double alpha, double rdp, double epsilon);

/// Inverse of epsilon_improved in delta:
/// log delta = (alpha - 1)(R - epsilon) + (alpha - 1) log(1 - 1/alpha) - log alpha, at most 1.
double delta_improved(double alpha, double rdp, double epsilon);

double rdp_to_delta(RdpConversion conversion, double alpha, double rdp, double epsilon);

struct EpsilonAtOrder {
  double epsilon;  ///< >= 0; +infinity if R is infinite at every order
  double order;    ///< the order attaining it (the first on ties); NaN if epsilon is infinite
};

struct DeltaAtOrder {
  double delta;  ///< in [0, 1]
  double order;  ///< the order attaining it (the first on ties)
};

/// min over the grid of rdp_to_epsilon. orders and rdp: same non-zero length.
EpsilonAtOrder best_epsilon(std::span<const double> orders, std::span<const double> rdp,
                            double delta, RdpConversion conversion = RdpConversion::Improved);

/// min over the grid of rdp_to_delta.
DeltaAtOrder best_delta(std::span<const double> orders, std::span<const double> rdp,
                        double epsilon, RdpConversion conversion = RdpConversion::Improved);

// ---- calibration -------------------------------------------------------------------------------

/// The privacy guarantee to meet: best_epsilon(orders, R, delta, conversion) <= epsilon.
struct PrivacyTarget {
  double epsilon;
  double delta;
  RdpConversion conversion = RdpConversion::Improved;
};

/// R at every order as a function of a continuous parameter (e.g. the noise sigma).
using RdpCurveOf = std::function<std::vector<double>(double parameter)>;
/// R at every order as a function of a count (e.g. the number of steps).
using RdpCurveOfCount = std::function<std::vector<double>(std::int64_t count)>;

struct CalibrationOptions {
  /// Bisection stops when hi - lo <= relative * |feasible end| + absolute (or at adjacent doubles).
  double relative_tolerance = 1e-9;
  double absolute_tolerance = 0.0;
  int max_iterations = 400;
};

struct CalibrationResult {
  double parameter;         ///< meets the target (evaluated, never extrapolated)
  double other_end;         ///< the nearest evaluated parameter that does not meet it
  EpsilonAtOrder achieved;  ///< at `parameter`; achieved.epsilon <= target.epsilon
  int evaluations;
  bool converged;           ///< false if max_iterations stopped the bisection first
};

struct CountCalibrationResult {
  std::int64_t count;       ///< the largest count meeting the target
  EpsilonAtOrder achieved;  ///< at `count`
  int evaluations;
};

/// epsilon (and its order) as a function of the parameter, for analyses whose epsilon is minimised
/// over a continuum of orders (accounting/epsilon_over_orders.hpp) rather than a fixed grid.
using EpsilonOf = std::function<EpsilonAtOrder(double parameter)>;
using EpsilonOfCount = std::function<EpsilonAtOrder(std::int64_t count)>;

/// The smallest parameter in [lo, hi] meeting the target, for epsilon non-increasing in the
/// parameter (noise). Requires the target met at hi and not at lo: otherwise std::domain_error
/// saying which end to move. Returns a feasible parameter within tolerance above the threshold.
CalibrationResult calibrate_smallest(const RdpCurveOf& rdp_of, std::span<const double> orders,
                                     const PrivacyTarget& target, double lo, double hi,
                                     const CalibrationOptions& options = {});

/// The largest parameter in [lo, hi] meeting the target, for epsilon non-decreasing in the
/// parameter (training time). Requires the target met at lo and not at hi.
CalibrationResult calibrate_largest(const RdpCurveOf& rdp_of, std::span<const double> orders,
                                    const PrivacyTarget& target, double lo, double hi,
                                    const CalibrationOptions& options = {});

/// The largest integer count in [lo, hi] meeting the target, for epsilon non-decreasing in the
/// count (number of steps). Requires the target met at lo and not at hi. Exact (integer bisection).
CountCalibrationResult calibrate_largest_count(const RdpCurveOfCount& rdp_of,
                                               std::span<const double> orders,
                                               const PrivacyTarget& target, std::int64_t lo,
                                               std::int64_t hi);

/// calibrate_smallest on an epsilon curve: epsilon_of(x).epsilon <= target.epsilon decides (the
/// target's conversion is the caller's business).
CalibrationResult calibrate_smallest_epsilon(const EpsilonOf& epsilon_of, const PrivacyTarget& target, double lo,
                                             double hi, const CalibrationOptions& options = {});
/// calibrate_largest_count on an epsilon curve.
CountCalibrationResult calibrate_largest_count_epsilon(const EpsilonOfCount& epsilon_of, const PrivacyTarget& target,
                                                       std::int64_t lo, std::int64_t hi);

}  // namespace rdpdyn

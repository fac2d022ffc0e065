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
  Asoodeh,   ///< Asoodeh, Liao, Calmon, Kosut & Sankar 2021 (below, epsilon_asoodeh)
  /// Not a conversion of one order: the zCDP route of a curve R = rho alpha at every alpha > 1
  /// (accounting/zcdp.hpp). Only reported, never passed to rdp_to_epsilon.
  Zcdp,
  /// At each order the smallest of Mironov, Improved and Asoodeh (each valid at that order, so
  /// their minimum is); the certificate records which one attained it.
  Best,
};

/// "mironov", "improved", "asoodeh", "zcdp", "best": the names written to JSON and HDF5.
const char* conversion_name(RdpConversion conversion);

/// Mironov 2017 Prop. 3: epsilon = R + log(1/delta) / (alpha - 1). alpha > 1, R >= 0 (may be
/// +infinity), delta in (0, 1); throws std::invalid_argument otherwise.
double epsilon_mironov(double alpha, double rdp, double delta);

/// Balle et al. 2020 Thm 21 / CKS 2020 Prop. 12:
/// epsilon = R + log((alpha - 1)/alpha) - (log delta + log alpha) / (alpha - 1), clamped at 0.
double epsilon_improved(double alpha, double rdp, double delta);

/// Asoodeh, Liao, Calmon, Kosut & Sankar 2021 (arXiv:2001.05990; the `alc` conversion of the
/// shifted-interpolation scripts of Bok, Su & Altschuler 2024):
///   epsilon = log(1 + (e^{(alpha - 1) R} - 1) / (alpha delta)) / (alpha - 1),
/// i.e. delta = (e^{(alpha-1) R} - 1) / (alpha (e^{(alpha-1) epsilon} - 1)). Valid for any pair of
/// laws with D_alpha <= R at the single order alpha > 1 (docs/math.md section 4.2 derives it from
/// the tangent of x^alpha at e^epsilon); never above Mironov's; below the improved conversion
/// exactly where e^{(alpha-1)R} (1 - (1 - 1/alpha)^{alpha-1}) < 1 - alpha delta (small alpha or
/// small R), above it elsewhere. R = 0 gives 0. Rounded outward. Same domain as epsilon_mironov.
double epsilon_asoodeh(double alpha, double rdp, double delta);

/// The conversion of one order and which one attained it.
struct ConvertedEpsilon {
  double epsilon;
  RdpConversion conversion;
};

/// min of epsilon_improved, epsilon_asoodeh and epsilon_mironov at one order (ties: in that order
/// of preference).
ConvertedEpsilon epsilon_best_conversion(double alpha, double rdp, double delta);

/// Mironov, Improved, Asoodeh or Best (std::invalid_argument for Zcdp).
double rdp_to_epsilon(RdpConversion conversion, double alpha, double rdp, double delta);

/// Inverse of epsilon_mironov in delta: delta = exp((alpha - 1)(R - epsilon)), at most 1.
/// epsilon >= 0 finite.
double delta_mironov(double alpha, double rdp, double epsilon);

/// Inverse of epsilon_improved in delta:
/// log delta = (alpha - 1)(R - epsilon) + (alpha - 1) log(1 - 1/alpha) - log alpha, at most 1.
double delta_improved(double alpha, double rdp, double epsilon);

/// Inverse of epsilon_asoodeh in delta: delta = (e^{(alpha-1) R} - 1) / (alpha (e^{(alpha-1) epsilon} - 1)),
/// at most 1 (1 at epsilon = 0 unless R = 0).
double delta_asoodeh(double alpha, double rdp, double epsilon);

/// Mironov, Improved, Asoodeh or Best (the smallest delta of the three).
double rdp_to_delta(RdpConversion conversion, double alpha, double rdp, double epsilon);

struct EpsilonAtOrder {
  double epsilon;  ///< >= 0; +infinity if R is infinite at every order
  double order;    ///< the order attaining it (the first on ties); NaN if epsilon is infinite
  /// the conversion that gave epsilon at `order` (Best resolves to the one that attained it)
  RdpConversion conversion = RdpConversion::Improved;
};

struct DeltaAtOrder {
  double delta;  ///< in [0, 1]
  double order;  ///< the order attaining it (the first on ties)
};

/// min over the grid of rdp_to_epsilon. orders and rdp: same non-zero length.
EpsilonAtOrder best_epsilon(std::span<const double> orders, std::span<const double> rdp, double delta,
                            RdpConversion conversion = RdpConversion::Improved);

/// min over the grid of rdp_to_delta.
DeltaAtOrder best_delta(std::span<const double> orders, std::span<const double> rdp, double epsilon,
                        RdpConversion conversion = RdpConversion::Improved);

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
  bool converged;  ///< false if max_iterations stopped the bisection first
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
CountCalibrationResult calibrate_largest_count(const RdpCurveOfCount& rdp_of, std::span<const double> orders,
                                               const PrivacyTarget& target, std::int64_t lo, std::int64_t hi);

/// calibrate_smallest on an epsilon curve: epsilon_of(x).epsilon <= target.epsilon decides (the
/// target's conversion is the caller's business).
CalibrationResult calibrate_smallest_epsilon(const EpsilonOf& epsilon_of, const PrivacyTarget& target, double lo,
                                             double hi, const CalibrationOptions& options = {});
/// calibrate_largest_count on an epsilon curve.
CountCalibrationResult calibrate_largest_count_epsilon(const EpsilonOfCount& epsilon_of, const PrivacyTarget& target,
                                                       std::int64_t lo, std::int64_t hi);

}  // namespace rdpdyn

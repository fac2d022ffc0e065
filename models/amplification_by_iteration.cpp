#include "models/amplification_by_iteration.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "numerics/outward_rounding.hpp"

namespace rdpdyn {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

double up(double x) { return std::nextafter(x, kInf); }
double down(double x) { return std::nextafter(x, -kInf); }

/// The weights w_t = prod_{u>t} c_u, step by step from the front: log w_t = (sum of log c_u over the
/// steps after the last c = 0 step) - (the part of that sum up to t). Steps before the last c = 0 have
/// w = 0 (the map forgets their shift). Only the allocation depends on these values, never the bound's
/// validity, so their rounding costs optimality at most.
class SuffixWeights {
 public:
  SuffixWeights(std::int64_t steps, const std::function<ContractiveStep(std::int64_t)>& step) {
    for (std::int64_t t = 0; t < steps; ++t) {
      const double c = step(t).contraction;
      if (c == 0.0) {
        last_zero_ = t;
        total_log_ = 0.0;
      } else {
        total_log_ += std::log(c);
      }
    }
  }
  /// w_t; call for t = 0, 1, ... in order with step t's contraction.
  double next(std::int64_t t, double c) {
    if (t < last_zero_) return 0.0;
    if (t > last_zero_) prefix_log_ += std::log(c);
    return std::exp(total_log_ - prefix_log_);
  }

 private:
  std::int64_t last_zero_ = -1;
  double total_log_ = 0.0;
  double prefix_log_ = 0.0;
};

struct HullPoint {
  double H, D;        ///< cumulative weighted noise variance and shift after step `step`
  std::int64_t step;  ///< -1 for the origin
};

/// Whether b lies on or above the segment from a to c (then b is not a vertex of the lower hull).
bool not_below(const HullPoint& a, const HullPoint& b, const HullPoint& c) {
  return (b.H - a.H) * (c.D - a.D) - (b.D - a.D) * (c.H - a.H) <= 0.0;
}

}  // namespace

std::optional<double> amplification_by_iteration_energy(std::int64_t steps,
                                                        const std::function<ContractiveStep(std::int64_t)>& step,
                                                        std::size_t max_hull_points) {
  bool any_shift = false;
  for (std::int64_t t = 0; t < steps; ++t) {
    const ContractiveStep s = step(t);
    if (!(s.contraction >= 0.0 && s.contraction <= 1.0) || !(s.noise_variance > 0.0) || !(s.shift >= 0.0) ||
        !std::isfinite(s.shift))
      return std::nullopt;
    any_shift = any_shift || s.shift > 0.0;
  }
  if (!any_shift) return 0.0;  // the two processes are the same: nothing to pay (and no rounding dust)

  // Pass 1: the greatest convex minorant of (H_t, D_t) from the origin (monotone chain, H increasing).
  std::vector<HullPoint> hull{{0.0, 0.0, -1}};
  {
    SuffixWeights weights(steps, step);
    double H = 0.0, D = 0.0;
    for (std::int64_t t = 0; t < steps; ++t) {
      const ContractiveStep s = step(t);
      const double w = weights.next(t, s.contraction);
      H += w * w * s.noise_variance;
      D += w * s.shift;
      // Same H (no weight added, or absorbed by rounding): the point's D is at least the previous
      // one's, so its constraint is the weaker; and a last point lost this way only leaves more for
      // the last step to pay in pass 2 (valid, less tight).
      if (!(H > hull.back().H)) continue;
      const HullPoint p{H, D, t};
      while (hull.size() >= 2 && not_below(hull[hull.size() - 2], hull.back(), p)) hull.pop_back();
      hull.push_back(p);
      if (hull.size() > max_hull_points) return std::nullopt;
    }
  }

  // Pass 2: the allocation a_t = slope * w_t * v_t of the hull segment holding step t, its shifts
  // z carried as an enclosure [lo, hi] with directed rounding; a_t is cut to keep lo >= 0, and the
  // last step pays c z + s <= hi-bound, so the shifts end at exactly 0.
  SuffixWeights weights(steps, step);
  double z_lo = 0.0, z_hi = 0.0, energy = 0.0;
  std::size_t segment = 0;
  for (std::int64_t t = 0; t < steps; ++t) {
    const ContractiveStep s = step(t);
    const double w = weights.next(t, s.contraction);
    while (segment + 1 < hull.size() && hull[segment + 1].step < t) ++segment;
    const double pre_lo = std::max(0.0, down(down(s.contraction * z_lo) + s.shift));
    const double pre_hi = up(up(s.contraction * z_hi) + s.shift);
    double a;
    if (t + 1 == steps) {
      a = pre_hi;
    } else {
      const HullPoint& p = hull[segment];
      const HullPoint& q = hull[std::min(segment + 1, hull.size() - 1)];
      const double slope = q.H > p.H ? (q.D - p.D) / (q.H - p.H) : 0.0;
      a = std::clamp(slope * w * s.noise_variance, 0.0, pre_lo);
      z_lo = std::max(0.0, down(pre_lo - a));
      z_hi = up(pre_hi - a);
    }
    energy = up(energy + up(up(a * a) / s.noise_variance));
  }
  // The inputs (c_t, s_t, v_t) carry the rounding of their own computation: the recursion margin.
  return outward::round_up(energy, outward::recursion_margin(steps));
}

}  // namespace rdpdyn

#pragma once
// Outward-rounded composition of y-independent interval flows (transport A, source psi).
//
// On an interval where the characteristic speed a1 does not depend on alpha, the PDI's flow along
// characteristics is w_end(y + A) = e^{-A} w_start(y) + psi (docs/math.md §2.3; solver/interval_flow.hpp).
// Two such flows compose into one: A = A1 + A2, psi = e^{-A2} psi1 + psi2. The certification keeps
// these compositions while the engine marches, so that a certified value over a straight stretch
// costs O(1) instead of one integration per step (docs/finite-difference.md §5).
//
// Soundness: the exact transport lies within `transport +- transport_error` and `source` is an upper
// bound of the exact source. Every operation below keeps both properties for the exact reals
// (non-negative sources and data: w = R/alpha >= 0).
#include <algorithm>
#include <cmath>
#include <limits>

#include "numerics/outward_rounding.hpp"

namespace rdpdyn {

struct BoundedFlow {
  double transport = 0.0;        ///< A; once erased, the transport since the erasure
  double transport_error = 0.0;  ///< |A_exact - transport| <= transport_error
  double source = 0.0;           ///< >= psi_exact >= 0
  /// An infinite transport on the way (point-mass start, docs/finite-difference.md §2): w at the end
  /// no longer depends on the start, it is `source`.
  bool erased = false;
};

namespace flow_rounding {
inline constexpr double kEps = std::numeric_limits<double>::epsilon();
/// Relative slack on a quantity computed with a few correctly-rounded operations and elementary
/// functions (each within 1 ulp in glibc): 16 ulps, far above the actual few.
inline constexpr double kSlack = 16.0 * kEps;
inline double up(double x) { return outward::round_up(x, kSlack); }
/// e^{-A} for the smallest A compatible with the bounds: an upper bound of the exact factor.
inline double decay_upper(const BoundedFlow& f) {
  if (f.erased) return 0.0;
  // Never 0 for a finite transport (exp underflows to 0 while the exact factor is positive).
  return std::max(up(std::exp(-std::max(0.0, f.transport - f.transport_error))),
                  std::numeric_limits<double>::denorm_min());
}
}  // namespace flow_rounding

/// A closed-form flow (a few ulps from exact) with its rounding slack made explicit.
inline BoundedFlow bounded(double transport, double source, double transport_error = 0.0) {
  using namespace flow_rounding;
  if (std::isinf(transport)) return {0.0, 0.0, up(source), true};
  return {transport, transport_error + std::abs(transport) * kSlack, up(source), false};
}

/// A jump of w by `delta` >= 0 (a Gaussian release, C21 / docs/math.md §2.6): no transport.
inline BoundedFlow jump(double delta) { return {0.0, 0.0, delta, false}; }

/// `first` then `then`.
inline BoundedFlow compose(const BoundedFlow& first, const BoundedFlow& then) {
  using namespace flow_rounding;
  if (then.erased) return then;  // the past is forgotten
  BoundedFlow out;
  out.erased = first.erased;
  out.transport = first.transport + then.transport;
  out.transport_error = up(first.transport_error + then.transport_error + std::abs(out.transport) * kEps);
  out.source = up(decay_upper(then) * first.source + then.source);
  return out;
}

/// Upper bound of w at the end of the flow from an upper bound w_start >= 0 at the foot.
inline double apply(const BoundedFlow& f, double w_start) {
  using namespace flow_rounding;
  if (f.erased) return f.source;
  return up(decay_upper(f) * w_start + f.source);
}

}  // namespace rdpdyn

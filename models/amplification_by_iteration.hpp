#pragma once
// Privacy amplification by iteration (shifted Rényi divergences) for one fixed sequence of steps:
// the best allocation of the shifts, computed exactly as a convex hull (docs/analyses.md,
// "pdi on mini-batch runs", "Shifted divergences per placement").
//
// The process X_{t+1} = phi_t(X_t) + N(0, v_t I) against X'_{t+1} = phi'_t(X'_t) + N(0, v_t I), from
// the same start, with phi_t c_t-Lipschitz, c_t <= 1, and sup_x |phi_t(x) - phi'_t(x)| <= s_t.
// Altschuler & Talwar 2022 (arXiv:2205.13710) Prop. 2.17 (Feldman, Mironov, Talwar & Thakurta 2018,
// arXiv:1808.06651, Thm 22) with the contraction-reduction lemma for c-contractions (A&T Lemma 5.5;
// Prop. 5.4 at tau = 0, D = 0, with c = c_t per step): for every allocation a_t >= 0 whose shifts
// z_{t+1} = c_t z_t + s_t - a_t stay >= 0 from z_0 = 0 and end at z_T = 0,
//   D_alpha(X_T || X'_T) <= alpha/2 * sum_t a_t^2 / v_t.
// The smallest sum ("energy" E) is the energy of the greatest convex minorant of the points
// (H_t, D_t) = (sum_{u<t} w_u^2 v_u, sum_{u<t} w_u s_u), w_u = prod_{u'>u} c_{u'} (the shift
// constraints are B_t <= D_t on the weighted cumulative shifts B, a taut string under a staircase).
#include <cstdint>
#include <functional>
#include <optional>

namespace rdpdyn {

/// One step of the process: the Lipschitz constant of the shared map, the l2 gap between the two
/// maps (0 when the step does not see the differing record) and the variance of the added noise.
struct ContractiveStep {
  double contraction;     ///< c_t in [0, 1]
  double shift;           ///< s_t >= 0
  double noise_variance;  ///< v_t > 0
};

/// The smallest energy E = min sum a_t^2 / v_t over the admissible allocations, rounded outward:
/// an allocation is built from the convex hull, its shifts are carried with directed rounding and
/// cut where they would turn negative, the last step pays what is left, and the sum is raised by the
/// recursion margin. R(alpha) <= alpha E / 2. nullopt when a step has c_t outside [0, 1], v_t <= 0,
/// a shift s_t negative, NaN or infinite, or the hull would exceed `max_hull_points` (the caller then
/// keeps its other bound).
std::optional<double> amplification_by_iteration_energy(std::int64_t steps,
                                                        const std::function<ContractiveStep(std::int64_t)>& step,
                                                        std::size_t max_hull_points = std::size_t{1} << 20);

}  // namespace rdpdyn

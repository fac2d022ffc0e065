#pragma once
// YS22 (arXiv:2203.05363) Lemma 3.2 as a transport step on a bound known at many orders: the
// Gaussian mechanism of a step whose batch holds the differing record, then the contraction of a
// data-independent heat flow, which reads the bound at a smaller order. For initial data that are
// not linear in alpha. The registry entries start from R = 0, where these steps reduce to the
// scalar recursions of recursions.hpp (tested).
#include <functional>
#include <span>
#include <vector>

namespace rdpdyn::ye_shokri {

/// Internal grid: the orders alpha with alpha - 1 log-spaced, kGridPointsPerDecade per decade, from
/// kGridMinExcess up to the largest user order, merged with the user's orders. Why: a contraction
/// step reads R at alpha' = 1 + (alpha - 1) rho < alpha, which leaves the user's orders; a node
/// ratio r = 10^(1/256) in alpha - 1 keeps the chord interpolation within (r - 1)^2/4 ~ 2e-5 of
/// alpha-linear data per step, and the smallest node 1 + 1e-6 makes the flat closure below it
/// (R non-decreasing) cost at most a factor 1 + 1e-6 on alpha-linear data.
inline constexpr double kGridMinExcess = 1e-6;
inline constexpr int kGridPointsPerDecade = 256;
std::vector<double> transport_grid(std::span<const double> orders);

/// One step of Lemma 3.2 on a bound: first the Gaussian mechanism of a step whose batch holds the
/// differing record, R += alpha * gaussian_cost (eq. (56) second case / (70)), then the
/// contraction of a data-independent heat flow, R(alpha) <- alpha rho R(alpha') / alpha' with
/// alpha' = 1 + (alpha - 1) rho (eq. (56) first case, (66)-(68)). A plain data-independent step
/// is {0, rho}; a data-dependent step is {w, 1}; Thm D.6's split step is {w/gamma, rho}.
struct Lemma32Step {
  double gaussian_cost = 0.0;  ///< R/alpha added before the contraction
  double rho = 1.0;            ///< contraction factor in [0, 1]
};

/// One step on a caller-given grid: R bounds at the increasing orders `grid` (> 1) in, bounds at
/// the same orders out. R(alpha') is read with rdp_upper_interpolation (sound: an upper bound)
/// from the suffix minima of R (also upper bounds, since R_alpha is non-decreasing); below the
/// smallest grid order it is the smallest such value.
std::vector<double> lemma32_step_on_grid(std::span<const double> grid, std::span<const double> R,
                                         const Lemma32Step& step);

/// Iterates lemma32_step_on_grid over `steps` on transport_grid(orders), from R0 known at `orders`
/// (any order, each > 1; extended to the grid by rdp_upper_interpolation). Returns the bound at
/// `orders`, in the caller's order.
std::vector<double> lemma32_recursion_from_values(std::span<const double> orders, std::span<const double> R0,
                                                  std::span<const Lemma32Step> steps);
/// The same with R0 a function of alpha, evaluated at every grid order (tighter at low alpha).
std::vector<double> lemma32_recursion_from_curve(std::span<const double> orders,
                                                 const std::function<double(double)>& R0,
                                                 std::span<const Lemma32Step> steps);

}  // namespace rdpdyn::ye_shokri

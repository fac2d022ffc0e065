#pragma once
// (epsilon, delta) from an RDP curve, minimised over the order (docs/math.md section 4).
//
// A mechanism that is (alpha, R(alpha))-RDP at every order alpha > 1 is (epsilon, delta)-DP with
// the epsilon of any single order (Balle et al. 2020, arXiv:1905.09982, Thm 21): the best
// certificate is the smallest epsilon over the orders at which R is known. When R can be
// evaluated at any order (closed forms, data linear in alpha) the minimum is taken over the
// continuum alpha in [1 + 1e-3, alpha_max]; otherwise over the recorded grid.
//
// The continuous minimiser evaluates a coarse geometric grid in y = ln(alpha - 1) first (the
// conversion need not be unimodal for every analysis), then refines around the grid's best point
// with Brent's method (Boost.Math brent_find_minima) inside the bracket of its two neighbours.
// The result is the smallest conversion among all the orders it evaluated, reported with that
// order: the epsilon is exactly rdp_to_epsilon(conversion, order, R(order), delta), a valid
// certificate whatever the shape of R. With RdpConversion::Best the objective is the smallest of
// the single-order conversions at each order, and the result's `conversion` names the one that
// attained it (accounting/epsilon_delta.hpp). Below alpha = 1 + 1e-3 the conversion's cost
// ln(1/delta)/(alpha - 1) exceeds 10^3 ln(1/delta) nats, so nothing useful is lost there.
#include <functional>
#include <span>
#include <vector>

#include "accounting/epsilon_delta.hpp"

namespace rdpdyn {

/// The smallest order the continuous minimiser considers: 1 + kMinOrderExcess.
inline constexpr double kMinOrderExcess = 1e-3;
/// The default largest order.
inline constexpr double kDefaultMaxOrder = 1e4;

/// R (nats, >= 0, +infinity allowed) at one order alpha > 1.
using RdpAtOrder = std::function<double(double alpha)>;
/// R at several orders in one call (for analyses with a fixed cost per evaluation).
using RdpAtOrders = std::function<std::vector<double>(std::span<const double> orders)>;

/// min over alpha in [1 + kMinOrderExcess, alpha_max] of the conversion of R(alpha) at delta, and
/// the order attaining it (epsilon +infinity and order NaN if R is infinite wherever evaluated).
/// delta in (0, 1), alpha_max > 1 + kMinOrderExcess; throws std::invalid_argument otherwise, and
/// passes on what R or the conversion throws (e.g. R < 0).
EpsilonAtOrder minimise_epsilon(const RdpAtOrder& R, double delta, double alpha_max = kDefaultMaxOrder,
                                RdpConversion conversion = RdpConversion::Improved);

/// The same, with the coarse grid evaluated by one call R(grid) (it must return one value per
/// order); the refinement calls it with one order at a time.
EpsilonAtOrder minimise_epsilon_batched(const RdpAtOrders& R, double delta, double alpha_max = kDefaultMaxOrder,
                                        RdpConversion conversion = RdpConversion::Improved);

/// The grid variant: min over the given orders (best_epsilon of accounting/epsilon_delta.hpp).
EpsilonAtOrder minimise_epsilon_on_grid(std::span<const double> orders, std::span<const double> R, double delta,
                                        RdpConversion conversion = RdpConversion::Improved);

/// The coarse grid of the continuous minimiser: orders 1 + e^y, y equally spaced (at most 0.35
/// apart) from ln(kMinOrderExcess) to ln(alpha_max - 1), the last order alpha_max.
std::vector<double> epsilon_search_grid(double alpha_max = kDefaultMaxOrder);

}  // namespace rdpdyn

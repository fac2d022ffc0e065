#pragma once
// The epsilon of a privacy bound at delta, computed here once for every command (solve, compare,
// calibrate, sweep, the library and the Python module): whatever routes the bound offers (its R at
// the recorded orders, R at any order, R = alpha rho, a mu-GDP profile, an f-DP route of its own)
// and the smallest certified epsilon among them.
#include <functional>
#include <optional>
#include <span>
#include <string>

#include "accounting/epsilon_delta.hpp"
#include "accounting/epsilon_over_orders.hpp"

namespace rdpdyn {

/// Relative difference below which two minimisations of the same conversion over overlapping order
/// ranges are the same minimum (Brent's tolerance 2e-6 in ln(alpha - 1) moves epsilon quadratically).
inline constexpr double kSameMinimum = 1e-9;

/// The routes a bound offers to (epsilon, delta). Every value is already rounded outward.
struct BoundRoutes {
  std::span<const double> orders;  ///< the recorded orders
  std::span<const double> R;       ///< R at them (NaN where unknown)
  RdpAtOrders at_any_order;        ///< R at any order > 1, or empty
  std::optional<double> zcdp_rho;  ///< R = alpha rho at every order: rho-zCDP (Bun & Steinke 2016 Def. 1.1)
  std::optional<double> gdp_mu;    ///< the bound is mu-GDP (Dong, Roth & Su 2022): its exact profile
  std::function<double(double delta)> fdp_epsilon;  ///< an f-DP route of the bound's own, or empty
  std::string fdp_route;                            ///< its name ("gdp", "gdp-mixture", "pld")
};

/// The epsilon of a bound at delta, and where it comes from.
struct BoundEpsilon {
  EpsilonAtOrder best;      ///< the smallest certified epsilon (order NaN where no order is involved)
  std::string conversion;   ///< its route: a conversion_name, "zcdp", "gdp" or the f-DP route's name
  EpsilonAtOrder recorded;  ///< over the recorded orders only, as opacus and dp_accounting do
  std::string recorded_conversion;
  std::string orders_searched;  ///< "gdp", "recorded" or "continuous" (alpha in [1.001, 1e4] too)
};

/// A mu-GDP bound: its exact profile inverted (Dong, Roth & Su 2022 Cor 2.13; gdp_epsilon), no
/// order. Otherwise the smallest of the single-order conversions `conversion` (RdpConversion::Best:
/// Mironov 2017 Prop. 3, Balle et al. 2020 Thm 21, Asoodeh et al. 2021) over the recorded orders and,
/// with at_any_order, over alpha in [1 + 1e-3, 1e4]; with zcdp_rho and the Best conversion, the zCDP
/// route (accounting/zcdp.hpp) where lower by more than kSameMinimum; with fdp_epsilon and the Best
/// conversion, that route where lower.
BoundEpsilon epsilon_of_bound(const BoundRoutes& bound, double delta, RdpConversion conversion = RdpConversion::Best);

}  // namespace rdpdyn

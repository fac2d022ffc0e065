#include "accounting/bound_epsilon.hpp"

#include <limits>

#include "accounting/gaussian_dp.hpp"
#include "accounting/zcdp.hpp"

namespace rdpdyn {

BoundEpsilon epsilon_of_bound(const BoundRoutes& bound, double delta, RdpConversion conversion) {
  constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  BoundEpsilon out;
  if (bound.gdp_mu) {
    out.best = out.recorded = {gdp_epsilon(*bound.gdp_mu, delta), kNaN, conversion};
    out.conversion = out.recorded_conversion = out.orders_searched = "gdp";
    return out;
  }
  // Every single-order conversion is valid at every order, so their minimum is (Best).
  EpsilonAtOrder eo = minimise_epsilon_on_grid(bound.orders, bound.R, delta, conversion);
  out.recorded = eo;
  out.recorded_conversion = conversion_name(eo.conversion);
  out.orders_searched = "recorded";
  if (bound.at_any_order) {
    const EpsilonAtOrder continuous = minimise_epsilon_batched(bound.at_any_order, delta, kDefaultMaxOrder, conversion);
    if (continuous.epsilon < eo.epsilon) eo = continuous;
    out.orders_searched = "continuous";
  }
  if (bound.zcdp_rho && conversion == RdpConversion::Best) {
    // The route searches beyond [1.001, 1e4]; inside that window it finds the same minimum up to the
    // minimisers' tolerance, so it is reported only when lower by more than that.
    const EpsilonAtOrder z = epsilon_zcdp(*bound.zcdp_rho, delta);
    if (z.epsilon < eo.epsilon * (1.0 - kSameMinimum)) eo = z;
  }
  out.best = eo;
  out.conversion = conversion_name(eo.conversion);
  if (bound.fdp_epsilon && conversion == RdpConversion::Best) {
    const double f = bound.fdp_epsilon(delta);
    if (f < out.best.epsilon) {
      out.best = {f, kNaN, eo.conversion};
      out.conversion = bound.fdp_route;
    }
  }
  return out;
}

}  // namespace rdpdyn

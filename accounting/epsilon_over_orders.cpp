#include "accounting/epsilon_over_orders.hpp"

#include <algorithm>
#include <boost/math/tools/minima.hpp>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

namespace rdpdyn {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
/// Largest spacing of the coarse grid in y = ln(alpha - 1) (a factor 1.42 in alpha - 1).
constexpr double kGridSpacing = 0.35;
/// Brent's relative tolerance in y is 2^(1 - bits): 2e-6, far below any effect on epsilon at a
/// smooth minimum (epsilon changes quadratically there).
constexpr int kBrentBits = 20;
constexpr std::uintmax_t kBrentIterations = 64;

void check_request(double delta, double alpha_max) {
  if (!(delta > 0.0 && delta < 1.0))
    throw std::invalid_argument("epsilon minimisation: delta = " + std::to_string(delta) + " must lie in (0, 1)");
  if (!(alpha_max > 1.0 + kMinOrderExcess) || !std::isfinite(alpha_max))
    throw std::invalid_argument("epsilon minimisation: the largest order " + std::to_string(alpha_max) +
                                " must be finite and > 1 + " + std::to_string(kMinOrderExcess));
}

/// Keeps the smallest conversion among the evaluated orders (the reported certificate).
struct Tracker {
  double delta;
  RdpConversion conversion;
  EpsilonAtOrder best{kInf, kNaN, conversion};
  double convert(double alpha, double rdp) {
    if (std::isnan(rdp)) return kInf;  // no bound known at this order
    // Best: the smallest of the single-order conversions at alpha, remembering which one it was.
    const ConvertedEpsilon eps = conversion == RdpConversion::Best
                                     ? epsilon_best_conversion(alpha, rdp, delta)
                                     : ConvertedEpsilon{rdp_to_epsilon(conversion, alpha, rdp, delta), conversion};
    if (eps.epsilon < best.epsilon) best = {eps.epsilon, alpha, eps.conversion};
    return eps.epsilon;
  }
};

double order_of(double y, double alpha_max) { return std::min(alpha_max, 1.0 + std::exp(y)); }

EpsilonAtOrder minimise(const RdpAtOrders& R_grid, const RdpAtOrder& R_one, double delta, double alpha_max,
                        RdpConversion conversion) {
  check_request(delta, alpha_max);
  const std::vector<double> grid = epsilon_search_grid(alpha_max);
  const std::vector<double> values = R_grid(grid);
  if (values.size() != grid.size())
    throw std::invalid_argument("epsilon minimisation: " + std::to_string(grid.size()) + " orders but " +
                                std::to_string(values.size()) + " RDP values");
  Tracker tracker{delta, conversion};
  std::size_t at = grid.size();
  double smallest = kInf;
  for (std::size_t i = 0; i < grid.size(); ++i) {
    const double eps = tracker.convert(grid[i], values[i]);
    if (eps < smallest) smallest = eps, at = i;
  }
  if (at == grid.size() || smallest == 0.0) return tracker.best;  // nothing finite, or already 0

  // Refine between the neighbours of the best grid order (in y = ln(alpha - 1)).
  const double y_lo = std::log(grid[at == 0 ? 0 : at - 1] - 1.0);
  const double y_hi = std::log(grid[std::min(at + 1, grid.size() - 1)] - 1.0);
  auto objective = [&](double y) {
    const double alpha = order_of(y, alpha_max);
    const double eps = tracker.convert(alpha, R_one(alpha));
    // Brent's interpolation needs finite values: an order without a bound is just very bad.
    return std::isfinite(eps) ? eps : std::numeric_limits<double>::max();
  };
  std::uintmax_t iterations = kBrentIterations;
  boost::math::tools::brent_find_minima(objective, y_lo, y_hi, kBrentBits, iterations);
  return tracker.best;
}

}  // namespace

std::vector<double> epsilon_search_grid(double alpha_max) {
  const double y_min = std::log(kMinOrderExcess), y_max = std::log(alpha_max - 1.0);
  const auto n = static_cast<std::size_t>(std::ceil((y_max - y_min) / kGridSpacing)) + 1;
  std::vector<double> grid(n);
  for (std::size_t i = 0; i < n; ++i)
    grid[i] = order_of(y_min + (y_max - y_min) * static_cast<double>(i) / static_cast<double>(n - 1), alpha_max);
  grid.back() = alpha_max;
  return grid;
}

EpsilonAtOrder minimise_epsilon(const RdpAtOrder& R, double delta, double alpha_max, RdpConversion conversion) {
  if (!R) throw std::invalid_argument("epsilon minimisation: no RDP curve given");
  const RdpAtOrders each = [&](std::span<const double> orders) {
    std::vector<double> out;
    out.reserve(orders.size());
    for (double a : orders) out.push_back(R(a));
    return out;
  };
  return minimise(each, R, delta, alpha_max, conversion);
}

EpsilonAtOrder minimise_epsilon_batched(const RdpAtOrders& R, double delta, double alpha_max,
                                        RdpConversion conversion) {
  if (!R) throw std::invalid_argument("epsilon minimisation: no RDP curve given");
  const RdpAtOrder one = [&](double alpha) {
    const std::vector<double> v = R(std::span<const double>(&alpha, 1));
    if (v.size() != 1)
      throw std::invalid_argument("epsilon minimisation: 1 order but " + std::to_string(v.size()) + " RDP values");
    return v.front();
  };
  return minimise(R, one, delta, alpha_max, conversion);
}

EpsilonAtOrder minimise_epsilon_on_grid(std::span<const double> orders, std::span<const double> R, double delta,
                                        RdpConversion conversion) {
  return best_epsilon(orders, R, delta, conversion);
}

}  // namespace rdpdyn

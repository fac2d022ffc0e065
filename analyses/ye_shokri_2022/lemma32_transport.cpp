#include "analyses/ye_shokri_2022/lemma32_transport.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "analyses/ye_shokri_2022/detail.hpp"
#include "dynamics/rdp_interpolation.hpp"

namespace rdpdyn::ye_shokri {

using detail::fmt;
using detail::require;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

void check_grid(std::span<const double> grid, std::span<const double> R) {
  require(!grid.empty() && grid.size() == R.size(), "grid and values must be non-empty and of equal size");
  for (std::size_t i = 0; i < grid.size(); ++i) {
    require(grid[i] > 1.0 && std::isfinite(grid[i]), "grid orders must be finite and > 1; found " + fmt(grid[i]));
    require(i == 0 || grid[i] > grid[i - 1], "grid orders must increase strictly");
  }
}

// Upper bound on R(order) from non-decreasing node bounds sm: the two nodes around `order` give
// exactly what rdp_upper_interpolation gives on the whole grid (the tail minimum of a
// non-decreasing sequence is its first element), in O(log n).
double read_bound(std::span<const double> grid, std::span<const double> sm, double order) {
  const auto hi = static_cast<std::size_t>(std::lower_bound(grid.begin(), grid.end(), order) - grid.begin());
  if (hi == grid.size()) return kInf;
  if (hi == 0 || grid[hi] == order) return rdp_upper_interpolation(grid.subspan(hi, 1), sm.subspan(hi, 1), order);
  return rdp_upper_interpolation(grid.subspan(hi - 1, 2), sm.subspan(hi - 1, 2), order);
}

// Transported grid values at each user order (the grid holds them exactly).
std::vector<double> at_orders(std::span<const double> grid, std::span<const double> R, std::span<const double> orders) {
  std::vector<double> out;
  out.reserve(orders.size());
  for (double a : orders) {
    const auto i = static_cast<std::size_t>(std::lower_bound(grid.begin(), grid.end(), a) - grid.begin());
    out.push_back(R[i]);
  }
  return out;
}

std::vector<double> iterate_steps(std::span<const double> grid, std::vector<double> R,
                                  std::span<const Lemma32Step> steps) {
  for (const auto& s : steps) R = lemma32_step_on_grid(grid, R, s);
  return R;
}

}  // namespace

std::vector<double> transport_grid(std::span<const double> orders) {
  require(!orders.empty(), "transport_grid needs at least one order");
  for (double a : orders) require(a > 1.0 && std::isfinite(a), "orders must be finite and > 1; found " + fmt(a));
  std::vector<double> grid(orders.begin(), orders.end());
  const double top = *std::max_element(grid.begin(), grid.end());
  // alpha - 1 = kGridMinExcess * 10^(i / kGridPointsPerDecade), computed from i (no accumulation).
  const double log_lo = std::log10(kGridMinExcess);
  for (int i = 0;; ++i) {
    const double a = 1.0 + std::pow(10.0, log_lo + static_cast<double>(i) / kGridPointsPerDecade);
    if (a >= top) break;
    grid.push_back(a);
  }
  std::sort(grid.begin(), grid.end());
  grid.erase(std::unique(grid.begin(), grid.end()), grid.end());
  return grid;
}

std::vector<double> lemma32_step_on_grid(std::span<const double> grid, std::span<const double> R,
                                         const Lemma32Step& step) {
  check_grid(grid, R);
  require(step.rho >= 0.0 && step.rho <= 1.0, "rho must lie in [0, 1]; found " + fmt(step.rho));
  require(step.gaussian_cost >= 0.0, "gaussian_cost must be >= 0; found " + fmt(step.gaussian_cost));
  const std::size_t n = grid.size();
  // Lemma 3.2 case i0 in B, eq. (70): R += alpha * cost, exact on any grid.
  std::vector<double> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = R[i] + grid[i] * step.gaussian_cost;
  if (step.rho == 1.0) return v;
  // Suffix minima: R_alpha is non-decreasing (van Erven & Harremoes 2014, Thm 3), so
  // min_{j >= i} v_j bounds R at grid[i] too; it is non-decreasing, tighter, and lets read_bound
  // use two nodes.
  std::vector<double> sm(v);
  for (std::size_t i = n - 1; i-- > 0;) sm[i] = std::min(sm[i], sm[i + 1]);
  std::vector<double> out(n);
  if (step.rho == 0.0) {  // c = +infinity: alpha' = 1, factor 0 (a finite bound is annihilated)
    std::fill(out.begin(), out.end(), std::isfinite(sm[0]) ? 0.0 : kInf);
    return out;
  }
  // Lemma 3.2 case i0 not in B, eqs. (66)-(68): R(alpha) <= alpha rho R(alpha') / alpha'.
  for (std::size_t i = 0; i < n; ++i) {
    const double ap = 1.0 + (grid[i] - 1.0) * step.rho;
    out[i] = grid[i] * step.rho * read_bound(grid, sm, ap) / ap;
  }
  return out;
}

std::vector<double> lemma32_recursion_from_values(std::span<const double> orders, std::span<const double> R0,
                                                  std::span<const Lemma32Step> steps) {
  require(orders.size() == R0.size(), "orders and R0 must have equal size");
  const auto grid = transport_grid(orders);
  // User data sorted by order (duplicates: the smaller bound) for the initial interpolation.
  std::vector<std::size_t> idx(orders.size());
  std::iota(idx.begin(), idx.end(), std::size_t{0});
  std::sort(idx.begin(), idx.end(), [&](auto i, auto j) { return orders[i] < orders[j]; });
  std::vector<double> a, v;
  for (auto i : idx) {
    if (!a.empty() && a.back() == orders[i]) {
      v.back() = std::min(v.back(), R0[i]);
    } else {
      a.push_back(orders[i]);
      v.push_back(R0[i]);
    }
  }
  std::vector<double> R(grid.size());
  for (std::size_t i = 0; i < grid.size(); ++i) R[i] = rdp_upper_interpolation(a, v, grid[i]);
  return at_orders(grid, iterate_steps(grid, std::move(R), steps), orders);
}

std::vector<double> lemma32_recursion_from_curve(std::span<const double> orders,
                                                 const std::function<double(double)>& R0,
                                                 std::span<const Lemma32Step> steps) {
  const auto grid = transport_grid(orders);
  std::vector<double> R(grid.size());
  for (std::size_t i = 0; i < grid.size(); ++i) R[i] = R0(grid[i]);
  return at_orders(grid, iterate_steps(grid, std::move(R), steps), orders);
}

}  // namespace rdpdyn::ye_shokri

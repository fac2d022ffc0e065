#include "accounting/pld/shuffled_batch_max_pair.hpp"

#include <cmath>
#include <numbers>
#include <stdexcept>
#include <vector>

#include "numerics/format_number.hpp"
#include "numerics/outward_rounding.hpp"

namespace rdpdyn::pld {
namespace {

constexpr double kU = outward::kUnitRoundoff;
constexpr double kLogTail = -60.0;  // the outer cells hold less than e^-60 of either law

// log P(M <= m) under shift s, t batches.
double log_cdf_of_max(double m, double s, std::int64_t t) {
  return log_normal_cdf(m - s) + static_cast<double>(t - 1) * log_normal_cdf(m);
}

// The m where f(m) crosses `target`, f increasing (bisection on a bracket widened outward).
template <class F>
double crossing(F f, double target, double lo, double hi) {
  while (f(lo) > target) lo -= 2.0 * (hi - lo);
  while (f(hi) < target) hi += 2.0 * (hi - lo);
  for (int i = 0; i < 200 && hi - lo > 1e-9 * (1.0 + std::fabs(lo)); ++i) {
    const double mid = 0.5 * (lo + hi);
    (f(mid) < target ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

// Phi(x) and its upper tail, each relative to a few ulps (erfc).
double normal_cdf(double x) { return 0.5 * std::erfc(-x / std::numbers::sqrt2); }
double normal_upper(double x) { return 0.5 * std::erfc(x / std::numbers::sqrt2); }

// The relative error of Phi(x) or its tail as computed: erfc within a few ulps (16 u, generously),
// plus the rounding of its argument x / sqrt2, which moves erfc by about x^2 times its relative size.
double tail_relative_error(double x) { return (16.0 + 2.0 * x * x) * kU; }

// Phi(b) - Phi(a), a <= b, from the tail on the cells' side (no cancellation against 1), with an
// absolute error bound: each tail's relative error (tail_relative_error) times the tail.
Approx normal_interval(double a, double b) {
  if (b <= 0.0)
    return {std::max(0.0, normal_cdf(b) - normal_cdf(a)),
            tail_relative_error(b) * normal_cdf(b) + tail_relative_error(a) * normal_cdf(a) + kU * normal_cdf(b)};
  if (a >= 0.0)
    return {std::max(0.0, normal_upper(a) - normal_upper(b)),
            tail_relative_error(a) * normal_upper(a) + tail_relative_error(b) * normal_upper(b) + kU * normal_upper(a)};
  return {0.5 * (std::erf(b / std::numbers::sqrt2) - std::erf(a / std::numbers::sqrt2)),
          tail_relative_error(std::max(-a, b))};
}

double relative(const Approx& x) { return x.value > 0.0 ? x.error / x.value : 0.0; }

// P(A < M <= B) under shift s, t batches, as a sum of two nonnegative terms (no cancellation):
//   F(B) - F(A) = [Phi(B-s) - Phi(A-s)] Phi(B)^(t-1) + Phi(A-s) [Phi(B)^(t-1) - Phi(A)^(t-1)],
//   Phi(B)^(t-1) - Phi(A)^(t-1) = Phi(B)^(t-1) (1 - exp(-(t-1) log1p((Phi(B) - Phi(A)) / Phi(A)))).
// Each factor's relative error is bounded; the mass's error is their sum, times the mass.
Approx cell_mass(double A, double B, double s, std::int64_t t) {
  const double k = static_cast<double>(t - 1);
  const Approx shifted = normal_interval(A - s, B - s);
  const double log_g = k * log_normal_cdf(B);
  const double g = std::exp(log_g);
  // log Phi(B) carries Phi's relative error as an absolute one (log branch), or the tail's relative error
  // times tail / Phi <= 3 |log Phi| (log1p branch, Phi >= Phi(-1)); times k, exponentiated.
  const double g_rel = (tail_relative_error(B) + 4.0 * kU) * (1.0 + 3.0 * std::fabs(log_g));
  const Approx base = normal_interval(A, B);
  const double phi_a = normal_cdf(A);
  const double x = k * std::log1p(base.value / phi_a);
  const double dg = g * -std::expm1(-x);
  const double phi_as = normal_cdf(A - s);
  const double first = shifted.value * g;
  const double second = phi_as * dg;
  const double error =
      shifted.error * g + first * (g_rel + 2.0 * kU) +
      second * (relative(base) + tail_relative_error(A) + tail_relative_error(A - s) + 8.0 * kU + g_rel) +
      4.0 * kU * (first + second);
  return {first + second, error};
}

// P(M <= C) and P(M > C) for the outer cells, each with its error bound.
Approx below(double c, double s, std::int64_t t) {
  const double l = log_cdf_of_max(c, s, t);
  const double rel = tail_relative_error(std::max(std::fabs(c), std::fabs(c - s))) + 4.0 * kU;
  return {std::exp(l), std::exp(l) * rel * (2.0 + 3.0 * std::fabs(l))};
}
Approx above(double c, double s, std::int64_t t) {
  // 1 - Phi(c-s) Phi(c)^(t-1) = upper(c-s) + Phi(c-s) (1 - Phi(c)^(t-1)), two nonnegative terms.
  const double rest = -std::expm1(static_cast<double>(t - 1) * std::log1p(-normal_upper(c)));
  const double v = normal_upper(c - s) + normal_cdf(c - s) * rest;
  return {v, (tail_relative_error(c) + tail_relative_error(c - s) + 8.0 * kU) * v};
}

}  // namespace

double log_normal_cdf(double x) {
  if (x < -1.0) return std::log(0.5 * std::erfc(-x / std::numbers::sqrt2));  // Phi(x) is small
  return std::log1p(-0.5 * std::erfc(x / std::numbers::sqrt2));
}

DiscretePair shuffled_batch_max_pair(std::int64_t batches, double shift_p, double shift_q, std::size_t cells) {
  if (batches < 1 || !std::isfinite(shift_p) || !std::isfinite(shift_q) || !(shift_q >= 0.0) || !(shift_p > shift_q) ||
      cells < 16 || shift_p > 30.0)
    throw std::invalid_argument(
        "shuffled_batch_max_pair: needs t >= 1, 0 <= c < a <= 30 (the cells end where Phi's tails leave the "
        "doubles), cells >= 16");
  const std::int64_t t = batches;
  // Cut points: from where Q's CDF is e^-60 (P's is smaller: its shift is larger) to where P's
  // survival is e^-60 (Q's is smaller), capped where Phi's tail stays representable.
  const double lo =
      crossing([&](double m) { return log_cdf_of_max(m, shift_q, t); }, kLogTail, -40.0 + shift_q, shift_q + 10.0);
  double hi =
      crossing([&](double m) { return -std::log(above(m, shift_p, t).value); }, -kLogTail, shift_p, shift_p + 20.0);
  hi = std::min(hi, 37.0);
  if (!(hi > lo)) hi = lo + 1.0;
  std::vector<double> cuts(cells + 1);
  for (std::size_t k = 0; k <= cells; ++k)
    cuts[k] = lo + (hi - lo) * static_cast<double>(k) / static_cast<double>(cells);
  // The cells' masses under P (shift a) and Q (shift c): (-inf, C_0], (C_k, C_k+1], (C_K, inf).
  auto masses = [&](double s) {
    std::vector<Approx> m{below(cuts.front(), s, t)};
    for (std::size_t k = 0; k + 1 < cuts.size(); ++k) m.push_back(cell_mass(cuts[k], cuts[k + 1], s, t));
    m.push_back(above(cuts.back(), s, t));
    return m;
  };
  const auto p = masses(shift_p);
  const auto q = masses(shift_q);
  std::vector<DiscreteOutcome> outcomes;
  for (std::size_t k = 0; k < p.size(); ++k) outcomes.push_back({p[k].value, q[k].value, p[k].error, q[k].error});
  return DiscretePair(std::move(outcomes), "largest batch sum of a shuffled epoch, t = " + std::to_string(t) +
                                               ", shifts " + format_number(shift_p) + " against " +
                                               format_number(shift_q) + " (binned, " + std::to_string(cells) +
                                               " cells)");
}

}  // namespace rdpdyn::pld

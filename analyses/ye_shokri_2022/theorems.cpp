#include "analyses/ye_shokri_2022/theorems.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "analyses/ye_shokri_2022/detail.hpp"
#include "analyses/ye_shokri_2022/units_and_lsi.hpp"

namespace rdpdyn::ye_shokri {

using detail::require;

namespace {

// (1 - q^{e m}) / (1 - q^e) = sum_{k<m} q^{e k}, stable for q near 1.
double geometric_ratio(double q, std::int64_t e, std::int64_t m) {
  if (m <= 0) return 0.0;
  if (q == 1.0) return static_cast<double>(m);
  if (q == 0.0) return 1.0;
  const double lq = std::log(q) * static_cast<double>(e);
  return std::expm1(lq * static_cast<double>(m)) / std::expm1(lq);
}

// log((1/N) sum_j exp(x_j)) for x_j >= 0; the log1p/expm1 branch keeps small values accurate
// (they are divided by alpha - 1 afterwards, which may be small).
double log_mean_exp(std::span<const double> x) {
  const double m = *std::max_element(x.begin(), x.end());
  const double count = static_cast<double>(x.size());
  if (m < 1.0) {
    double s = 0.0;
    for (double v : x) s += std::expm1(v);
    return std::log1p(s / count);
  }
  double s = 0.0;
  for (double v : x) s += std::exp(v - m);
  return m + std::log(s / count);
}

// log(p e^x + (1 - p) e^y) for x, y >= 0, accurate for small and large arguments.
double log_mix(double p, double x, double y) {
  const double m = std::max(x, y);
  if (m < 1.0) return std::log1p(p * std::expm1(x) + (1.0 - p) * std::expm1(y));
  return m + std::log(p * std::exp(x - m) + (1.0 - p) * std::exp(y - m));
}

}  // namespace

double epoch_start_units(std::int64_t j, double q) {
  // YS22 Thm 3.3, eq. (99): (1 - eta lambda)^{2(j-1)} / sum_{s<j} (1 - eta lambda)^{2s}.
  require(j >= 1, "eps_0^j needs j >= 1; found " + std::to_string(j));
  return std::pow(q, static_cast<double>(j - 1)) / geometric_sum(j, q);
}

double thm33_units(std::int64_t N, std::int64_t K, std::int64_t j0, double q) {
  require(N >= 2 && K >= 1 && j0 >= 0 && j0 < N, "Thm 3.3 needs n/b >= 2, K >= 1, 0 <= j0 < n/b");
  // YS22 Thm 3.3, eq. (91): restart by composition (100) at h = floor(n/2b), contraction
  // Q = (1 - eta lambda)^{2(n/b - h)} over the rest of each epoch, (104)-(108).
  const std::int64_t h = N / 2;
  return epoch_start_units(h, q) * geometric_ratio(q, N - h, K - 1) + epoch_start_units(N - j0, q);
}

double thmD4_units(std::int64_t N, std::int64_t K, std::int64_t j0) {
  require(N >= 1 && K >= 1 && j0 >= 0 && j0 < N, "Thm D.4 needs K >= 1 and 0 <= j0 < n/b");
  // YS22 Thm D.4, eq. (80): (b/n)(K - 1) + 1/(n/b - j0).
  return static_cast<double>(K - 1) / static_cast<double>(N) + 1.0 / static_cast<double>(N - j0);
}

double balle_contraction(double eta, double beta, double lambda) {
  require(eta > 0.0 && beta > 0.0 && lambda >= 0.0 && lambda <= beta && eta <= 2.0 / (beta + lambda),
          "Thm D.5 needs eta in (0, 2/(beta + lambda)] and 0 <= lambda <= beta");
  // YS22 Thm D.5, eq. (111): 1 - 2 eta beta lambda / (beta + lambda).
  return 1.0 - 2.0 * eta * beta * lambda / (beta + lambda);
}

double d5_epoch_units(std::int64_t N, std::int64_t j0, double p) {
  require(N >= 2 && j0 >= 0 && j0 < N && p >= 0.0 && p <= 1.0, "Thm D.5 needs n/b >= 2, 0 <= j0 < n/b, 0 <= p <= 1");
  // YS22 Thm D.5, eq. (111), over alpha w = alpha 2 (L/b)^2 / (2 eta sigma^2) with L -> eta S_g / 2.
  if (j0 == N - 1) return 1.0;
  const double m = static_cast<double>(N - j0);
  return std::pow(p, m / 2.0) / (m - 1.0);
}

double d5_first_batch_units(std::int64_t N, std::int64_t K, double p) {
  require(K >= 1, "Thm D.5 needs K >= 1 epochs");
  // YS22 App. D.6 (after (111)): K epochs composed, the record in the first batch of each.
  return static_cast<double>(K) * d5_epoch_units(N, 0, p);
}

double d5_last_batch_units(std::int64_t N, std::int64_t K, double p) {
  require(K >= 1, "Thm D.5 needs K >= 1 epochs");
  // YS22 App. D.6 (after (111)): K - 1 windows of n/b steps that start at the record's batch (the
  // first-batch value each), then its last use alone.
  return static_cast<double>(K - 1) * d5_epoch_units(N, 0, p) + d5_epoch_units(N, N - 1, p);
}

double mixture_over_batches(double alpha, std::span<const double> units, double w) {
  require(alpha > 1.0 && !units.empty(), "mixture needs alpha > 1 and at least one batch");
  // YS22 Lemma 4.1, eq. (133), with p(i0 in B^{j0}) = b/n (139)-(140).
  const double t = alpha - 1.0;
  std::vector<double> x(units.size());
  for (std::size_t i = 0; i < units.size(); ++i) x[i] = t * alpha * w * units[i];
  return log_mean_exp(x) / t;
}

double thm42(double alpha, std::int64_t N, std::int64_t K, double q, double w) {
  require(alpha > 1.0 && N >= 2 && K >= 1, "Thm 4.2 needs alpha > 1, n/b >= 2, K >= 1");
  // YS22 Thm 4.2, eq. (135): the first term of (91), plus Lemma 4.1 over j0 of eps_0^{n/b - j0} (136).
  const std::int64_t h = N / 2;
  const double first = alpha * w * epoch_start_units(h, q) * geometric_ratio(q, N - h, K - 1);
  std::vector<double> units(static_cast<std::size_t>(N));
  for (std::int64_t j0 = 0; j0 < N; ++j0) units[static_cast<std::size_t>(j0)] = epoch_start_units(N - j0, q);
  return first + mixture_over_batches(alpha, units, w);
}

double thm43(double alpha, std::int64_t steps, double sampling_rate, double q, double w) {
  require(alpha > 1.0 && sampling_rate > 0.0 && sampling_rate <= 1.0 && q >= 0.0 && q <= 1.0,
          "Thm 4.3 needs alpha > 1, b/n in (0, 1], q in [0, 1]");
  // YS22 Thm 4.3, eq. (149) in log space, s = log S: s <- log(p e^{(alpha-1) alpha w + s} + (1-p) e^{q s}).
  const double jump = (alpha - 1.0) * alpha * w;
  // q = 1: every step adds log(p e^jump + 1 - p), exactly.
  if (q == 1.0) return static_cast<double>(steps) * std::log1p(sampling_rate * std::expm1(jump)) / (alpha - 1.0);
  // f(s) is convex and increasing, s_t rises to its fixed point s* (if p e^jump < 1), where
  // f'(s*) = p e^jump + (1 - p e^jump) q. Once the increments stall, s* <= s_t + (s_{t+1} - s_t) /
  // (1 - f'(s*)) bounds every later s_t: return that (plus rounding slack) instead of iterating on.
  // If p e^jump > 1 there is no fixed point: once the first term dominates, each step adds
  // log(p e^jump) + log1p(((1-p)/p) e^{(q-1)s - jump}), which only shrinks as s grows, so the
  // current increment times the steps left bounds the rest.
  const double pe = sampling_rate * std::exp(jump);
  const double gap = pe < 1.0 ? (1.0 - pe) * (1.0 - q) : 0.0;
  const double log_odds = std::log((1.0 - sampling_rate) / sampling_rate);  // -inf at p = 1
  double s = 0.0;                                                           // (148): S_0^0 = 1
  for (std::int64_t t = 0; t < steps; ++t) {
    if (pe > 1.0 && log_odds + (q - 1.0) * s - jump < -40.0) {
      const double inc = std::log(sampling_rate) + jump + std::log1p(std::exp(log_odds + (q - 1.0) * s - jump));
      return (s + static_cast<double>(steps - t) * inc) / (alpha - 1.0);
    }
    const double next = log_mix(sampling_rate, jump + s, q * s);
    if (gap > 0.0 && next - s <= 1e-13 * next) {
      const double slack = std::max(next - s, 0.0) + 8.0 * std::numeric_limits<double>::epsilon() * next;
      return (next + slack / gap) / (alpha - 1.0);
    }
    s = next;
  }
  return s / (alpha - 1.0);  // (147)
}

double d6_units(std::int64_t K, double eta_lambda, double gamma) {
  require(K >= 0 && gamma > 0.0 && gamma <= 1.0 && eta_lambda >= 0.0 && eta_lambda <= 1.0,
          "Thm D.6 needs K >= 0, gamma in (0, 1], eta lambda in [0, 1]");
  // YS22 Thm D.6, eq. (112)/(126) [gamma = 1/2]: per step cost w/gamma (119), factor
  // (q S_k + gamma)/S_{k+1} <= q + gamma (1 - q) <= 1 - (1-gamma) eta lambda ((123)-(125)).
  const double one_minus_r = (1.0 - gamma) * eta_lambda;
  if (one_minus_r == 0.0) return static_cast<double>(K) / gamma;
  const double r = 1.0 - one_minus_r;
  return r * -std::expm1(static_cast<double>(K) * std::log1p(-one_minus_r)) / one_minus_r / gamma;
}

}  // namespace rdpdyn::ye_shokri

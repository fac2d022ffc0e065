#include "accounting/sampled_gaussian.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "numerics/numerical_failure.hpp"
#include "numerics/outward_rounding.hpp"

namespace rdpdyn {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kLn2 = 0.69314718055994530942;
constexpr double kLogSqrtPi = 0.57236494292470008707;  // log(sqrt(pi))
constexpr double kSqrt2 = 1.41421356237309504880;

std::string text(double x) {
  std::ostringstream os;
  os.precision(17);
  os << x;
  return os.str();
}

// Streaming log-sum-exp of nonnegative terms given by their logs.
struct LogSum {
  double m = -kInf, s = 0.0;
  void add(double t) {
    if (t == -kInf) return;
    if (t <= m) {
      s += std::exp(t - m);
    } else {
      s = s * std::exp(m - t) + 1.0;
      m = t;
    }
  }
  double log() const { return s > 0.0 ? m + std::log(s) : -kInf; }
};

// log erfc(x). erfc keeps full relative accuracy until it leaves the normal range (x ~ 26);
// beyond, the asymptotic series erfc(x) = exp(-x^2)/(x sqrt(pi)) sum (-1)^m (2m-1)!!/(2x^2)^m
// (Abramowitz & Stegun 7.1.23) with 9 terms is exact to double precision for x >= 25.
double log_erfc(double x) {
  if (x < 25.0) return std::log(std::erfc(x));
  const double r = 1.0 / (2.0 * x * x);
  double term = 1.0, sum = 1.0;
  for (int m = 1; m <= 8; ++m) {
    term *= -(2.0 * m - 1.0) * r;
    sum += term;
  }
  return -x * x - std::log(x) - kLogSqrtPi + std::log(sum);
}

// log Phi(y), Phi the standard normal CDF: Phi(y) = erfc(-y/sqrt 2)/2; for y >= 0 via log1p so that
// Phi close to 1 keeps its (tiny) distance from 1.
double log_Phi(double y) {
  if (y < 0.0) return log_erfc(-y / kSqrt2) - kLn2;
  return std::log1p(-0.5 * std::erfc(y / kSqrt2));
}

// log |expm1(L)|, for the brackets E Phi - 1 = expm1(L) (sign given separately).
double log_abs_expm1(double L) {
  if (L > 30.0) return L + std::log1p(-std::exp(-L));
  if (L > 0.0) return std::log(std::expm1(L));
  return std::log(-std::expm1(L));
}

// log A from log(A - 1): A = 1 + exp(log_excess).
double log1p_exp(double log_excess) {
  if (log_excess > 0.0) return log_excess + std::log1p(std::exp(-log_excess));
  return std::log1p(std::exp(log_excess));
}

// Integer alpha: MTZ19 Sec. 3.3, A = sum_{k=0}^{alpha} C(alpha,k) (1-q)^{alpha-k} q^k
// exp((k^2-k)/(2 sigma^2)). Since sum_k C(alpha,k)(1-q)^{alpha-k} q^k = 1 (binomial theorem),
// A - 1 = sum_{k>=2} C(alpha,k)(1-q)^{alpha-k} q^k expm1((k^2-k)/(2 sigma^2)): all terms positive
// (k = 0, 1 vanish), so log(A - 1) is a log-sum-exp with full relative accuracy even when A - 1 is
// far below machine epsilon (tiny q).
double log_moment_binomial(double q, double sigma, double alpha) {
  const auto a = static_cast<std::int64_t>(alpha);
  const double lq = std::log(q), l1q = std::log1p(-q), inv2s2 = 1.0 / (2.0 * sigma * sigma);
  LogSum excess;
  double log_binom = std::log(alpha);  // log C(alpha, 1), then updated to C(alpha, k)
  for (std::int64_t k = 2; k <= a; ++k) {
    log_binom += std::log(static_cast<double>(a - k + 1)) - std::log(static_cast<double>(k));
    const double kd = static_cast<double>(k);
    excess.add(log_binom + kd * lq + (alpha - kd) * l1q + log_abs_expm1((kd * kd - kd) * inv2s2));
  }
  return log1p_exp(excess.log());
}

// Euler transform of an alternating tail by repeated averaging of consecutive partial sums
// (linear in the partial sums, so it accelerates every smooth alternating component of the terms).
double euler_average(std::vector<double> v) {
  for (std::size_t level = 1; level < v.size(); ++level)
    for (std::size_t i = 0; i + level < v.size(); ++i) v[i] = 0.5 * (v[i] + v[i + 1]);
  return v.front();
}

// Fractional alpha: MTZ19 Sec. 3.3. Split E_{N(0,sigma^2)} at z0, where q r(x) = 1 - q
// (r = exp((2x-1)/(2 sigma^2)), z0 = sigma^2 log(1/q - 1) + 1/2), and expand ((1-q) + q r)^alpha
// binomially in the smaller part on each side:
//   x <= z0:  sum_k C(alpha,k) (1-q)^{alpha-k} q^k     E_k Phi((z0 - k)/sigma),
//   x >  z0:  sum_k C(alpha,k) (1-q)^k q^{alpha-k}     E_j Phi((j - z0)/sigma),  j = alpha - k,
// with E_j = exp((j^2 - j)/(2 sigma^2)) (since N(0,s^2)(x) r(x)^j = E_j N(j, s^2)(x)).
// For accuracy at small A - 1, the series whose weights sum to 1 (the first when q <= 1/2, by
// (1-q+q)^alpha = 1 with ratio q/(1-q) <= 1; the second when q > 1/2) is summed as
// sum_k w_k (E Phi - 1) (brackets via expm1), so that the sum is A - 1 directly.
// Convergence: beyond k > alpha the binomial coefficients alternate in sign and every component of
// the terms (w_k E Phi of both series, and -w_k) is an alternating sequence with smoothly decaying
// magnitude (like k^{-alpha-2} for the first, geometrically for the last). We stop when three
// consecutive terms are below kRelTol |A - 1| (the alternating-series bound), or, once past the
// transitions at k ~ z0 and k ~ alpha - z0, when the Euler-transformed tail (kLevels averagings)
// has settled to kSettleTol: that keeps orders close to 1 (slow k^{-3} tails) to O(100) terms.
double log_moment_two_series(double q, double sigma, double alpha) {
  constexpr double kRelTol = 1e-16;
  constexpr double kSettleTol = 1e-15;  // a few ulps of the relative partial sums (~1)
  constexpr std::size_t kLevels = 12;
  constexpr std::int64_t kMaxTerms = 50'000'000;
  const double lq = std::log(q), l1q = std::log1p(-q), s2 = sigma * sigma;
  const double inv2s2 = 1.0 / (2.0 * s2);
  const double z0 = s2 * (l1q - lq) + 0.5;
  const bool stab_first = q <= 0.5, stab_second = !stab_first;
  // Start of the smooth alternating regime for the Euler transform.
  const double k_euler = std::max({alpha + 2.0, z0 + 3.0 * sigma + 2.0, alpha - z0 + 3.0 * sigma + 2.0, 40.0});
  LogSum pos, neg;
  double log_c = 0.0;  // log |C(alpha, k)|
  int sign_c = 1;
  int quiet = 0;
  // Euler phase: partial sums relative to exp(ref_log), the estimate of A - 1 when it began.
  bool euler = false;
  double ref_log = 0.0, partial = 0.0, previous = 0.0;
  std::vector<double> window;
  int settled = 0;
  // log |A - 1| so far (partial sums may still be negative early on: then the larger part).
  auto current_log_excess = [&]() {
    const double P = pos.log(), N = neg.log();
    return P > N ? P + std::log1p(-std::exp(N - P)) : std::max(P, N);
  };
  for (std::int64_t k = 0; k < kMaxTerms; ++k) {
    const double kd = static_cast<double>(k), j = alpha - kd;
    // First series (x <= z0): log-magnitude t1 and sign g1.
    const double lw1 = log_c + kd * lq + (alpha - kd) * l1q;
    const double L1 = (kd * kd - kd) * inv2s2 + log_Phi((z0 - kd) / sigma);
    double t1;
    int g1 = sign_c;
    if (stab_first) {
      t1 = L1 == 0.0 ? -kInf : lw1 + log_abs_expm1(L1);
      if (L1 < 0.0) g1 = -sign_c;
    } else {
      t1 = lw1 + L1;
    }
    // Second series (x > z0).
    const double lw2 = log_c + kd * l1q + j * lq;
    const double L2 = (j * j - j) * inv2s2 + log_Phi((j - z0) / sigma);
    double t2;
    int g2 = sign_c;
    if (stab_second) {
      t2 = L2 == 0.0 ? -kInf : lw2 + log_abs_expm1(L2);
      if (L2 < 0.0) g2 = -sign_c;
    } else {
      t2 = lw2 + L2;
    }
    if (!euler) {
      (g1 > 0 ? pos : neg).add(t1);
      (g2 > 0 ? pos : neg).add(t2);
    } else {
      partial += g1 * std::exp(t1 - ref_log) + g2 * std::exp(t2 - ref_log);
      window.push_back(partial);
      if (window.size() > kLevels + 1) window.erase(window.begin());
    }
    // Next binomial coefficient C(alpha, k+1) = C(alpha, k) (alpha - k)/(k + 1).
    if (j == 0.0) break;  // integer alpha: the expansions are finite
    log_c += std::log(std::fabs(j)) - std::log(kd + 1.0);
    if (j < 0.0) sign_c = -sign_c;
    if (kd <= alpha + 1.0) continue;
    // Plain stop: three consecutive terms below the tolerance.
    const double lim = (euler ? ref_log + std::log(std::fabs(partial)) : current_log_excess()) + std::log(kRelTol);
    quiet = (t1 < lim && t2 < lim) ? quiet + 1 : 0;
    if (quiet >= 3) break;
    if (!euler && kd >= k_euler && pos.log() > neg.log()) {
      euler = true;
      ref_log = current_log_excess();
      partial = 1.0;
      window.assign(1, partial);
    } else if (euler && window.size() == kLevels + 1) {
      const double estimate = euler_average(window);
      settled = std::fabs(estimate - previous) <= kSettleTol * std::fabs(estimate) ? settled + 1 : 0;
      previous = estimate;
      if (settled >= 3) {
        partial = estimate;
        break;
      }
    }
    if (k + 1 == kMaxTerms)
      throw NumericalFailure("sampled_gaussian: two-series expansion did not converge for q = " + text(q) +
                             ", sigma = " + text(sigma) + ", alpha = " + text(alpha));
  }
  double log_excess;
  if (euler) {
    if (!(partial > 0.0))
      throw NumericalFailure("sampled_gaussian: cancellation left A_alpha - 1 <= 0 for q = " + text(q) +
                             ", sigma = " + text(sigma) + ", alpha = " + text(alpha));
    log_excess = ref_log + std::log(partial);
  } else {
    const double P = pos.log(), N = neg.log();
    if (!(P > N))
      throw NumericalFailure("sampled_gaussian: cancellation left A_alpha - 1 <= 0 for q = " + text(q) +
                             ", sigma = " + text(sigma) + ", alpha = " + text(alpha));
    log_excess = P + std::log1p(-std::exp(N - P));
  }
  return log1p_exp(log_excess);
}

bool is_integer(double alpha) { return alpha == std::floor(alpha) && alpha < 9.0e15; }

}  // namespace

double sampled_gaussian_log_moment(double q, double sigma, double alpha, SgmExpansion expansion) {
  if (!(q >= 0.0 && q <= 1.0))
    throw std::invalid_argument("sampled Gaussian: sampling probability q = " + text(q) + " must lie in [0, 1]");
  if (!(sigma > 0.0) || !std::isfinite(sigma))
    throw std::invalid_argument("sampled Gaussian: noise sigma = " + text(sigma) + " must be positive and finite");
  if (!(alpha > 1.0) || !std::isfinite(alpha))
    throw std::invalid_argument("sampled Gaussian: order alpha = " + text(alpha) + " must be finite and > 1");
  if (expansion == SgmExpansion::Binomial && !is_integer(alpha))
    throw std::invalid_argument(
        "sampled Gaussian: the binomial expansion needs an integer order, "
        "alpha = " +
        text(alpha));
  if (q == 0.0) return 0.0;
  // q = 1: the Gaussian mechanism, D_alpha(N(1, s^2) || N(0, s^2)) = alpha / (2 s^2).
  if (q == 1.0) return alpha * (alpha - 1.0) / (2.0 * sigma * sigma);
  // Both expansions sum about alpha terms: an order of 4.6e18 in a configuration never finished
  // (found by tests/cli/mutate_configs.py). Such orders are of no use for (epsilon, delta).
  if (alpha > kMaxSeriesOrder)
    throw NumericalFailure("sampled Gaussian: order alpha = " + text(alpha) + " above " + text(kMaxSeriesOrder) +
                           ": its expansions need about alpha terms");
  const bool binomial =
      expansion == SgmExpansion::Binomial || (expansion == SgmExpansion::Automatic && is_integer(alpha));
  return binomial ? log_moment_binomial(q, sigma, alpha) : log_moment_two_series(q, sigma, alpha);
}

double sampled_gaussian_rdp(double q, double sigma, double alpha, SgmExpansion expansion) {
  return sampled_gaussian_log_moment(q, sigma, alpha, expansion) / (alpha - 1.0);
}

double sampled_gaussian_relative_error_bound(double alpha) {
  return 4e-13 / (alpha - 1.0) + 64.0 * outward::kUnitRoundoff;
}

double sampled_gaussian_rdp_upper(double q, double sigma, double alpha) {
  const double value = sampled_gaussian_rdp(q, sigma, alpha);
  // q = 1 is the Gaussian closed form alpha / (2 sigma^2) (five operations): a few ulps suffice.
  if (q == 1.0) return outward::round_up(value, 8.0 * outward::kUnitRoundoff);
  return outward::round_up(value, sampled_gaussian_relative_error_bound(alpha));
}

}  // namespace rdpdyn

// The pieces of the sampled-batch last-iterate bound (analyses/noisysgd_window.hpp) and of the
// replace-one Poisson composition: the dominating law of a discounted Bernoulli sum, the pair of the
// larger profile (DRS's C_q), the revealed mixture, the binned batch sizes.
#include <catch2/catch.hpp>

#include <cmath>
#include <map>
#include <memory>

#include "accounting/discounted_bernoulli_sum.hpp"
#include "accounting/pld/gaussian_mixture_pair.hpp"
#include "accounting/pld/poisson_replace_pair.hpp"
#include "accounting/pld/revealed_mixture_pair.hpp"
#include "accounting/pld/worse_of_pairs.hpp"

using namespace rdpdyn;

namespace {
/// P(Y >= y) of the dominating law.
double law_tail(const DominatingDiscreteLaw& law, double y) {
  double t = law.beyond;
  for (std::size_t i = 0; i < law.weight.size(); ++i)
    if (static_cast<double>(i) * law.spacing >= y) t += law.weight[i];
  return t;
}
}  // namespace

TEST_CASE("The discounted Bernoulli sum's law dominates the exact one (enumeration of 2^12 outcomes)",
          "[accounting][pld]") {
  const double q = 0.3, c = 0.8;
  const int terms = 12;
  std::map<double, double> exact;  // value -> probability
  for (int mask = 0; mask < (1 << terms); ++mask) {
    double y = 0.0, p = 1.0;
    for (int j = 0; j < terms; ++j) {
      const bool in = (mask >> j) & 1;
      y += in ? std::pow(c, j) : 0.0;
      p *= in ? q : 1.0 - q;
    }
    exact[y] += p;
  }
  const DominatingDiscreteLaw law = discounted_bernoulli_sum_upper(q, c, terms, 2048);
  double total = law.beyond;
  for (double w : law.weight) total += w;
  CHECK(total == Approx(1.0).margin(1e-14));
  // tail domination at every atom of the exact law, and a mean within the rounding's excess
  double exact_mean = 0.0, law_mean = 0.0;
  for (const auto& [y, p] : exact) {
    double tail = 0.0;
    for (auto it = exact.lower_bound(y); it != exact.end(); ++it) tail += it->second;
    CHECK(law_tail(law, y - 1e-12) >= tail - 1e-15);
    exact_mean += y * p;
  }
  for (std::size_t i = 0; i < law.weight.size(); ++i) law_mean += static_cast<double>(i) * law.spacing * law.weight[i];
  CHECK(law_mean >= exact_mean);
  CHECK(law_mean <= exact_mean + q * terms * law.spacing + 1e-12);  // at most one spacing per included term
  CHECK(exact_mean == Approx(q * (1 - std::pow(c, terms)) / (1 - c)).epsilon(1e-12));
}

TEST_CASE("The discounted Bernoulli sum keeps its mean when the far terms are bounded as a block",
          "[accounting][pld]") {
  const double q = 0.01, c = 0.995;
  const std::int64_t terms = 20000;
  const DominatingDiscreteLaw law = discounted_bernoulli_sum_upper(q, c, terms, 8192);
  CHECK(law.exact_terms < terms);
  double mean = 0.0, total = law.beyond;
  for (std::size_t i = 0; i < law.weight.size(); ++i) {
    mean += static_cast<double>(i) * law.spacing * law.weight[i];
    total += law.weight[i];
  }
  const double exact_mean = q * (1 - std::pow(c, static_cast<double>(terms))) / (1 - c);  // = 2.0 to 1e-43
  CHECK(total == Approx(1.0).margin(1e-13));
  CHECK(mean >= exact_mean);
  CHECK(mean <= exact_mean + (q * static_cast<double>(law.exact_terms) + 1.0) * law.spacing);
  CHECK_THROWS_AS(discounted_bernoulli_sum_upper(q, 1.0, terms), std::invalid_argument);
}

TEST_CASE("C_q(G(mu)) is the worse of the add and remove pairs, and symmetric", "[accounting][pld]") {
  using D = pld::GaussianMixturePair::Direction;
  const double q = 0.01, mu = 1.0 / 1.1;
  const auto pair = pld::fixed_size_subsampled_gaussian_pair(q, mu);
  const auto remove = pld::subsampled_gaussian_pair(q, mu, D::Forward);
  const auto add = pld::subsampled_gaussian_pair(q, mu, D::Reverse);
  // The floor, independent of this code: one step of b of n drawn afresh under replace-one, the
  // others at -C and the record at +C against -C (and the same datasets swapped), i.e. 0.99 N(0) +
  // 0.01 N(mu) against N(0) and the reverse; delta(eps) of the worse of the two, mpmath at 40 digits
  // (tests/soundness/floors/values.py, "cq_profile_q0.01_mu1/1.1"). The pair is claimed tight (DRS
  // 2022 Thm 4.2: C_q(G(mu)) is attained by these datasets at one step): equal to 1e-9.
  const double eps_at[] = {-2.0, -0.5, -0.01, 0.0, 0.01, 0.1, 0.5, 1.0, 2.0, 4.0};
  const double exact[] = {0.8646647167633895,     0.39346935696235963,   0.011483872058226095,   0.003505637162732454,
                          0.0015491198070164175,  3.114751737971009e-05, 2.7492415688464732e-08, 1.3097453066797593e-10,
                          1.6682701096889674e-14, 1.101823179481584e-22};
  for (std::size_t i = 0; i < 10; ++i) {
    const double eps = eps_at[i];
    INFO("epsilon = " << eps << ", exact " << exact[i]);
    const pld::Approx v = pair->hockey_stick(eps);
    CHECK(v.upper() >= exact[i] * (1.0 - 1e-15));
    CHECK(v.lower() <= exact[i] * (1.0 + 1e-15));
    CHECK(v.value == Approx(exact[i]).epsilon(1e-9).margin(1e-15));
    // Consistency check (two routes of this code, not a floor): the larger of the remove and add pairs.
    const double larger = std::max(remove.hockey_stick(eps).value, add.hockey_stick(eps).value);
    CHECK(v.value == Approx(larger).epsilon(1e-9).margin(1e-300));
    // a symmetric trade-off curve: delta(-eps) = 1 - e^{-eps} + e^{-eps} delta(eps)
    if (eps > 0.0) {
      const pld::Approx lo = pair->hockey_stick(-eps), hi = pair->hockey_stick(eps);
      CHECK(lo.value == Approx(-std::expm1(-eps) + std::exp(-eps) * hi.value).epsilon(1e-9).margin(1e-15));
    }
  }
  // q = 1: the Gaussian itself, N(mu) against N(0) at eps = 0.3: 0.25750275994537986 (mpmath, same
  // script); the consistency with gaussian_pair kept as such.
  CHECK(pld::fixed_size_subsampled_gaussian_pair(1.0, mu)->hockey_stick(0.3).value ==
        Approx(0.25750275994537986).epsilon(1e-12));
  CHECK(pld::fixed_size_subsampled_gaussian_pair(1.0, mu)->hockey_stick(0.3).value ==
        Approx(pld::gaussian_pair(mu).hockey_stick(0.3).value).epsilon(1e-15));
}

TEST_CASE("A revealed mixture's profile is the weighted sum of its components'", "[accounting][pld]") {
  auto g1 = std::make_shared<pld::GaussianMixturePair>(pld::gaussian_pair(0.5));
  auto g2 = std::make_shared<pld::GaussianMixturePair>(pld::gaussian_pair(2.0));
  const pld::RevealedMixturePair mix({{0.5, g1}, {0.3, g2}, {0.19, nullptr}}, 0.01, "test");
  // The floor, independent of this code: the concrete pair that reveals which of N(0.5) vs N(0)
  // (weight 0.5), N(2) vs N(0) (0.3), N(0) vs N(0) (0.19) it draws, and with weight 0.01 an outcome
  // only P has; its delta(eps) in mpmath at 40 digits (tests/soundness/floors/values.py,
  // "revealed_mixture_profile"). The pair is that pair: equal to 1e-12.
  const double eps_at[] = {-1.0, 0.0, 0.5, 2.0, 6.0};
  const double exact[] = {0.6933258738058766, 0.3135131733240495, 0.2159758472040148, 0.10957411921736629,
                          0.0129919123201081};
  for (std::size_t i = 0; i < 5; ++i) {
    const double eps = eps_at[i];
    INFO("epsilon = " << eps << ", exact " << exact[i]);
    CHECK(mix.hockey_stick(eps).upper() >= exact[i] * (1.0 - 1e-15));
    CHECK(mix.hockey_stick(eps).value == Approx(exact[i]).epsilon(1e-12));
    CHECK(mix.hockey_stick(eps).error >= 0.0);
    // Consistency check (this code's own components, not a floor): the weighted sum.
    const double none = eps < 0 ? -std::expm1(eps) : 0.0;
    const double expect = 0.5 * g1->hockey_stick(eps).value + 0.3 * g2->hockey_stick(eps).value + 0.19 * none + 0.01;
    CHECK(mix.hockey_stick(eps).value == Approx(expect).epsilon(1e-14));
  }
  CHECK(mix.hockey_stick(50.0).value >= 0.01);  // the apart atom never goes away
  CHECK_THROWS_AS(pld::RevealedMixturePair({{0.5, g1}}, 0.0, "short"), std::invalid_argument);
}

TEST_CASE("Binned batch sizes dominate Binomial(n, q) given [k_lo, k_hi]", "[accounting][pld]") {
  const double n = 60000, q = 0.01;
  const double k_lo = 450, k_hi = 760;
  const auto bins = pld::binomial_size_bins(n, q, k_lo, k_hi);
  double total = 0.0;
  for (const auto& b : bins) total += b.first;
  CHECK(total == Approx(1.0).margin(1e-13));
  CHECK(bins.size() < 60);
  CHECK(bins.back().second == Approx(k_hi / n).epsilon(1e-14));
  // exact conditional tails by long-double lgamma
  auto log_pmf = [&](long double k) {
    return std::lgamma((long double)n + 1) - std::lgamma(k + 1) - std::lgamma((long double)n - k + 1) +
           k * std::log((long double)q) + ((long double)n - k) * std::log1p(-(long double)q);
  };
  long double norm = 0;
  for (double k = k_lo; k <= k_hi; ++k) norm += std::exp(log_pmf(k));
  for (double k = k_lo; k <= k_hi; k += 7) {
    long double tail = 0;
    for (double j = k; j <= k_hi; ++j) tail += std::exp(log_pmf(j));
    double binned = 0.0;
    for (const auto& b : bins)
      if (b.second * n >= k - 1e-9) binned += b.first;
    INFO("k = " << k);
    CHECK(binned >= static_cast<double>(tail / norm) - 1e-15);
  }
  // the binned mean rate exceeds q by little: bins of a third of a standard deviation
  double mean_rate = 0.0;
  for (const auto& b : bins) mean_rate += b.first * b.second;
  CHECK(mean_rate >= q);
  CHECK(mean_rate <= q * 1.01);
}

TEST_CASE("Binned batch sizes dominate for a large dataset too (n = 1e8: lgamma's round-off would not)",
          "[accounting][pld]") {
  // ln n! ~ 1.7e9 here, so a pmf from double lgamma carries ~1e-7 relative error; the bins come from
  // the ratio recurrence. Exact tails in long double (relative error ~1e-10, far below the check).
  const double n = 1e8, q = 0.01;
  const double mean = n * q, sd = std::sqrt(n * q * (1 - q));
  const double k_lo = std::floor(mean - 8 * sd), k_hi = std::ceil(mean + 8 * sd);
  const auto bins = pld::binomial_size_bins(n, q, k_lo, k_hi);
  std::vector<long double> pmf;
  for (double k = k_lo; k <= k_hi; ++k)
    pmf.push_back(std::exp(std::lgamma((long double)n + 1) - std::lgamma((long double)k + 1) -
                           std::lgamma((long double)n - k + 1) + k * std::log((long double)q) +
                           ((long double)n - k) * std::log1p(-(long double)q)));
  std::vector<long double> tail(pmf.size() + 1, 0.0L);
  for (std::size_t i = pmf.size(); i-- > 0;) tail[i] = tail[i + 1] + pmf[i];
  for (std::size_t i = 0; i < pmf.size(); i += 997) {
    const double k = k_lo + static_cast<double>(i);
    double binned = 0.0;
    for (const auto& b : bins)
      if (b.second * n >= k - 1e-6) binned += b.first;
    INFO("k = " << k);
    CHECK(binned >= static_cast<double>(tail[i] / tail[0]) * (1 - 1e-9));
  }
  CHECK_THROWS_AS(pld::binomial_size_bins(1e15, 0.5, 0, 1e15), std::length_error);
}

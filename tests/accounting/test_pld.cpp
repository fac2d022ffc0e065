// The privacy-loss-distribution accountant (accounting/pld/): the FFT round-off bound, the profiles
// of the dominating pairs, and certified epsilons never below the exact values (40-digit mpmath and
// certified fine-grid brackets, tests/accounting/pld_reference_values.hpp), within 0.5% of
// dp_accounting's pessimistic PLD (tests/accounting/pld_peer_values.hpp).
#include <catch2/catch.hpp>

#include <cmath>
#include <memory>
#include <random>
#include <vector>

#include "accounting/gaussian_dp.hpp"
#include "accounting/pld/fft_convolution.hpp"
#include "accounting/pld/gaussian_mixture_pair.hpp"
#include "accounting/pld/pld_accountant.hpp"
#include "accounting/pld/shared_component_pair.hpp"
#include "analyses/steinke_2025.hpp"
#include "pld_peer_values.hpp"
#include "pld_reference_values.hpp"

using namespace rdpdyn;
using Dir = pld::GaussianMixturePair::Direction;

namespace {

std::vector<double> random_distribution(std::mt19937_64& rng, std::size_t n, bool concentrated) {
  std::vector<double> v(n);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  double s = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    const double x = (static_cast<double>(i) - 0.3 * static_cast<double>(n)) / (0.02 * static_cast<double>(n) + 1.0);
    v[i] = concentrated ? std::exp(-0.5 * x * x) * u(rng) + 1e-12 * u(rng) : u(rng);
    s += v[i];
  }
  for (double& x : v) x /= s;
  return v;
}

// Accuracy 1e-3: every value is certified at any accuracy; this one keeps the grids (and the test) small
// while the results stay within the 0.5% asked of them.
pld::PldAccountant accountant_of(std::shared_ptr<const pld::DominatingPair> pair, long steps, double accuracy = 1e-3) {
  pld::AccountantOptions o;
  o.accuracy = accuracy;
  return pld::PldAccountant({{{std::move(pair), steps}}}, o);
}

std::shared_ptr<const pld::DominatingPair> subsampled(double q, double z, bool remove) {
  return std::make_shared<pld::GaussianMixturePair>(pld::subsampled_gaussian_pair(q, 1.0 / z, remove ? Dir::Forward : Dir::Reverse));
}

}  // namespace

TEST_CASE("FFT convolution: the round-off bound holds against exact long double convolution", "[pld]") {
  std::mt19937_64 rng(20261127);
  for (std::size_t n : {100u, 700u, 2500u}) {
    for (bool concentrated : {true, false}) {
      const auto a = random_distribution(rng, n, concentrated);
      const auto b = random_distribution(rng, n + 37, !concentrated);
      std::vector<long double> exact(a.size() + b.size() - 1, 0.0L);
      for (std::size_t i = 0; i < a.size(); ++i)
        for (std::size_t j = 0; j < b.size(); ++j) exact[i + j] += static_cast<long double>(a[i]) * b[j];
      for (auto precision : {pld::Precision::Double, pld::Precision::Extended}) {
        const pld::Convolution c = pld::convolve(a, b, precision);
        long double err = 0.0L;
        for (std::size_t i = 0; i < exact.size(); ++i) err += std::fabs(static_cast<long double>(c.values[i]) - exact[i]);
        INFO("n = " << n << ", concentrated = " << concentrated << ", measured " << static_cast<double>(err) << ", bound " << c.l1_error);
        CHECK(static_cast<double>(err) <= c.l1_error);
        // the bound is an upper bound, not a wild one: within 10^5 of what is measured
        CHECK(c.l1_error <= 1e5 * std::max(static_cast<double>(err), 1e-19));
      }
    }
  }
}

TEST_CASE("Pairs: the profile brackets the exact delta at the exact epsilon (40-digit mpmath)", "[pld]") {
  for (const auto& r : pld_reference::kExactSingleStep) {
    if (r.epsilon == 0.0) continue;  // delta(0) is below the target already: delta(eps) != target there
    const auto pair = subsampled(r.q, r.z, r.remove);
    const pld::Approx d = pair->hockey_stick(r.epsilon);
    INFO("q = " << r.q << ", z = " << r.z << ", remove = " << r.remove << ", delta = " << r.delta);
    CHECK(d.upper() >= r.delta * (1.0 - 1e-15));
    CHECK(d.lower() <= r.delta * (1.0 + 1e-15));
    CHECK(d.upper() - d.lower() <= 1e-9 * r.delta + 1e-12);
  }
  // the Gaussian pair at any epsilon equals the mu-GDP profile (Dong, Roth & Su 2022 Cor 2.13)
  for (double mu : {0.1, 1.0, 3.0})
    for (double eps : {0.0, 0.5, 2.0, 8.0}) {
      const pld::Approx d = pld::gaussian_pair(mu).hockey_stick(eps);
      CHECK(d.value == Approx(gdp_delta(mu, eps)).epsilon(1e-10).margin(1e-200));  // both carry ~u a^2 error (a = eps/mu)
    }
}

TEST_CASE("PLD composition: never below the exact epsilon, close above it", "[pld]") {
  SECTION("one step, every exact value") {
    for (const auto& r : pld_reference::kExactSingleStep) {
      if (r.epsilon == 0.0) continue;
      const pld::EpsilonBounds e = accountant_of(subsampled(r.q, r.z, r.remove), 1, 1e-4).epsilon(r.delta);
      INFO("q = " << r.q << ", z = " << r.z << ", remove = " << r.remove << ", delta = " << r.delta << ", exact " << r.epsilon);
      CHECK(e.upper >= r.epsilon);
      CHECK(e.upper <= r.epsilon * 1.005 + 1e-4);
      CHECK(e.lower <= r.epsilon);
    }
  }
  SECTION("k-fold, against certified brackets") {
    for (const auto& r : pld_reference::kBracketComposed) {
      if (r.upper == 0.0) continue;
      const pld::EpsilonBounds e = accountant_of(subsampled(r.q, r.z, r.remove), r.steps).epsilon(r.delta);
      INFO("q = " << r.q << ", z = " << r.z << ", k = " << r.steps << ", remove = " << r.remove << ", delta = " << r.delta
                  << ": [" << r.lower << ", " << r.upper << "], got " << e.upper);
      CHECK(e.upper >= r.lower);
      CHECK(e.upper <= r.upper * 1.005 + 1e-4);
      CHECK(e.lower <= r.upper);
    }
  }
  SECTION("replace adjacency: a shared component apart") {
    for (const auto& r : pld_reference::kBracketReplace) {
      auto pair = std::make_shared<pld::SharedComponentPair>(r.q, std::make_shared<pld::GaussianMixturePair>(pld::gaussian_pair(1.0 / r.z)));
      const pld::EpsilonBounds e = accountant_of(pair, r.steps).epsilon(r.delta);
      INFO("q = " << r.q << ", z = " << r.z << ", k = " << r.steps << ", delta = " << r.delta);
      CHECK(e.upper >= r.lower);
      CHECK(e.upper <= r.upper * 1.005 + 1e-4);
    }
  }
  SECTION("Gaussians compose to the exact mu-GDP profile") {
    for (const auto& r : pld_reference::kExactGaussian) {
      if (r.epsilon > 200.0) continue;  // a grid to 10^3 nats is not this test's business
      auto pair = std::make_shared<pld::GaussianMixturePair>(pld::gaussian_pair(1.0 / r.z));
      const pld::EpsilonBounds e = accountant_of(pair, r.steps).epsilon(r.delta);
      INFO("z = " << r.z << ", k = " << r.steps << ", delta = " << r.delta << ", exact " << r.epsilon);
      CHECK(e.upper >= r.epsilon);
      CHECK(e.upper <= r.epsilon * 1.005 + 1e-4);
      CHECK(gdp_epsilon(std::sqrt(static_cast<double>(r.steps)) / r.z, r.delta) >= r.epsilon);
    }
  }
}

TEST_CASE("PLD composition: within 0.5% of dp_accounting's pessimistic PLD on DP-SGD settings", "[pld]") {
  for (const auto& s : pld_reference::kPeerSettings) {
    if (s.pld_add_remove > 60.0) continue;  // s21: epsilon 150 (a grid to 300 nats), measured in docs only
    pld::AccountantOptions o;
    o.accuracy = 1e-3;
    pld::PldAccountant acc({{{subsampled(s.q, s.noise_multiplier, true), s.steps}}, {{subsampled(s.q, s.noise_multiplier, false), s.steps}}}, o);
    const pld::EpsilonBounds e = acc.epsilon(s.delta);
    INFO(s.name << ": q = " << s.q << ", z = " << s.noise_multiplier << ", T = " << s.steps << ", delta = " << s.delta
                << "; dp_accounting " << s.pld_add_remove << ", rdpdyn " << e.upper);
    CHECK(e.upper <= s.pld_add_remove * 1.005 + 1e-6);
    CHECK(e.upper < s.rdp_add_remove);
    // replace, S_g bounding the gradients' difference (rdpdyn's z = m/2): at or above dp_accounting's
    // norm-bounded antipodal pair, which it dominates
    auto replace = std::make_shared<pld::SharedComponentPair>(
        s.q, std::make_shared<pld::GaussianMixturePair>(pld::gaussian_pair(2.0 / s.noise_multiplier)));
    if (s.steps <= 1000) {  // longer runs give replace epsilons of hundreds (no norm bound: docs/pld.md)
      const double r = accountant_of(replace, s.steps).epsilon(s.delta).upper;
      INFO("replace: dp_accounting " << s.pld_replace << ", rdpdyn " << r);
      CHECK(r >= s.pld_replace * (1.0 - 1e-3));
    }
  }
}

TEST_CASE("Last-iterate pair: certified bounds around the exact epsilon (40-digit mpmath)", "[pld]") {
  for (const auto& r : pld_reference::kExactLastIterate) {
    const LastIterateEpsilon e = linear_last_iterate_epsilon(r.steps, r.q, r.z, r.delta);
    INFO("T = " << r.steps << ", q = " << r.q << ", z = " << r.z << ", delta = " << r.delta << ", exact " << r.epsilon);
    CHECK(e.upper >= r.epsilon);
    CHECK(e.lower <= r.epsilon);
    CHECK(e.upper - e.lower <= 1e-6 * r.epsilon + 1e-9);
  }
}

TEST_CASE("PLD accountant: delta at epsilon is consistent with epsilon at delta", "[pld]") {
  pld::AccountantOptions o;
  pld::PldAccountant acc({{{subsampled(0.01, 1.1, true), 1000}}, {{subsampled(0.01, 1.1, false), 1000}}}, o);
  const double eps = acc.epsilon(1e-5).upper;
  const pld::DeltaBounds d = acc.delta(eps, 1e-5);
  CHECK(d.upper <= 1e-5);
  CHECK(d.upper >= 1e-5 * (1.0 - 1e-6));
  CHECK(d.lower <= d.upper);
  const pld::PrivacyCurves c = acc.curves(1e-5, 1e-10, 50);
  for (std::size_t i = 1; i < c.delta.size(); ++i) CHECK(c.delta[i] <= c.delta[i - 1]);
  for (std::size_t i = 1; i < c.beta.size(); ++i) CHECK(c.beta[i] <= c.beta[i - 1]);
  CHECK(c.beta.front() <= 1.0);
}

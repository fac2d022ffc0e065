// Gaussian-mixture pairs with components up to 1000 noise standard deviations apart: each pair's
// certified interval for delta(epsilon) must hold the exact value (issue 34: a component 40 standard
// deviations past the threshold was counted 0 once its density underflowed, and steinke-last-iterate,
// reported as exact, was 18x below the truth). The exact values come from the pairs' definitions in
// mpmath at 60 digits, with no rdpdyn code: tests/soundness/floors/far_shift_profiles.py prints the
// table below.
#include <catch2/catch.hpp>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "accounting/pld/antipodal_mixture_pair.hpp"
#include "accounting/pld/gaussian_mixture_pair.hpp"
#include "accounting/pld/loss_distribution.hpp"
#include "accounting/pld/shared_component_pair.hpp"
#include "accounting/pld/worse_of_pairs.hpp"

using namespace rdpdyn;

namespace {

enum class Pair { Forward, Reverse, SharedComponent, FixedSize, BinomialForward, BinomialReverse, Antipodal };

struct Case {
  Pair pair;
  double q;      ///< the rate (binomial: of each step)
  double shift;  ///< mu, the Gaussian's shift (antipodal: c) in noise standard deviations
  int steps;     ///< binomial mixtures: T
  double epsilon;
  const char* delta;  ///< the exact delta(epsilon), 30 digits
};

// tests/soundness/floors/far_shift_profiles.py, mpmath 60 digits
const Case kCases[] = {
    {Pair::Forward, 0.01, 40, 1, -1, "0.632120558828557678404476229839"},
    {Pair::SharedComponent, 0.01, 40, 1, -1, "0.63579935324027210162043146754"},
    {Pair::Forward, 0.01, 40, 1, 0.5, "0.01"},
    {Pair::SharedComponent, 0.01, 40, 1, 0.5, "0.01"},
    {Pair::Forward, 0.01, 40, 1, 5, "0.01"},
    {Pair::SharedComponent, 0.01, 40, 1, 5, "0.01"},
    {Pair::Forward, 0.01, 40, 1, 50, "0.01"},
    {Pair::SharedComponent, 0.01, 40, 1, 50, "0.01"},
    {Pair::Reverse, 0.01, 40, 1, -1, "0.63579935324027210162043146754"},
    {Pair::Reverse, 0.01, 40, 1, 0.001, "0.00900950483495874172799566982968"},
    {Pair::Reverse, 0.01, 40, 1, 0.005, "0.0050376043491929471467103437602"},
    {Pair::FixedSize, 0.01, 40, 1, -1, "0.63579935324027210162043146754"},
    {Pair::FixedSize, 0.01, 40, 1, 0.001, "0.01"},
    {Pair::FixedSize, 0.01, 40, 1, 0.5, "0.01"},
    {Pair::FixedSize, 0.01, 40, 1, 5, "0.01"},
    {Pair::Forward, 0.01, 300, 1, -1, "0.632120558828557678404476229839"},
    {Pair::SharedComponent, 0.01, 300, 1, -1, "0.63579935324027210162043146754"},
    {Pair::Forward, 0.01, 300, 1, 0.5, "0.01"},
    {Pair::SharedComponent, 0.01, 300, 1, 0.5, "0.01"},
    {Pair::Forward, 0.01, 300, 1, 5, "0.01"},
    {Pair::SharedComponent, 0.01, 300, 1, 5, "0.01"},
    {Pair::Forward, 0.01, 300, 1, 50, "0.01"},
    {Pair::SharedComponent, 0.01, 300, 1, 50, "0.01"},
    {Pair::Reverse, 0.01, 300, 1, -1, "0.63579935324027210162043146754"},
    {Pair::Reverse, 0.01, 300, 1, 0.001, "0.00900950483495874172799566982968"},
    {Pair::Reverse, 0.01, 300, 1, 0.005, "0.0050376043491929471467103437602"},
    {Pair::FixedSize, 0.01, 300, 1, -1, "0.63579935324027210162043146754"},
    {Pair::FixedSize, 0.01, 300, 1, 0.001, "0.01"},
    {Pair::FixedSize, 0.01, 300, 1, 0.5, "0.01"},
    {Pair::FixedSize, 0.01, 300, 1, 5, "0.01"},
    {Pair::Forward, 0.01, 1000, 1, -1, "0.632120558828557678404476229839"},
    {Pair::SharedComponent, 0.01, 1000, 1, -1, "0.63579935324027210162043146754"},
    {Pair::Forward, 0.01, 1000, 1, 0.5, "0.01"},
    {Pair::SharedComponent, 0.01, 1000, 1, 0.5, "0.01"},
    {Pair::Forward, 0.01, 1000, 1, 5, "0.01"},
    {Pair::SharedComponent, 0.01, 1000, 1, 5, "0.01"},
    {Pair::Forward, 0.01, 1000, 1, 50, "0.01"},
    {Pair::SharedComponent, 0.01, 1000, 1, 50, "0.01"},
    {Pair::Reverse, 0.01, 1000, 1, -1, "0.63579935324027210162043146754"},
    {Pair::Reverse, 0.01, 1000, 1, 0.001, "0.00900950483495874172799566982968"},
    {Pair::Reverse, 0.01, 1000, 1, 0.005, "0.0050376043491929471467103437602"},
    {Pair::FixedSize, 0.01, 1000, 1, -1, "0.63579935324027210162043146754"},
    {Pair::FixedSize, 0.01, 1000, 1, 0.001, "0.01"},
    {Pair::FixedSize, 0.01, 1000, 1, 0.5, "0.01"},
    {Pair::FixedSize, 0.01, 1000, 1, 5, "0.01"},
    {Pair::BinomialForward, 0.03, 17.2, 9, -1, "0.632120558828557678404476229839"},
    {Pair::BinomialForward, 0.03, 17.2, 9, 1, "0.239768941345434777910379273619"},
    {Pair::BinomialForward, 0.03, 17.2, 9, 26.757, "0.239768941344801762051392667543"},
    {Pair::BinomialForward, 0.03, 17.2, 9, 100, "0.238872811490282071211366862552"},
    {Pair::BinomialReverse, 0.03, 17.2, 9, -1, "0.720326622980984556354868010112"},
    {Pair::BinomialReverse, 0.03, 17.2, 9, 0.01, "0.23212849218338243383113235497"},
    {Pair::BinomialReverse, 0.03, 17.2, 9, 0.1, "0.159814742957112634137210165209"},
    {Pair::BinomialForward, 0.03, 200, 5, -1, "0.632120558828557678404476229839"},
    {Pair::BinomialForward, 0.03, 200, 5, 1, "0.1412659743"},
    {Pair::BinomialForward, 0.03, 200, 5, 26.757, "0.1412659743"},
    {Pair::BinomialForward, 0.03, 200, 5, 100, "0.1412659743"},
    {Pair::BinomialReverse, 0.03, 200, 5, -1, "0.684089406510581011300921825749"},
    {Pair::BinomialReverse, 0.03, 200, 5, 0.01, "0.132635553860854733030910513665"},
    {Pair::BinomialReverse, 0.03, 200, 5, 0.1, "0.0509521284343342127425249412473"},
    {Pair::Antipodal, 0.01, 20, 1, -1, "0.635799353240272101620430759598"},
    {Pair::Antipodal, 0.01, 20, 1, 0.5, "0.00999999999999999999999880436871"},
    {Pair::Antipodal, 0.01, 20, 1, 5, "0.0099999999999999999999835522886"},
    {Pair::Antipodal, 0.01, 20, 1, 50, "0.00999999999999716871212533520947"},
    {Pair::Antipodal, 0.01, 500, 1, -1, "0.63579935324027210162043146754"},
    {Pair::Antipodal, 0.01, 500, 1, 0.5, "0.01"},
    {Pair::Antipodal, 0.01, 500, 1, 5, "0.01"},
    {Pair::Antipodal, 0.01, 500, 1, 50, "0.01"},
};

std::vector<pld::MixtureComponent> binomial_mixture(int steps, double q, double mu) {
  std::vector<pld::MixtureComponent> out;
  for (int j = 0; j <= steps; ++j) {
    const double log_weight = std::lgamma(steps + 1.0) - std::lgamma(j + 1.0) - std::lgamma(steps - j + 1.0) +
                              j * std::log(q) + (steps - j) * std::log1p(-q);
    out.push_back({std::exp(log_weight), j * mu});
  }
  return out;
}

std::shared_ptr<const pld::DominatingPair> pair_of(const Case& c) {
  using Dir = pld::GaussianMixturePair::Direction;
  switch (c.pair) {
    case Pair::Forward:
      return std::make_shared<pld::GaussianMixturePair>(pld::subsampled_gaussian_pair(c.q, c.shift, Dir::Forward));
    case Pair::Reverse:
      return std::make_shared<pld::GaussianMixturePair>(pld::subsampled_gaussian_pair(c.q, c.shift, Dir::Reverse));
    case Pair::SharedComponent:
      return std::make_shared<pld::SharedComponentPair>(
          c.q, std::make_shared<pld::GaussianMixturePair>(pld::gaussian_pair(c.shift)));
    case Pair::FixedSize:
      return pld::fixed_size_subsampled_gaussian_pair(c.q, c.shift);
    case Pair::BinomialForward:
      return std::make_shared<pld::GaussianMixturePair>(binomial_mixture(c.steps, c.q, c.shift), Dir::Forward,
                                                        "binomial");
    case Pair::BinomialReverse:
      return std::make_shared<pld::GaussianMixturePair>(binomial_mixture(c.steps, c.q, c.shift), Dir::Reverse,
                                                        "binomial");
    case Pair::Antipodal:
      return std::make_shared<pld::AntipodalMixturePair>(c.q, c.shift);
  }
  return nullptr;
}

}  // namespace

TEST_CASE("Gaussian-mixture pairs up to 1000 standard deviations apart: the certified interval holds the exact delta",
          "[pld][underflow]") {
  for (const Case& c : kCases) {
    const auto pair = pair_of(c);
    const double exact = std::stod(c.delta);
    const pld::Approx d = pair->hockey_stick(c.epsilon);
    INFO(pair->describe() << " (steps " << c.steps << "), epsilon " << c.epsilon << ": " << d.lower() << " .. "
                          << d.upper() << ", exact " << c.delta);
    // 1e-12 relative: the table's parameters are decimals (q = 0.03, mu = 17.2) and its binomial
    // weights exact, the pairs' are doubles (about 1e-15 relative apart); an underflow is all or nothing
    CHECK(d.upper() >= exact * (1.0 - 1e-12));
    CHECK(d.lower() <= exact * (1.0 + 1e-12) + 1e-300);
    // and the interval is informative (a bound of 1 would hold trivially): the error bounds grow with
    // |mean x threshold| u, up to 1e-5 relative at shifts of 1000
    CHECK(d.upper() - d.lower() <= 1e-4 * exact + 1e-12);
  }
}

TEST_CASE("A PLD's indexed profile gives the bits of one pass from the top", "[pld]") {
  // index_profile() tabulates the sums hockey_sum accumulated on every call; the same additions in
  // the same order, so delta_at must not change by one bit (the lookup is a speed-up, not a new
  // route to check against a floor: the floors of the PLD are the cases of test_pld.cpp).
  pld::Discretisation d;
  d.h = 0x1p-10;
  d.tail = 1e-15;
  pld::LossDistribution plain =
      pld::discretise(pld::subsampled_gaussian_pair(0.1, 1.0, pld::GaussianMixturePair::Direction::Forward), d, 1.0);
  pld::LossDistribution indexed = plain;
  pld::index_profile(indexed);
  for (double eps = -1.0; eps <= 8.0; eps += 0.01234) {
    const pld::DeltaBounds a = pld::delta_at(plain, eps), b = pld::delta_at(indexed, eps);
    INFO("epsilon " << eps);
    CHECK(a.upper == b.upper);
    CHECK(a.lower == b.lower);
  }
}

#include "accounting/pld/worse_of_pairs.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "accounting/pld/gaussian_mixture_pair.hpp"
#include "numerics/format_number.hpp"

namespace rdpdyn::pld {

WorseOfPairs::WorseOfPairs(std::shared_ptr<const DominatingPair> first, std::shared_ptr<const DominatingPair> second,
                           std::string label)
    : first_(std::move(first)), second_(std::move(second)), label_(std::move(label)) {
  if (!first_ || !second_) throw std::invalid_argument("worse of pairs: needs two pairs");
}

Approx WorseOfPairs::hockey_stick(double epsilon) const {
  // max of two bracketed values: [max of the lower ends, max of the upper ends]
  const Approx a = first_->hockey_stick(epsilon), b = second_->hockey_stick(epsilon);
  const double hi = std::max(a.upper(), b.upper()), lo = std::max(a.lower(), b.lower());
  return {0.5 * (hi + lo), 0.5 * (hi - lo) * (1.0 + 0x1p-50) + 0x1p-52 * std::fabs(hi)};
}

void WorseOfPairs::loss_range(double tail, double& lo, double& hi) const {
  // The hull's loss lies within the union of the two losses' ranges (its profile agrees with one of
  // the two on each side of every epsilon, so its tails are at most the larger tail).
  double l1 = 0.0, h1 = 0.0, l2 = 0.0, h2 = 0.0;
  first_->loss_range(0.5 * tail, l1, h1);
  second_->loss_range(0.5 * tail, l2, h2);
  lo = std::min(l1, l2);
  hi = std::max(h1, h2);
}

double WorseOfPairs::infinite_loss_mass() const {
  return std::max(first_->infinite_loss_mass(), second_->infinite_loss_mass());
}

std::shared_ptr<const DominatingPair> fixed_size_subsampled_gaussian_pair(double q, double mu) {
  using D = GaussianMixturePair::Direction;
  if (q == 1.0) return std::make_shared<GaussianMixturePair>(gaussian_pair(mu));
  return std::make_shared<WorseOfPairs>(
      std::make_shared<GaussianMixturePair>(subsampled_gaussian_pair(q, mu, D::Forward)),
      std::make_shared<GaussianMixturePair>(subsampled_gaussian_pair(q, mu, D::Reverse)),
      "fixed-size subsampled Gaussian (replace-one, DRS C_q), q = " + format_number(q) + ", mu = " + format_number(mu));
}

}  // namespace rdpdyn::pld

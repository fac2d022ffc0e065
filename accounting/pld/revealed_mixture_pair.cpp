#include "accounting/pld/revealed_mixture_pair.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "numerics/format_number.hpp"

namespace rdpdyn::pld {
namespace {
constexpr double u = 0x1p-53;
}

RevealedMixturePair::RevealedMixturePair(std::vector<RevealedComponent> components, double apart_weight,
                                         std::string label)
    : apart_weight_(apart_weight), label_(std::move(label)) {
  if (!(apart_weight >= 0.0 && apart_weight <= 1.0))
    throw std::invalid_argument("revealed mixture: apart weight " + format_number(apart_weight) +
                                " must lie in [0, 1]");
  double total = apart_weight;
  for (auto& c : components) {
    if (!(c.weight >= 0.0))
      throw std::invalid_argument("revealed mixture: weight " + format_number(c.weight) + " must be >= 0");
    total += c.weight;
    if (c.weight == 0.0) continue;
    if (c.pair)
      components_.push_back(std::move(c));
    else
      identical_weight_ += c.weight;
  }
  if (!(std::fabs(total - 1.0) <= 1e-12))
    throw std::invalid_argument("revealed mixture: the weights sum to " + format_number(total) + ", not 1");
}

Approx RevealedMixturePair::hockey_stick(double epsilon) const {
  if (std::isnan(epsilon)) throw std::invalid_argument("hockey_stick: epsilon is NaN");
  // identical components: H_t = (1 - t)_+; the apart atom: H_t = 1 for every t >= 0
  const double none = epsilon < 0.0 ? -std::expm1(epsilon) : 0.0;
  double value = identical_weight_ * none + apart_weight_, error = 4.0 * u * value;
  for (const auto& c : components_) {
    const Approx a = c.pair->hockey_stick(epsilon);
    value += c.weight * a.value;
    error += c.weight * a.error;
  }
  error += 4.0 * static_cast<double>(components_.size() + 2) * u * value;
  return {value, error};
}

void RevealedMixturePair::loss_range(double tail, double& lo, double& hi) const {
  lo = 0.0;
  hi = 0.0;
  // Component j's tails at tail / (w_j N) each keep the mixture's at most tail; a component lighter
  // than tail / N may lie outside entirely (the grid's tails come from the profile, so this only
  // decides where the grid is laid, not what it certifies).
  const double n = static_cast<double>(components_.size());
  for (const auto& c : components_) {
    if (c.weight * n <= tail) continue;
    double l = 0.0, h = 0.0;
    c.pair->loss_range(std::min(0.49, tail / (c.weight * n)), l, h);
    lo = std::min(lo, l);
    hi = std::max(hi, h);
  }
}

double RevealedMixturePair::infinite_loss_mass() const {
  double m = apart_weight_;
  for (const auto& c : components_) m += c.weight * c.pair->infinite_loss_mass();
  return m;
}

}  // namespace rdpdyn::pld

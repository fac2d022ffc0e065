#include "accounting/pld/shared_component_pair.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "numerics/format_number.hpp"
#include "numerics/outward_rounding.hpp"

namespace rdpdyn::pld {

SharedComponentPair::SharedComponentPair(double q, std::shared_ptr<const DominatingPair> inner)
    : q_(q), inner_(std::move(inner)) {
  if (!(q > 0.0 && q <= 1.0))
    throw std::invalid_argument("shared-component pair: q = " + format_number(q) + " must lie in (0, 1]");
  if (!inner_) throw std::invalid_argument("shared-component pair needs an inner pair");
}

Approx SharedComponentPair::hockey_stick(double epsilon) const {
  constexpr double u = 0x1p-53;
  const Approx in = inner_->hockey_stick(epsilon);
  const double common = epsilon < 0.0 ? -std::expm1(epsilon) : 0.0;
  const double value = (1.0 - q_) * common + q_ * in.value;
  return {value, q_ * in.error + 8.0 * u * ((1.0 - q_) * common + q_ * std::fabs(in.value))};
}

void SharedComponentPair::loss_range(double tail, double& lo, double& hi) const {
  inner_->loss_range(std::min(0.49, tail / q_), lo, hi);
  lo = std::min(lo, 0.0);
  hi = std::max(hi, 0.0);
}

std::string SharedComponentPair::describe() const {
  return "shared component (1 - q) apart, q = " + format_number(q_) + ", with " + inner_->describe();
}

double shared_component_gaussian_rdp(double q, double mu, double alpha) {
  const double inner = alpha * (alpha - 1.0) * mu * mu / 2.0;
  // log(1 - q + q e^x) = x + log(q + (1 - q) e^{-x}) once e^x would overflow
  const double v =
      (inner < 500.0 ? std::log1p(q * std::expm1(inner)) : inner + std::log(q + (1.0 - q) * std::exp(-inner))) /
      (alpha - 1.0);
  return outward::round_up(v, 64.0 * outward::kUnitRoundoff * (1.0 + inner));
}

}  // namespace rdpdyn::pld

#pragma once
// A pair whose privacy profile is remembered point by point: several accountants that compose the
// same pair (a search over candidates, then the bound at its own grid) evaluate each epsilon once.
// The remembered value is the wrapped pair's, bit for bit; thread-safe.
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "accounting/pld/dominating_pair.hpp"

namespace rdpdyn::pld {

class ProfileCachedPair final : public DominatingPair {
 public:
  explicit ProfileCachedPair(std::shared_ptr<const DominatingPair> pair);
  Approx hockey_stick(double epsilon) const override;
  void loss_range(double tail, double& lo, double& hi) const override { pair_->loss_range(tail, lo, hi); }
  double infinite_loss_mass() const override { return pair_->infinite_loss_mass(); }
  std::string describe() const override { return pair_->describe(); }

 private:
  std::shared_ptr<const DominatingPair> pair_;
  mutable std::mutex mutex_;
  mutable std::unordered_map<double, Approx> profile_;
};

}  // namespace rdpdyn::pld

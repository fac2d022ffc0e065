#include "accounting/pld/profile_cached_pair.hpp"

#include <stdexcept>

namespace rdpdyn::pld {

ProfileCachedPair::ProfileCachedPair(std::shared_ptr<const DominatingPair> pair) : pair_(std::move(pair)) {
  if (!pair_) throw std::invalid_argument("ProfileCachedPair: no pair to wrap");
}

Approx ProfileCachedPair::hockey_stick(double epsilon) const {
  {
    std::lock_guard lock(mutex_);
    if (auto it = profile_.find(epsilon); it != profile_.end()) return it->second;
  }
  const Approx value = pair_->hockey_stick(epsilon);  // outside the lock: evaluations may run in parallel
  std::lock_guard lock(mutex_);
  profile_.emplace(epsilon, value);
  return value;
}

}  // namespace rdpdyn::pld

#pragma once
// The privacy-loss-distribution accountant: the composition of a run's mechanisms, each given by a
// dominating pair, as a certified PLD (loss_distribution.hpp), with the grid chosen from a requested
// accuracy, and what users ask of it: epsilon at delta, delta at epsilon, the privacy profile and the
// trade-off curve (docs/pld.md).
//
// A run may need several compositions ("directions"): under add/remove adjacency the remove pairs
// and the add pairs are composed separately and the run's delta(epsilon) is the larger of the two
// (each neighbouring pair of datasets is one direction or the other; Zhu, Dong & Wang 2022,
// arXiv:2106.08567, Sec. 5; dp_accounting's PrivacyLossDistribution keeps the same two).
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "accounting/pld/dominating_pair.hpp"
#include "accounting/pld/loss_distribution.hpp"

namespace rdpdyn::pld {

/// One composition: each pair composed `count` times, in order.
struct PairRun {
  std::shared_ptr<const DominatingPair> pair;
  std::int64_t count = 1;
};
using Direction = std::vector<PairRun>;

struct AccountantOptions {
  /// The relative accuracy of epsilon the grid is refined to: the grid spacing h is halved from 2^-7
  /// until the Richardson estimate of the connect-the-dots error of epsilon, (eps(2h) - eps(h)) / 3,
  /// is at most accuracy * eps(h). Every value on every grid is a certified upper bound; the accuracy
  /// only decides how tight.
  double accuracy = 1e-4;
  /// A fixed grid spacing (2^k or 3 2^k, so the grid points are exact) instead: 0 = choose by `accuracy`.
  double grid = 0.0;
  /// Refuse (std::length_error) a composition needing more grid points than this.
  std::size_t max_points = std::size_t{1} << 22;
};

/// The privacy profile on a grid of epsilons and the trade-off curve it certifies.
struct PrivacyCurves {
  std::vector<double> epsilon, delta;  ///< delta(epsilon), certified upper bounds (nats, probability)
  /// beta(alpha): a certified lower bound on the type II error of any test at type I error alpha
  /// (Dong, Roth & Su 2022, arXiv:1905.02383, Prop. 2.12: sup over the profile of f_{eps, delta(eps)})
  std::vector<double> alpha, beta;
};

class PldAccountant {
 public:
  PldAccountant(std::vector<Direction> directions, AccountantOptions options);

  /// A certified upper bound on epsilon(delta) and a certified lower bound (EpsilonBounds), delta in
  /// (0, 1). upper is +infinity where the round-off or the truncated mass already exceeds delta.
  EpsilonBounds epsilon(double delta) const;
  /// delta(epsilon), epsilon >= 0, on the grid chosen for `reference_delta` (the delta the run
  /// reports, which sets the truncation and round-off budgets).
  DeltaBounds delta(double epsilon, double reference_delta) const;
  /// The profile on `points` epsilons from 0 to where delta falls below `smallest_delta`, and the
  /// trade-off curve on `points` type I errors.
  PrivacyCurves curves(double reference_delta, double smallest_delta, std::size_t points = 200) const;
  /// The grid spacing used for reference_delta (after refinement).
  double grid(double reference_delta) const;

 private:
  struct Composed {
    double h = 0.0;
    std::vector<LossDistribution> plds;  ///< one per direction
  };
  Composed compose_at(double h, double reference_delta) const;
  const Composed& chosen(double reference_delta) const;

  std::vector<Direction> directions_;
  AccountantOptions options_;
  mutable std::mutex mutex_;
  mutable std::map<double, Composed> cache_;        ///< by reference delta
  mutable std::map<double, std::string> failures_;  ///< reference deltas whose grid does not fit: why
  /// each pair's profile on the last grid composed (indexed as directions_): the next, finer grid
  /// evaluates only its new points
  mutable std::vector<std::vector<ProfileMemo>> memos_;
};

}  // namespace rdpdyn::pld

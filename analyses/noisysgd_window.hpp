#pragma once
// "noisysgd-window": the last iterate of noisy SGD with randomly sampled batches (b of n at every
// step, or Poisson sampling) on strongly convex smooth losses, replace-one adjacency, by shifted
// interpolation over a window of the last K steps (derived here: docs/derivations/noisysgd_window.md,
// Theorem A; Poisson: its section 1.4 as revised; the technique is Bok, Su & Altschuler's, ICML 2024,
// arXiv:2403.00278, whose NoisySGD theorem could not be read here: this is not its formula).
//
//   delta(eps) <= P(a batch size outside [k_lo, k_hi])
//                 + profile of  C^(K-1) (x) C' (x) R_Y  at eps,
// with C one step from a common point: Dong, Roth & Su's C_q(G(m)) for b of n records drawn without
// replacement (accounting/pld/worse_of_pairs.hpp); for Poisson sampling the same given the batch
// size k (q = k/n; given its size the batch is a uniform k-subset, and the size is the same on both
// datasets), the sizes' law revealed (accounting/pld/revealed_mixture_pair.hpp). C' is C with m /
// sqrt(1 - rho) (the last step's noise split), R_Y the revealed Gaussian pair of shift
// c^K m Y / sqrt(rho), Y = sum_{j < T-K} c^j xi_j, xi_j i.i.d. Bernoulli(q), bounded from above on a
// grid (accounting/discounted_bernoulli_sum.hpp). m = Delta / noise std, c bounds the gradient maps'
// Lipschitz constant over the sizes allowed; [k_lo, k_hi] from Chernoff bounds, failure at most 1e-3
// of the reported delta, added. K and rho are chosen by an RDP proxy and then by the PLD on a coarse
// grid among a few finalists; every (K, rho) gives a valid bound, and K = T is the composition of
// the steps' pairs.
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "accounting/discounted_bernoulli_sum.hpp"
#include "accounting/pld/pld_accountant.hpp"
#include "analyses/analysis.hpp"

namespace rdpdyn {

/// The run as the bound sees it.
struct WindowSetting {
  std::int64_t steps = 0;  ///< T
  double q = 0.0;          ///< the rate of a record's inclusion (Poisson: given the size event, from above)
  /// The batch sizes' law as (weight, k/n) with each bin's mass at its largest k (fixed-size: {1, b/n}).
  std::vector<std::pair<double, double>> size_bins;
  double one_minus_c = 0.0;  ///< 1 - c, c the contraction bound (Poisson: of the sizes allowed)
  double m = 0.0;            ///< Delta / noise std of one step (= 1 / z)
  double failure = 0.0;      ///< P(a batch size outside [k_lo, k_hi]) (0 for fixed-size batches)
  std::int64_t k_lo = 0, k_hi = 0;
};

/// The free parameters: the window length K in [1, T] and the noise split rho in (0, 1) (unused at K = T).
struct WindowChoice {
  std::int64_t window = 1;
  double rho = 0.5;
};

/// The step pairs of one setting by their mu, each profile evaluated once however many candidates
/// and accountants compose it (pld::ProfileCachedPair).
class StepPairCache {
 public:
  std::shared_ptr<const pld::DominatingPair> at(const WindowSetting& s, double mu);

 private:
  std::mutex mutex_;
  std::map<double, std::shared_ptr<const pld::DominatingPair>> pairs_;
};

/// The composition the bound evaluates for `choice` (law_points: the grid of Y's dominating law);
/// `cache` (optional, for one setting only) shares the step pairs with other calls.
pld::Direction window_bound_pairs(const WindowSetting& s, WindowChoice choice, std::size_t law_points = 8192,
                                  StepPairCache* cache = nullptr);

/// (K, rho) for epsilon at delta: ranked by an RDP proxy, the finalists compared by the PLD on a coarse
/// grid (the choice only; the bound is the PLD's at the accountant's own grid).
WindowChoice choose_window(const WindowSetting& s, double delta, StepPairCache* cache = nullptr);

/// The Poisson setting: batch-size interval with T (P(K < k_lo) + P(K > k_hi)) <= failure_budget,
/// by Chernoff bounds on Binomial(n, q). A reason when no contraction holds over it.
std::variant<WindowSetting, std::string> poisson_window_setting(const TrainingRun& run, double failure_budget);

AnalysisResult noisysgd_window(const RunSpec& spec, const TrainingRun& run);

}  // namespace rdpdyn

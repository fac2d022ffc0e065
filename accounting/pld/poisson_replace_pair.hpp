#pragma once
// One Poisson-sampled Gaussian step under replace-one adjacency, S_g bounding the difference of any
// two records' gradients (no bound on their norms), the clipped sum divided by the constant b = q n.
//
// The batch size k ~ Binomial(n, q) is the same on both datasets (membership is by index) and,
// given k, the batch is a uniform k-subset: the step is then a fixed-size subsampled Gaussian, whose
// trade-off is at least C_{k/n}(G(mu)) (Dong, Roth & Su 2022, arXiv:1905.02383, Thm 4.2; the batch
// with the record and the one without it differ by one swapped record, so the norms never enter;
// accounting/pld/worse_of_pairs.hpp). Revealing k (post-processing forgets it) gives the pair of
// each size weighted by the size's law (revealed_mixture_pair.hpp). The sizes are binned, each
// bin's mass at its largest size (C_q(f) is nonincreasing in q: a larger q dominates), and the
// weights are raised by their round-off with the excess taken from the smallest sizes, so the
// binned pair dominates the exact one. Derived here: docs/pld.md, "Replace-one adjacency".
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "accounting/pld/dominating_pair.hpp"

namespace rdpdyn::pld {

/// The law of Binomial(n, q) restricted to [k_lo, k_hi] and renormalised, in bins of about a third
/// of a standard deviation near the mean (wider in the tails), as (weight, largest k / n). The
/// weights sum to 1 and dominate (see the header); a bin of size 0 has rate 0. n an integer >= 1, q
/// in (0, 1), 0 <= k_lo <= k_hi <= n; std::length_error when the sizes within 40 standard deviations
/// number more than 2^24 (n q (1 - q) above about 1e10).
std::vector<std::pair<double, double>> binomial_size_bins(double n, double q, double k_lo, double k_hi);

/// The step's pair for the binned sizes `bins` (as binomial_size_bins returns) and mu = Delta / noise std.
std::shared_ptr<const DominatingPair> sizes_revealed_step_pair(const std::vector<std::pair<double, double>>& bins,
                                                               double mu);

}  // namespace rdpdyn::pld

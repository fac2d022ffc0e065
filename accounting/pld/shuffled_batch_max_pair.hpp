#pragma once
// The largest batch sum of one shuffled epoch, binned: the test of Chua, Ghazi, Kamath, Kumar,
// Manurangsi, Sinha & Zhang, "How Private are DP-SGD Implementations?" (ICML 2024, arXiv:2403.17673)
// for their lower bound on shuffled batches.
//
// One epoch of t batches, each batch's (noise-normalised) sum a coordinate: all N(0, 1) except the
// differing record's batch, at a uniformly random position, which is N(s, 1). The largest
// coordinate M has, whatever the position, the law
//   P(M <= m) = Phi(m - s) Phi(m)^(t - 1).
// P is that law for the shift s = a, Q for s = c (0 <= c < a). M is cut into `cells` equal cells
// between points where the laws' tails are below e^-60, plus the two tails; the cells' probabilities
// come from log Phi (erfc, a few ulps relative), the upper ones from the survival function so that
// small tails are accurate, each with an error bound (docs/pld.md, "The shuffled-batch lower bound").
// A post-processing of the epoch's output: its profile bounds the epoch's from below.
#include <cstdint>

#include "accounting/pld/discrete_pair.hpp"

namespace rdpdyn::pld {

/// t = batches >= 1, shifts 0 <= shift_q < shift_p <= 30 (in noise standard deviations),
/// cells >= 16. Throws std::invalid_argument otherwise.
DiscretePair shuffled_batch_max_pair(std::int64_t batches, double shift_p, double shift_q, std::size_t cells = 4000);

/// log Phi(x), relative error a few ulps (-infinity where Phi underflows, below about -37.5).
double log_normal_cdf(double x);

}  // namespace rdpdyn::pld

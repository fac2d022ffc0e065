#pragma once
// pabi-bounded-domain: privacy amplification by iteration for projected noisy (S)GD on a set of
// diameter D with an L-Lipschitz gradient map, L = max(|1 - eta lambda|, |1 - eta beta|), which
// for a non-convex smooth loss is 1 + eta beta > 1 (derivation: docs/analyses.md,
// "pabi-bounded-domain").
//
// The argument is Feldman, Mironov, Talwar & Thakurta 2018's (arXiv:1808.06651) shifted Rényi
// divergence with A&T 2022's (arXiv:2205.13710) bounded-domain start: k steps before the end both
// iterates lie in the set, so their shifted divergence at shift D is 0. A step's map turns a shift z
// into L z + delta_j (delta_j = eta S_g / b when the step's batch holds the differing record), and
// the step's noise absorbs a_j of it at the cost alpha a_j^2 / (2 s^2), s^2 = 2 eta sigma^2. The
// least total cost that ends at shift 0 is computed exactly (minimal_absorption_cost) and minimised
// over the windows k.
#include <span>

#include "analyses/analysis.hpp"

namespace rdpdyn {
namespace bounded_domain_pabi {

/// min sum_j a_j^2 over absorptions a_j with z_{j+1} = L z_j + delta_j - a_j >= 0, z_0 =
/// start_shift, z_k = 0 (k = deltas.size()): the least total squared shift the noise must absorb.
/// Scaled by L^{j+1} the shifts' prefix sums must stay under a nondecreasing ceiling, and the
/// optimum is the lower convex hull of the ceiling's points (the taut string; docs/analyses.md).
/// The hull proposes the absorptions; the returned cost is that of the proposal made feasible by
/// feasible_absorption_cost (so it is at or above the optimum, equal to it up to rounding where the
/// scaled sums keep their precision). Returns +infinity when the scaling leaves the double range
/// (L^{2k} beyond e^690 or below e^-690).
double minimal_absorption_cost(double start_shift, std::span<const double> deltas, double lipschitz);

/// sum_j a_j^2 for the absorptions a_j = min(proposed_j, available_j) (the last step: all that is
/// available, so z_k = 0), available_j = L z_j + delta_j, z_{j+1} = available_j - a_j, every
/// operation rounded up: a feasible absorption's cost, an upper bound of the optimum.
double feasible_absorption_cost(double start_shift, std::span<const double> deltas, double lipschitz,
                                std::span<const double> proposed);

}  // namespace bounded_domain_pabi

AnalysisResult pabi_bounded_domain(const RunSpec& spec, const TrainingRun& run);

}  // namespace rdpdyn

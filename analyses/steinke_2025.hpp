#pragma once
// "steinke-last-iterate": the last-iterate heuristic of Steinke, Nasr, Ganesh, Balle,
// Choquette-Choo, Jagielski, Hayes, Thakurta, Smith & Terzis 2025, "The Last Iterate Advantage:
// Empirical Auditing and Principled Heuristic Analysis of Differentially Private SGD" (ICLR 2025,
// arXiv:2410.06186): the privacy of the last iterate of Poisson-sampled DP-SGD as if the loss were
// linear.
//
// With a linear loss l(theta; x) = <g(x), theta> and clipping norm C, the last iterate is
// theta_0 - (eta/b) sum_t (sum_{i in B_t} clip(g_i) + N(0, (z C)^2 I)): the differing record adds
// K clip(g*) with K ~ Binomial(T, q) the number of batches it joined, the noise adds up to
// N(0, T (z C)^2 I), and the other records add a term common to both datasets (independent of K),
// which can only reduce the divergence and vanishes when their gradients are 0. So, in units of
// the total noise, the worst pair under add/remove adjacency is
//   remove:  P = sum_j Bin(j; T, q) N(j / (z sqrt T), 1)   against   Q = N(0, 1),
//   add:     the same pair reversed,
// the exact privacy of the last iterate for linear losses (the paper's Theorem 1 as reviewers cite
// it; the statement itself could not be read here, docs/analyses.md says so). For any other loss it
// is a heuristic, not a bound: the paper's Sec. 4.3 gives losses for which the last iterate leaks
// more. Status: heuristic (never best, never calibrated); exact when algorithm.loss = "linear",
// where it is the floor every valid analysis must stay above.
//
// Evaluated without discretisation: the pair is one-dimensional with a monotone privacy loss
// (accounting/pld/gaussian_mixture_pair.hpp), so delta(epsilon) is bracketed directly and epsilon
// found by bisection on the certified values. The binomial weights beyond 40 standard deviations
// (mass below 1e-300) are moved onto the nearest kept component.
#include "analyses/analysis.hpp"

namespace rdpdyn {

/// Certified delta(epsilon) of the pair, both directions (the larger): value and lower bound.
struct LastIterateProfile {
  double upper = 0.0;
  double lower = 0.0;
};

/// The pair's profile at epsilon for T steps, rate q, noise multiplier z (add/remove).
LastIterateProfile linear_last_iterate_delta(std::int64_t steps, double q, double z, double epsilon);
/// Certified bounds on its epsilon(delta): {upper, lower}.
struct LastIterateEpsilon {
  double upper = 0.0;
  double lower = 0.0;
};
LastIterateEpsilon linear_last_iterate_epsilon(std::int64_t steps, double q, double z, double delta);

AnalysisResult steinke_last_iterate(const RunSpec& spec, const TrainingRun& run);

}  // namespace rdpdyn

#pragma once
// This tool's own bound for noisy mini-batch GD that averages over the random batches instead of
// taking the worst placement of the differing record (docs/analyses.md, "pdi on mini-batch runs").
//
// From a data-independent start with R_0 linear in alpha, every bound of one fixed placement of the
// record is linear in alpha: R = alpha u with u the same at every order (each step maps u to u'
// independently of alpha; Ye & Shokri 2022, arXiv:2203.05363, Sec. 3, and docs/math.md section 3.4
// for the optimal gamma). Per placement, u is carried step by step:
//  - a step without the record: the PDI (C21 arXiv:2102.05855, eq. (13)) with S_v = 0 over the
//    run's exact LSI sequence, u <- u A / (A + 2 eta sigma^2) (YS22 Lemma 3.2, eq. (56));
//  - a step holding the record: the PDI with S_v = S_g / b over the step at the optimal gamma
//    (solver/interval_flow.hpp, optimal_gamma_flow); gamma = 1 there is YS22 eq. (70);
//  - composition restarts (YS22 eq. (100)): at a step holding the record, the iterate is released
//    and the rest of the epoch runs from a point mass (its own LSI sequence from c = infinity);
//    u(m) <= u(s) + v(s, m). A dynamic programme keeps at every step the smaller of the carried and
//    the restarted bound (the step maps are non-decreasing in u, so the minimum is a bound).
// Over the sampling (the laws of the last iterate are mixtures with equal weights on both datasets):
//  - partition: the maximum over the n/b placements;
//  - shuffle-once: YS22 Lemma 4.1, eq. (133): R <= log Avg_j exp((alpha-1) alpha u_j) / (alpha-1);
//  - shuffle (a new partition every epoch) and per-step (b records drawn afresh every step, YS22
//    Thm 4.3's setting): the exponentiated recursion of YS22 Thm 4.3, eqs. (148)-(150), with this
//    tool's maps: S <- Avg_j g_j(S) per epoch, or S <- p g(S) + (1-p) S^rho per step, where
//    g(E) = exp(kappa u'(log(E)/kappa)), kappa = (alpha-1) alpha, is concave in E (u' is an infimum of
//    maps affine in u with slopes in [0, 1]), so Jensen's inequality closes the recursion.
// Every piece is at most the corresponding piece of YS22 Thms 3.3, D.4, 4.2 and 4.3 (which use
// gamma = 1 on the record's step, contraction factors relaxed to (1 - eta lambda)^2 and restarts at
// fixed places), so the bound is at most theirs wherever both apply.
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "models/run_spec.hpp"

namespace rdpdyn {

struct SampledBound {
  std::vector<double> R;  ///< per order, rounded outward
  /// Set when R = alpha * slope at every order (partition: the worst placement of linear bounds).
  std::optional<double> slope;
  std::string method;  ///< one line: the combination and what was used
  /// R at any order > 1 from the state computed once (placement slopes, or the run's steps for the
  /// recursions), rounded outward; what R holds at the requested orders.
  std::function<double(double alpha)> at_order;
  /// A second route to (epsilon, delta), beside R: Gaussian-DP per placement from the shifted
  /// interpolation argument (Bok, Su & Altschuler 2024, arXiv:2403.00278, App. C: any admissible
  /// shifts give G(sqrt(sum a_t^2 / v_t))), so placement j is sqrt(E_j)-GDP with the energy E_j of
  /// the shifted-divergence bound; partition: G of the largest, shuffle-once: the average of the
  /// profiles (joint convexity). Set for those two samplings when every placement has a shifted bound
  /// and the start is common (R_0 = 0). Returns a certified epsilon at delta.
  std::function<double(double delta)> fdp_epsilon;
  std::string fdp_route;           ///< "gdp" (partition) or "gdp-mixture" (shuffle-once)
  std::optional<double> worst_mu;  ///< the largest per-placement mu
};

/// Largest (number of placements) x (steps) evaluated for partition and shuffle-once, and largest
/// number of steps for the recursions of shuffle and per-step (run once per order); beyond them the
/// bound is not computed and the worst-case engine solution stands.
inline constexpr double kSampledBoundMaxWork = 0x1p28;
inline constexpr double kSampledBoundMaxRecursionSteps = 0x1p20;

/// The bound at `orders`, or the reason it does not apply (the run is not noisy mini-batch GD with
/// partition, shuffle-once, shuffle or per-step batches from data linear in alpha without events,
/// or its LSI schedule is not the Gaussian-convolution recursion or a constant).
std::variant<SampledBound, std::string> noisy_sgd_sampled_bound(const RunSpec& spec, std::span<const double> orders);

}  // namespace rdpdyn

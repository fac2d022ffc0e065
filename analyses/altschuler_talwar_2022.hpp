#pragma once
// Altschuler & Talwar 2022, "Privacy of Noisy Stochastic Gradient Descent: More Iterations without
// More Privacy Loss" (arXiv:2205.13710): the non-asymptotic bounds of their Appendix B for
// projected noisy (S)GD on a convex set of diameter D, and the strongly convex full-batch PABI
// bound derived from their Prop. 5.4 (derivation: docs/analyses.md, "pabi-strongly-convex"). Typo
// fixes: docs/analyses.md section 3.3.
//
// Units. The formulas are written in A&T's units (Setting below): per-step noise eta Z,
// Z ~ N(0, sigma_AT^2 I) (footnote 3); the per-record gradient-difference bound "2L" under
// replace adjacency, "L" under remove adjacency (Remark B.2), which is the run's S_g either
// way. setting_of() converts a C21-unit TrainingRun with the named functions of noise_units.hpp.
//
// (B.2)/(B.3) with b < n rest on A&T's L-Lipschitz assumption (per-record gradient norms <= L =
// S_g/2), not only on a bound S_g on gradient differences: see analyses/composition.cpp for a
// one-step configuration that exceeds S_alpha when only differences are bounded.
// Reading note (B.2)/(B.3) with b < n: Step 3b of the proof of Thm 3.1 (Sec. 3.2, eq. (3.6)) takes
// the random contractions phi_t, phi'_t equal given Z = Z' = z; the batch B_t also enters the bias
// inside Z'_t, so its conditional law given Z' = z differs between the two processes. We implement
// the bounds as published; the full-batch bounds (B.1) and pabi-strongly-convex do not involve
// sampling.
#include <cstdint>

#include "analyses/analysis.hpp"

namespace rdpdyn {
namespace altschuler_talwar {

/// A&T's parameters (their Sec. 1.2, Noisy-SGD; Sec. 3.2, Step 1).
struct Setting {
  double sigma = 0.0;      ///< A&T noise: per-step noise eta sigma (noise_units::at_sigma_from_c21)
  double eta = 0.0;        ///< step size
  double shift = 0.0;      ///< per-record gradient-difference bound: A&T's 2L (replace), L (remove) = S_g
  double diameter = 0.0;   ///< D, diameter of the constraint set K
  double n = 0.0;          ///< dataset size
  double batch = 0.0;      ///< b (= n for full batch)
  std::int64_t steps = 0;  ///< T
};

/// C21 TrainingRun -> A&T Setting: sigma_AT = sigma sqrt(2/eta), shift = S_g, b = n for full batch,
/// D = diameter (0 if absent).
Setting setting_of(const TrainingRun& run);

/// Contraction factor of w -> w - eta grad f for an m-strongly convex, M-smooth f:
/// max(|1 - eta m|, |1 - eta M|) (standard; A&T Lemma 5.3 is the case eta = 2/(M+m), where it equals
/// (kappa - 1)/(kappa + 1)). < 1 iff 0 < eta < 2/M and m > 0.
double contraction_factor(double eta, double m, double M);

/// (B.1), full batch, convex (App. B.1):
///   alpha/(2 eta^2 sigma^2) min{ T s^2, min_{k in 1..T} k (Dt/k + s)^2 },
/// s = eta shift / n, Dt = D + s. The inner minimum is over the integers next to Dt/s (App. B.1,
/// "Numerical computation").
double bound_b1(const Setting& setting, double alpha);

/// Result of (B.2)/(B.3): the bound and where it was attained.
struct SplitBound {
  double value = 0.0;       ///< the bound on R_alpha (nats)
  bool linear = true;       ///< the T S_alpha(b/n, b sigma/shift) branch (no noise split) won
  double sigma1 = 0.0;      ///< PABI share of the noise (sigma1^2 + sigma2^2 = sigma^2), if !linear
  std::int64_t window = 0;  ///< T~ = T - tau - 1, the PABI window, if !linear
};

/// (B.2), mini-batch, convex (App. B.2): min{ T S_alpha(q, b sigma/shift),
///   min_{sigma1} [ Q + min_{k in 1..T-1} (k Q + alpha D^2 / (2 eta^2 sigma1^2 k)) ] },
/// Q = S_alpha(q, b sigma2 / shift), q = b/n. sigma1 by a 200-point grid plus golden-section
/// refinement (A&T suggest a ternary search; unimodality is not proven, so the grid is kept); k at
/// the integers next to sqrt(A/Q), A = alpha D^2/(2 eta^2 sigma1^2) (App. B.2), capped at T-1.
SplitBound bound_b2(const Setting& setting, double alpha);

/// (B.3), strongly convex (App. B.3), with contraction factor c in [0, 1): as (B.2) with the PABI
/// term A (1 - c^2) / (c^{-2k} - 1) (footnote 11) and k next to sc_window(Q, A, c).
SplitBound bound_b3(const Setting& setting, double alpha, double c);

/// First-order optimal T~ of k Q + A (1-c^2)/(c^{-2k} - 1) over real k (App. B.3, below (B.3), with
/// [FIX] (1 - c^2) for the printed (1 - c)^2, docs/analyses.md section 3.3): x = c^{-2k} solves
/// x^2 - (2 + g) x + 1 = 0, g = 2 A (1 - c^2) |log c| / Q; k = log(x) / (2 |log c|). c in (0, 1).
double sc_window(double Q, double A, double c);

/// Thm 5.6 (Noisy-CSGD, cyclic batches), the display (5.6) of its proof (Sec. 5.2) with the proof's
/// shifts a_t, the record in batch j (1-based) of N = n/b, a window of W steps (a multiple of N) that
/// ends at T:
///   alpha/(2 eta^2 sigma^2) [ (j-1) x^2 + (W - N)(x + s)^2 + (N-j+1)(x + u/(N-j+1))^2 ],
/// u = eta shift/b (the record's shift, s_t of the proof), s = u/N = eta shift/n, x = z0/W with z0 the
/// distance the window starts from: D~ = D + u (Obs. 5.7) when the window starts after step 0, 0 when
/// it is the whole run (same start).
double thm56_window(const Setting& setting, double alpha, std::int64_t j, std::int64_t window, double z0);

/// Result of Thm 5.6: the bound and where it was attained.
struct CyclicBound {
  double value = 0.0;
  std::int64_t window = 0;  ///< W: T when the whole run is the window (tau = 0), else the proof's T-bar
  bool whole_run = true;    ///< tau = 0 (z0 = 0) attained the minimum
};

/// Thm 5.6 (A&T Sec. 5.2, proof): the worst batch position (the last, j = N: the record's final use
/// comes last) of thm56_window, minimised over the two windows of the theorem's min{T, T-bar}: the
/// whole run (tau = 0, z0 = 0; the (5.4) case) and, when T exceeds it, the proof's window T-bar =
/// ceil(D n / (L eta)) (L = shift/2) rounded up to a multiple of N (the "floors/ceilings" the proof
/// leaves), started at distance D~. Needs b | n and T a multiple of N.
CyclicBound bound_thm56(const Setting& setting, double alpha);

/// Strongly convex full-batch PABI ([DERIVED] from A&T Prop. 5.4 with tau = 0,
/// z_0 = 0, s_t = s = eta shift / n, optimal a_t proportional to c^{T-t}):
/// alpha s^2/(2 eta^2 sigma^2) (1 + c)(1 - c^T) / ((1 - c)(1 + c^T)). No diameter, no noise split.
/// Derivation: docs/analyses.md, "pabi-strongly-convex".
double pabi_sc_full_batch(const Setting& setting, double alpha, double c);

}  // namespace altschuler_talwar

/// "altschuler-talwar-b1": (B.1) for a full-batch run; needs a diameter, a convex loss, a known
/// smoothness beta with eta <= 2/beta.
AnalysisResult altschuler_talwar_b1(const TrainingRun& run);

/// "altschuler-talwar-b2": (B.2) for sampling = per-step (uniform size-b batches drawn afresh at every
/// step, A&T Sec. 1.2 and eq. (3.1)) or full batch (b = n, q = 1); diameter, convex,
/// eta <= 2/beta; replace adjacency for b < n.
AnalysisResult altschuler_talwar_b2(const TrainingRun& run);

/// "altschuler-talwar-b3": (B.3), as (B.2) plus lambda > 0, lambda <= beta, eta < 2/beta;
/// c = max(|1 - eta lambda|, |1 - eta beta|).
AnalysisResult altschuler_talwar_b3(const TrainingRun& run);

/// "altschuler-talwar-thm5.6": Thm 5.6 for cyclic batches (sampling = partition, or shuffle-once:
/// given the draw a fixed cyclic order) with b | n and whole epochs; diameter, convex, eta <= 2/beta,
/// replace adjacency.
AnalysisResult altschuler_talwar_thm56(const TrainingRun& run);

/// "pabi-strongly-convex": the derived strongly convex full-batch PABI bound above; full batch,
/// lambda > 0, lambda <= beta, eta < 2/beta; no diameter needed.
AnalysisResult pabi_strongly_convex(const TrainingRun& run);

}  // namespace rdpdyn

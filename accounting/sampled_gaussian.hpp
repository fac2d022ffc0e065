#pragma once
// Rényi divergence of the sampled Gaussian mechanism (SGM): a Gaussian of standard deviation sigma
// (in units of the sensitivity) added to a query whose differing record is present with
// probability q. Mironov, Talwar & Zhang 2019, "Rényi Differential Privacy of the Sampled Gaussian
// Mechanism" (arXiv:1908.10530, "MTZ19"); Altschuler & Talwar 2022 (arXiv:2205.13710) Def. 2.10.
//
// What is computed is MTZ19's A_alpha, the standard SGM value used by privacy libraries:
//   A_alpha(q, sigma) = E_{x ~ N(0, sigma^2)} [ ((1-q) + q exp((2x - 1)/(2 sigma^2)))^alpha ]
//                     = exp((alpha-1) D_alpha(mix || N(0, sigma^2))),
//   mix = (1-q) N(0, sigma^2) + q N(1, sigma^2),   S_alpha = log(A_alpha) / (alpha - 1).
// A&T's Def. 2.10 is the other direction, D_alpha(N(0, sigma^2) || mix) (MTZ19's B_alpha), and
// MTZ19 Sec. 3 shows A_alpha >= B_alpha; so S_alpha below is the standard SGM RDP and a valid,
// slightly conservative value for A&T's S_alpha (at (q, sigma, alpha) = (0.1, 2, 10): A 0.018624,
// B 0.011120; tests/accounting/test_sampled_gaussian.cpp).
namespace rdpdyn {

/// The largest order evaluated: the expansions sum about alpha terms (10^6 take about 30 ms).
inline constexpr double kMaxSeriesOrder = 1e6;

/// How log A_alpha is expanded. Automatic: Binomial for integer alpha, TwoSeries otherwise.
enum class SgmExpansion { Automatic, Binomial, TwoSeries };

/// log A_alpha(q, sigma) = (alpha - 1) S_alpha(q, sigma), nats. q in [0, 1], sigma > 0 finite,
/// alpha > 1 finite; Binomial needs integer alpha. Throws std::invalid_argument otherwise, and
/// std::runtime_error for alpha > kMaxSeriesOrder or if the two-series expansion does not converge.
double sampled_gaussian_log_moment(double q, double sigma, double alpha,
                                   SgmExpansion expansion = SgmExpansion::Automatic);

/// S_alpha(q, sigma) = log A_alpha(q, sigma) / (alpha - 1), nats (A&T Def. 2.10, MTZ19 A_alpha).
/// q = 0 gives 0; q = 1 gives the Gaussian mechanism alpha / (2 sigma^2).
double sampled_gaussian_rdp(double q, double sigma, double alpha, SgmExpansion expansion = SgmExpansion::Automatic);

/// Relative accuracy bound of sampled_gaussian_rdp at order alpha, for outward rounding
/// (docs/math.md section 6): 4e-13 / (alpha - 1) + 64 u. The series are truncated and (for
/// fractional orders) Euler-accelerated, so their error grows as alpha approaches 1, where the
/// tails decay slowly. Measured against 50-digit quadrature of the defining integral
/// (tests/accounting/test_sampled_gaussian.cpp, "accuracy bound"; q in [1e-4, 0.5], sigma in [0.5, 4],
/// alpha from 1.0001 to 2.5): the error never exceeded 0.08 of this bound (2.6e-10 at
/// alpha = 1.0001, 3e-11 at 1.001, 2.5e-12 at 1.01, 1.1e-13 at 1.1, 1.3e-14 at 1.5).
double sampled_gaussian_relative_error_bound(double alpha);

/// S_alpha raised by its accuracy bound (outward rounding; for q = 1, the Gaussian closed form, by
/// 8 u): an upper bound of the exact S_alpha.
double sampled_gaussian_rdp_upper(double q, double sigma, double alpha);

}  // namespace rdpdyn

#pragma once
// Gaussian differential privacy (mu-GDP; Dong, Roth & Su 2022, JRSS B, arXiv:1905.02383) and its
// exact (epsilon, delta) profile (docs/math.md section 4.1).
//
// A mechanism is mu-GDP when telling its outputs on neighbouring datasets apart is at least as
// hard as telling N(0, 1) from N(mu, 1) (DRS Def. 2.6). Three facts are used:
//  - the profile, exact (DRS Cor 2.13): mu-GDP holds iff (epsilon, delta(epsilon))-DP holds for
//    every epsilon >= 0, delta(epsilon) = Phi(-epsilon/mu + mu/2) - e^epsilon Phi(-epsilon/mu - mu/2);
//  - composition (DRS Cor 3.3): mu_1-GDP then mu_2-GDP (adaptively) is sqrt(mu_1^2 + mu_2^2)-GDP;
//  - Rényi: a mu-GDP pair is a post-processing of (N(mu, 1), N(0, 1)) (Blackwell's theorem, DRS
//    Thm 2.10), so by data processing R_alpha <= D_alpha(N(mu,1) || N(0,1)) = alpha mu^2 / 2.
// The conversion is exact, so it loses nothing; every RDP -> (epsilon, delta) conversion loses
// something on Gaussian laws (docs/analyses.md, "Gaussian-DP entries").
#include <span>

namespace rdpdyn {

/// delta(epsilon) of mu-GDP (DRS Cor 2.13), evaluated without cancellation or underflow: with
/// a = epsilon/mu - mu/2, b = a + mu and the Mills ratio m(x) = Phi(-x)/phi(x),
/// e^epsilon phi(b) = phi(a), so delta = phi(a) (m(a) - m(b)) (the form used for a >= 1).
/// mu >= 0 (0: delta = 0), epsilon >= 0 finite; throws std::invalid_argument otherwise.
/// Relative error about u (a/mu + a^2) with u = 2^-53 (the difference m(a) - m(b) cancels for small
/// mu, and ln delta ~ -a^2/2 is exponentiated; tests/accounting/test_gaussian_dp.cpp checks it
/// against 50-digit mpmath values); +infinity mu gives 1.
double gdp_delta(double mu, double epsilon);

/// ln delta(epsilon), finite where delta underflows (down to about -1e300).
double gdp_log_delta(double mu, double epsilon);

/// delta(epsilon) of mu-GDP rounded outward: never below the exact value (ln delta raised by the
/// evaluation's error bound, the one gdp_epsilon certifies with, then exponentiated and moved one
/// double up), and never above delta(0) <= mu / sqrt(2 pi), which also answers where the two
/// terms of the profile cancel too much to be evaluated (tiny mu). At most 1. Same domain as
/// gdp_delta.
double gdp_delta_upper(double mu, double epsilon);

/// The smallest epsilon >= 0 with delta(epsilon) <= delta for mu-GDP, rounded outward: the value
/// returned is an upper bound of the exact one (TOMS 748 on ln delta(epsilon) - ln delta, the
/// target lowered by the evaluation's error bound, the feasible bracket end, one double up).
/// 0 when delta(0) = 2 Phi(mu/2) - 1 <= delta already. mu >= 0 (+infinity: +infinity),
/// delta in (0, 1); throws std::invalid_argument otherwise.
double gdp_epsilon(double mu, double delta);

/// The smallest epsilon >= 0 with Avg_j delta_{mu_j}(epsilon) <= delta, rounded outward: the
/// (epsilon, delta) of a uniform mixture over j of pairs that are mu_j-GDP, with the same mixing on
/// both sides (hockey-stick divergences are jointly convex, so the mixture's delta(epsilon) is at
/// most the average). Bisection on a certified average (each term's error bound, the sum's rounding)
/// from the certified end gdp_epsilon(max mu_j, delta). Empty mus: 0. Each mu_j >= 0, delta in (0, 1);
/// throws std::invalid_argument otherwise.
double gdp_mixture_epsilon(std::span<const double> mus, double delta);

/// R_alpha <= alpha mu^2 / 2 for a mu-GDP mechanism (DRS Thm 2.10 and data processing; above).
double gdp_rdp(double mu, double alpha);

/// mu of the composition of mechanisms with parameters mu_i: sqrt(sum mu_i^2) (DRS Cor 3.3).
double gdp_compose(double mu_a, double mu_b);

/// The Mills ratio m(x) = Phi(-x)/phi(x) (phi, Phi the standard normal density and cdf), for any
/// real x; relative error a few 1e-16 (erfc below x = 3, Laplace's continued fraction above).
double normal_mills_ratio(double x);

}  // namespace rdpdyn

#pragma once
// The zCDP route to (epsilon, delta)-DP (docs/math.md section 4.3; docs/analyses.md section 4).
//
// A mechanism whose Rényi divergence is R(alpha) <= rho alpha at every order alpha > 1 is rho-zCDP
// (Bun & Steinke 2016, arXiv:1605.02065, Def. 1.1 with xi = 0). Two certificates follow from that
// alone (the mechanism need not be Gaussian, so the exact mu-GDP profile does not apply):
//  - Bun & Steinke 2016 Prop. 1.3 (Lemma 3.5 with xi = 0): epsilon = rho + 2 sqrt(rho ln(1/delta)).
//    It is Mironov's conversion (Prop. 3 of Mironov 2017) at its best order 1 + sqrt(ln(1/delta)/rho),
//    hence never below the improved conversion minimised over all orders;
//  - Canonne, Kamath & Steinke 2020 (arXiv:2004.00010 v4) Cor. 13: delta = inf over alpha > 1 of
//    the improved conversion (their Prop. 12) of R = rho alpha. epsilon_zcdp minimises over an
//    order range wide enough to contain the minimiser for any rho (not only [1.001, 1e4]), with
//    the single-order conversions of accounting/epsilon_delta.hpp at each order (Best).
// The route adds something beyond the order-free minimisation of accounting/epsilon_over_orders.hpp
// only when the best order leaves [1.001, 1e4] (rho < about 1e-8 ln(1/delta)); docs/analyses.md
// section 4 gives the measurement.
#include "accounting/epsilon_delta.hpp"

namespace rdpdyn {

/// Bun & Steinke 2016 Prop. 1.3: rho + 2 sqrt(rho ln(1/delta)), rounded outward. rho >= 0
/// (+infinity: +infinity), delta in (0, 1); throws std::invalid_argument otherwise.
double epsilon_zcdp_bun_steinke(double rho, double delta);

/// The smallest of epsilon_zcdp_bun_steinke and the single-order conversions (Best) of
/// R = rho alpha minimised over alpha in [1 + 1e-3, max(1e4, 1e3 (1 + sqrt(ln(1/delta)/rho)))]
/// (CKS 2020 Cor. 13). `conversion` is Zcdp; `order` the order attaining it (the Bun & Steinke
/// order 1 + sqrt(ln(1/delta)/rho) when their closed form is the smallest; NaN for rho = 0,
/// epsilon 0). The R at an order is alpha rho rounded up (models/configured_solve.hpp).
EpsilonAtOrder epsilon_zcdp(double rho, double delta);

}  // namespace rdpdyn

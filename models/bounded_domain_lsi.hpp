#pragma once
// The LSI constant of projected noisy gradient descent on a bounded set, without convexity
// (docs/math.md section 2.7).
//
// Why: the recursion of C21 Lemmas 8 and 9 multiplies the inverse LSI constant by Lip^2 at every
// gradient map; for a non-convex loss Lip = 1 + eta m > 1 and the recursion diverges. A second
// argument holds whatever the start law: before its noise, the iterate is a gradient-mapped point of
// the constraint set, so its law is supported on a set of diameter Dg; a law of bounded support
// convolved with N(0, s^2 I) satisfies a log-Sobolev inequality with a constant that depends on
// Dg and s only (Chen, Chewi & Niles-Weed 2021, arXiv:2102.11476). The projection is 1-Lipschitz
// (C21 Lemma 8), so the next iterate keeps that constant. rdpdyn keeps the smaller of the two.
#include <optional>

namespace rdpdyn::bounded_domain {

/// An upper bound on 1/c (the LSI "variance": Ent(f^2) <= 2 (1/c) E|grad f|^2, docs/math.md
/// section 2.5) of mu * N(0, s^2 I) for any law mu supported on a set of diameter `support_diameter`,
/// `noise_variance` = s^2:
///   1/c <= s^2 [ 2 + (1 + (e^{D^2/s^2} - 1)/4) (1 + D^2/(2 s^2)) ],
/// Chen, Chewi & Niles-Weed 2021 (arXiv:2102.11476) as stated and proved in Chewi, "Log-Concave
/// Sampling", Prop. 2.3.14, with the kernel x -> N(x, s^2 I): C_LSI(P_x) = s^2 and
/// chi^2(N(x, s^2 I) || N(y, s^2 I)) = e^{|x-y|^2/s^2} - 1 <= e^{D^2/s^2} - 1. Rounded upward;
/// +infinity when it overflows (then the bound says nothing).
double mixture_inverse_lsi(double support_diameter, double noise_variance);

/// The diameter of the image of a set of diameter D under the gradient map: at most Lip D, and at
/// most D + 2 eta G when every update's gradient has norm <= G (clipped gradients; nullopt: no
/// such bound declared).
double mapped_diameter(double diameter, double lipschitz, double eta, std::optional<double> gradient_norm_bound);

}  // namespace rdpdyn::bounded_domain

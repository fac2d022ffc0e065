#pragma once
// YS22 (arXiv:2203.05363) Lemma 3.2 iterated step by step over the actual step sequence, from a
// point initialisation (R = 0, so every bound is alpha times the number returned: "units",
// R / (alpha w)). These are the unrelaxed recursions behind Thms 3.3, D.4 and D.6; the theorems
// relax them into closed forms. The derived registry entries use them (docs/analyses.md,
// "ye-shokri-thm3.3-shifted" and "ye-shokri-d6-optimal-split").
#include <cstdint>
#include <vector>

namespace rdpdyn::ye_shokri {

/// YS22 Lemma 3.2 (56) over the steps of a fixed partition, divided by alpha w: from u = 0, the
/// steps m = 0..steps-1 with m mod N = j0 add 1 (eq. (70)), the others multiply by rho_m
/// (contraction_factor, the LSI constant of Lemma D.2/D.3). Any number of steps.
double plain_recursion_units(std::int64_t N, std::int64_t steps, std::int64_t j0, double q);

/// The same recursion started at the first use of each batch, for every j0: element j0 is
/// plain_recursion_units(N, steps - j0, 0, q) (0 when steps <= j0). Valid because the steps
/// before the first use are data-independent, so the point-initialisation reduction restarts the
/// LSI sequence there (the shift argument of YS22 Thms D.4/3.3, eqs. (82), (92)); never larger
/// than plain_recursion_units(N, steps, j0, q), whose rho_m are larger.
std::vector<double> shifted_recursion_units(std::int64_t N, std::int64_t steps, double q);

/// YS22 Thm D.6's unrelaxed recursion (117)-(122) with a fraction gamma of each step's noise spent
/// on the gradient (gamma = 1/2 is the printed (122); other gamma derived, docs/analyses.md),
/// divided by alpha w (w at b = n): u <- (u + 1/gamma) (q S_k + gamma) / S_{k+1}, k = 0..K-1,
/// u_0 = 0. gamma = 1/2 gives (122)'s factor 1 - 1/(2 S_{k+1}); gamma = 1 gives composition, K.
double d6_recursion_units(std::int64_t K, double q, double gamma);

}  // namespace rdpdyn::ye_shokri

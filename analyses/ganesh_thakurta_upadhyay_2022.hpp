#pragma once
// Ganesh, Thakurta & Upadhyay 2022 ("GTU", "Langevin Diffusion: An Almost Universal Algorithm for
// Private Euclidean (Convex) Optimization", arXiv:2204.01585): the path-level Rényi bound of the
// Langevin diffusion, in their units (inverse temperature beta, gradient-difference bound Delta of the
// averaged loss, diffusion time T), and as registry analyses of a `kind = "langevin"` run (C21
// units, converted by models/noise_units.hpp: beta = 1/sigma^2, T = sigma^2 t, Delta = S_g/n, m =
// lambda). Lemma I.2 needs m-strong convexity and the start N(0, I/(beta m)): a Langevin run declares
// both by `[lsi] kind = "strongly-convex"` (models/langevin_strongly_convex.hpp).
#include "analyses/analysis.hpp"
#include "models/run_spec.hpp"

namespace rdpdyn::gtu {

/// GTU Lemma C.1 (= Lemma 1.1) at a constant beta: the trajectories' divergence, hence the last
/// iterate's, R_alpha <= alpha Delta^2 / 4 * int_0^T beta^2 dt = alpha Delta^2 beta^2 T / 4.
double lemma_c1(double alpha, double delta, double beta, double time);

/// GTU Lemma I.2 (l. 940-944 of the seed text; "implied by" C21 Cor 1): m-strongly convex losses,
/// constant beta, both runs started at N(0, I/(beta m)):
/// R_alpha(Theta_T || Theta'_T) <= alpha beta Delta^2 / m * (1 - exp(-beta m T / 2)).
double lemma_i2(double alpha, double delta, double beta, double m, double time);

}  // namespace rdpdyn::gtu

namespace rdpdyn {

/// Why a run is outside GTU's Langevin setting, or "": kind = "langevin", identical initial laws
/// (R_0 = 0), no boundary events, replace adjacency (their neighbours differ in one point).
std::string gtu_langevin_setting_failure(const RunSpec& spec);

/// "ganesh-lemma-c1": GTU Lemma C.1 on a Langevin run (any loss, with or without projection).
AnalysisResult ganesh_lemma_c1(const RunSpec& spec, const TrainingRun& run);

/// Why a Langevin run is outside Lemma I.2 beyond gtu_langevin_setting_failure, or "": it must
/// declare lsi.kind = "strongly-convex" (m = lambda, start N(0, (sigma^2/lambda) I)) and no
/// projection (the lemma is for the unconstrained diffusion (1), from an unconstrained start).
std::string gtu_lemma_i2_setting_failure(const RunSpec& spec);

/// "ganesh-lemma-i2": GTU Lemma I.2 on a strongly convex Langevin run, last iterate.
AnalysisResult ganesh_lemma_i2(const RunSpec& spec, const TrainingRun& run);

}  // namespace rdpdyn

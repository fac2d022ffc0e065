#pragma once
// Ganesh, Thakurta & Upadhyay 2022 ("GTU", "Langevin Diffusion: An Almost Universal Algorithm for
// Private Euclidean (Convex) Optimization", arXiv:2204.01585): the path-level Rényi bound of the
// Langevin diffusion, in their units (inverse temperature beta, gradient-difference bound Delta of the
// averaged loss, diffusion time T), and as registry analyses of a `kind = "langevin"` run (C21
// units, converted by models/noise_units.hpp: beta = 1/sigma^2, T = sigma^2 t, Delta = S_g/n).
// Their Lemma I.2 is not an entry: it needs m-strong convexity and the start N(0, I/(beta m)), which
// a Langevin configuration cannot declare (docs/analyses.md, "ganesh-lemma-c1").
#include "analyses/analysis.hpp"
#include "models/run_spec.hpp"

namespace rdpdyn::gtu {

/// GTU Lemma C.1 (= Lemma 1.1) at a constant beta: the trajectories' divergence, hence the last
/// iterate's, R_alpha <= alpha Delta^2 / 4 * int_0^T beta^2 dt = alpha Delta^2 beta^2 T / 4.
double lemma_c1(double alpha, double delta, double beta, double time);

}  // namespace rdpdyn::gtu

namespace rdpdyn {

/// Why a run is outside GTU's Langevin setting, or "": kind = "langevin", identical initial laws
/// (R_0 = 0), no boundary events, replace adjacency (their neighbours differ in one point).
std::string gtu_langevin_setting_failure(const RunSpec& spec);

/// "ganesh-lemma-c1": GTU Lemma C.1 on a Langevin run (any loss, with or without projection).
AnalysisResult ganesh_lemma_c1(const RunSpec& spec, const TrainingRun& run);

}  // namespace rdpdyn

#pragma once
// Liang, Zhang, He, Wu & Xing 2025, "An Improved Privacy and Utility Analysis of Differentially
// Private SGD with Bounded Domain and Smooth Losses" (arXiv:2502.17772, AAAI 2026), Thm 3.4: DP-SGD
// with clipping, projection onto a domain of size D, an L-smooth (possibly non-convex) loss.
//
// The paper's body could not be read here (its stored copies end after the introduction). The
// formula is the authors' own transcription of Thm 3.4 in their plotting scripts (HauLiang/DPSGD-DC,
// commit ae9946f, Plot_figures/plot_figure_1.py, "Ours (Theorem 3.4)"), in their units (noise
// sigma_DP on the averaged clipped gradient, clip norm C, smoothness L, T steps, batch b of n):
//   eps(alpha) = min{ 2 alpha C^2 T / (n b sigma_DP^2),
//                     min_{beta in (0,1)} 2 alpha C^2/(beta n b sigma_DP^2)
//                                         + alpha (1 + eta L)^2 D^2 / (2 eta^2 sigma_DP^2 (1 - beta)) }
// whose inner minimum is (sqrt(a) + sqrt(c))^2. Status disputed: the release term's 1/(n b) (rather
// than the worst case's 1/b^2) averages over the record's place in the batches, which Rényi
// divergence does not allow in general (docs/analyses.md, "liang-2025-thm3.4"); and whether D is a
// radius or a diameter could not be read, so D is taken as the diameter (the larger bound).
#include "analyses/analysis.hpp"

namespace rdpdyn {

namespace liang_2025 {
/// The bound in the paper's units (above): alpha, C, sigma_DP, eta, L (smoothness), D, n, b, T.
double thm3_4(double alpha, double clip, double sigma_dp, double eta, double smoothness, double diameter, double n,
              double batch, double steps);
}  // namespace liang_2025

AnalysisResult liang_thm3_4(const TrainingRun& run);

}  // namespace rdpdyn

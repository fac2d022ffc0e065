#pragma once
// Kong & Ribero 2024, "Privacy of the last iterate in cyclically-sampled DP-SGD on nonconvex composite
// losses" (arXiv:2407.05237): cyclic batches, clipping, m-weakly convex losses.
//
// The paper's body could not be read here (its stored copies end after the abstract), and its
// versions differ in their assumptions (v1: no smoothness or Lipschitz continuity; v3: small step
// and Lipschitz smoothness). The formula is the transcription in Liang et al. 2025's plotting
// scripts (HauLiang/DPSGD-DC, commit ae9946f, plot_figure_1.py, "Kong & Ribero 2024"), in their
// units (noise sigma on the averaged clipped gradient, clip norm C, smoothness L, weak convexity m,
// batch b), independent of the number of steps:
//   eps(alpha) = alpha / (2 sigma^2 eta^2) (D sqrt(1 + 2 eta m (1 + m/(2 (L + m)))) + 2 eta C / b)^2.
// Status disputed: a third party's transcription that could not be checked against the paper.
#include "analyses/analysis.hpp"

namespace rdpdyn {

namespace kong_ribero_2024 {
/// The transcribed bound in its units (above).
double transcribed_bound(double alpha, double clip, double sigma, double eta, double smoothness, double weak_convexity,
                         double diameter, double batch);
}  // namespace kong_ribero_2024

AnalysisResult kong_ribero_transcribed(const TrainingRun& run);

}  // namespace rdpdyn

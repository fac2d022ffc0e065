#pragma once
// Boundary events of a privacy program: what happens to R(alpha, .) and to the LSI constant
// between two diffusion intervals.
#include <variant>

namespace rdpdyn {

/// A data-independent L-Lipschitz map applied to both iterates (gradient map of the shared part,
/// projection onto a convex set with L = 1). Post-processing: R(alpha, t+) <= R(alpha, t-)
/// (data-processing inequality), so the bound is carried over unchanged; the LSI constant becomes
/// c / L^2 (C21 Lemma 8), i.e. the inverse constant is multiplied by L^2.
struct LipschitzMap {
  double lipschitz;
};

/// A Gaussian mechanism with l2-sensitivity `sensitivity` and noise standard deviation
/// `noise_std`, composed at this instant (Ye & Shokri 2022 Lemma 3.2, case i0 in B, eq. (70)):
/// R(alpha) increases by alpha * sensitivity^2 / (2 noise_std^2) (Mironov 2017, Prop. 7).
struct GaussianRelease {
  double sensitivity;
  double noise_std;
};

/// Re-declares the LSI constant of the current iterate law (e.g. after a re-initialisation from a
/// data-independent law, or from an external LSI argument such as C21 Lemma 5). R is unchanged.
struct LsiRestart {
  double c;
};

using StepEvent = std::variant<LipschitzMap, GaussianRelease, LsiRestart>;

}  // namespace rdpdyn

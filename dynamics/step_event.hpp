#pragma once
// Boundary events of a privacy program: what happens to R(alpha, .) and to the LSI constant
// between two diffusion intervals.
#include <algorithm>
#include <variant>

#include "dynamics/overloaded.hpp"

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

/// A bound on the inverse LSI constant of the current iterate law from an argument of its own (e.g. a
/// law supported on a bounded set and convolved with Gaussian noise, models/bounded_domain_lsi.hpp):
/// 1/c -> min(1/c, inverse_lsi). Both bounds hold, so the smaller is kept. R is unchanged.
struct InverseLsiCap {
  double inverse_lsi;
};

using StepEvent = std::variant<LipschitzMap, GaussianRelease, LsiRestart, InverseLsiCap>;

// Every consumer dispatches on a StepEvent with std::visit and one overload per alternative, no
// default branch: a new kind of event fails to compile until each consumer decides what it costs
// (a default "0" would count a new event as free privacy).

/// The jump of w = R/alpha an event causes: Delta^2 / (2 s^2) for a Gaussian release (the same at
/// every order); post-processing (a Lipschitz map) and a restart of the LSI constant cost nothing.
inline double rdp_slope_jump(const StepEvent& event) {
  return std::visit(Overloaded{[](const GaussianRelease& g) {
                                 return g.sensitivity * g.sensitivity / (2.0 * g.noise_std * g.noise_std);
                               },
                               [](const LipschitzMap&) { return 0.0; },  // data-processing inequality
                               [](const LsiRestart&) { return 0.0; },    // R unchanged by declaration
                               [](const InverseLsiCap&) { return 0.0; }},
                    event);
}

/// Whether the event is a released Gaussian (the record's privacy is spent there).
inline bool is_release(const StepEvent& event) {
  return std::visit(Overloaded{[](const GaussianRelease&) { return true; }, [](const LipschitzMap&) { return false; },
                               [](const LsiRestart&) { return false; }, [](const InverseLsiCap&) { return false; }},
                    event);
}

/// Updates the inverse LSI constant 1/c through an event: times L^2 for a Lipschitz map (C21
/// Lemma 8), 1/c' for a restart, the smaller of the two bounds for a cap, unchanged for a Gaussian
/// release.
inline void update_inverse_lsi(double& inverse_lsi, const StepEvent& event) {
  std::visit(Overloaded{[&](const LipschitzMap& m) { inverse_lsi *= m.lipschitz * m.lipschitz; },
                        [&](const LsiRestart& r) { inverse_lsi = 1.0 / r.c; },
                        [&](const InverseLsiCap& cap) { inverse_lsi = std::min(inverse_lsi, cap.inverse_lsi); },
                        [](const GaussianRelease&) {}},  // adds noise of its own only to the released copy
             event);
}

}  // namespace rdpdyn

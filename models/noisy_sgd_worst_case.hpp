#pragma once
// The PDI bound for noisy mini-batch GD: the worst case over where the differing record falls.
//
// Rényi divergence is jointly quasi-convex (van Erven & Harremoes 2014, Thm 13), so a bound that
// holds for every placement of the differing record in the batches also holds for the random
// placement (the laws of the last iterate are mixtures over placements with the same weights on
// both sides). Per sampling scheme:
//  - partition and shuffle-once: fixed batches (given the draw), unknown position of the
//    record's batch: the maximum over the n/b positions (each solved by the run's engine, which
//    must keep linear data exact for the shuffle case: the characteristics engine);
//  - shuffle: a new position every epoch: epoch by epoch, the maximum over positions of the
//    epoch's map applied to the current bound (the maps are monotone), which bounds every
//    sequence of positions; data linear in alpha (R_0 = kappa alpha) keep it exact per epoch;
//  - per-step and poisson: the record may be in every batch: a release at every step (for Poisson
//    the release of sensitivity eta S_g / b, b = q n the expected batch size).
#include "dynamics/solution.hpp"
#include "models/run_spec.hpp"
#include "solver/engine.hpp"

namespace rdpdyn {

/// Solves the worst case with `engine`; records as `settings.record` asks (shuffle: at epoch ends only).
Solution solve_noisy_sgd_worst_case(const RunSpec& spec, const Engine& engine, const EngineSettings& settings);

}  // namespace rdpdyn

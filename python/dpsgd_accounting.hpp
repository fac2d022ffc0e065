#pragma once
// DP-SGD accounting in the privacy libraries' conventions (opacus RDPAccountant, Google's
// dp_accounting RdpAccountant): Poisson sampling with rate q, add/remove adjacency, noise
// multiplier z = noise std / clipping norm, T steps. The run is the accounting-only configuration
// of examples/dpsgd_accounting.toml, checked by the configuration reader (io/config.hpp) and evaluated by the
// registry's `composition-sgm` (Mironov, Talwar & Zhang 2019, arXiv:1908.10530, composed over the steps), epsilon by
// Balle et al. 2020 (arXiv:1905.09982) Thm 21 minimised over the given orders, as opacus' get_privacy_spent does.
// The certified route (the default of the Python functions): the registry's `composition-pld`, the
// privacy loss distribution of the run's dominating pairs composed by FFT (docs/pld.md), epsilon at
// delta and delta at epsilon as `compare` reports them, under add/remove or replace-one adjacency
// (replace: clipped gradients, |g| <= C, the pair of dp_accounting's REPLACE_ONE).
// Nothing is computed here that `compare` and `calibrate` do not.
#include <cstdint>
#include <vector>

#include "accounting/epsilon_delta.hpp"

namespace rdpdyn::python {

/// opacus' RDPAccountant.DEFAULT_ALPHAS: 1.1, 1.2, ..., 10.9, then 12, 13, ..., 63.
std::vector<double> library_default_orders();

/// epsilon of T steps at delta, minimised over `orders` (the best order with it). SpecError
/// naming the argument (sampling_rate, noise_multiplier, steps, delta, orders) for bad input.
EpsilonAtOrder dpsgd_epsilon(double sampling_rate, double noise_multiplier, std::int64_t steps, double delta,
                             const std::vector<double>& orders);

struct NoiseMultiplier {
  double noise_multiplier;  ///< the smallest (to 1e-9 relative) meeting the target
  EpsilonAtOrder achieved;  ///< its epsilon (<= the target) and order
};

/// The smallest noise multiplier whose epsilon over `orders` is at most `epsilon` (calibrate
/// --for noise_multiplier --analysis composition-sgm on the configured orders only).
NoiseMultiplier dpsgd_noise_multiplier(double sampling_rate, std::int64_t steps, double epsilon, double delta,
                                       const std::vector<double>& orders);

/// Neighbouring datasets of the certified route: a record added or removed, or one replaced
/// (gradients clipped at C, so the two records' gradients are within 2C of each other and each <= C).
enum class DpsgdAdjacency { AddRemove, Replace };

/// composition-pld's certified epsilon at delta (an upper bound; +infinity where no certificate
/// fits the grid limit). SpecError naming the argument for bad input.
double dpsgd_pld_epsilon(double sampling_rate, double noise_multiplier, std::int64_t steps, double delta,
                         DpsgdAdjacency adjacency);

/// composition-pld's certified delta at epsilon >= 0 (an upper bound).
double dpsgd_pld_delta(double sampling_rate, double noise_multiplier, std::int64_t steps, double epsilon,
                       DpsgdAdjacency adjacency);

/// The smallest noise multiplier whose certified PLD epsilon is at most `epsilon` (calibrate --for
/// noise_multiplier --analysis composition-pld), with that epsilon.
NoiseMultiplier dpsgd_pld_noise_multiplier(double sampling_rate, std::int64_t steps, double epsilon, double delta,
                                           DpsgdAdjacency adjacency);

}  // namespace rdpdyn::python

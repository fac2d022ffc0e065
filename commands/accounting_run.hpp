#pragma once
// A run as the DP-SGD accounting libraries describe it: phases of Poisson-sampled (or unsampled)
// Gaussian steps, each with its sampling rate, DP-SGD noise multiplier and count, under one
// neighbouring relation; or phases of batches of fixed size drawn without replacement (dp_accounting's
// SampledWithoutReplacementDpEvent, replace-one neighbours). The exchange form of `compare --from-opacus`,
// `--from-dp-event` and `export-dp-event` (io/dp_event_json.hpp reads and writes it).
#include <cstdint>
#include <vector>

#include "models/run_config.hpp"

namespace rdpdyn {

struct AccountingPhase {
  double sampling_rate = 1.0;     ///< q (1: every record in every step, a Gaussian step)
  double noise_multiplier = 0.0;  ///< DP-SGD multiplier m: noise std m C on the sum of clipped gradients
  std::int64_t steps = 0;
  /// Batches of sample_size records drawn without replacement from dataset_size at every step
  /// (sampling = "per-step", replace-one neighbours); 0 for Poisson and unsampled phases.
  std::int64_t dataset_size = 0;
  std::int64_t sample_size = 0;
  bool without_replacement() const { return sample_size > 0; }
};

struct AccountingRun {
  std::vector<AccountingPhase> phases;
  bool add_remove = true;  ///< the neighbouring relation: add/remove one record, else replace one
};

/// The accounting form of a configured run: a Poisson-sampled noisy-sgd run (its phases, each
/// with its own rate and multiplier), a per-step noisy-sgd run under replace adjacency (b of n drawn
/// without replacement) or a full-batch noisy-gd run (q = 1). SpecError naming the key
/// for what the form cannot hold: fixed-size batches, events, an initial divergence, Langevin and
/// pdi runs, phases whose steps do not depend on the record.
AccountingRun accounting_run_of(const RunConfig& config);

}  // namespace rdpdyn

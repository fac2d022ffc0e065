#pragma once
// The terms a run's numbers are for: the neighbouring relation, the sampling and the user level,
// each marked when the configuration did not write it (issue 37: leaving out [domain] on a DP-SGD
// run used to give 7.6x the ecosystem's epsilon without a word). Every summary names them: the
// table of `compare`, `solve` and `calibrate`, their JSON and HDF5, and the Python objects.
#include <cstdint>
#include <string>

#include "models/run_spec.hpp"

namespace rdpdyn {

struct RunTerms {
  std::string adjacency;              ///< domain.adjacency's name ("replace", "add-remove", "zero-out")
  bool adjacency_by_default = false;  ///< not written: rdpdyn's default (replace-one) was taken
  std::string sampling;               ///< in words, with its rate: "Poisson sampling, q = 0.01"
  std::int64_t records_per_user = 1;
  bool records_per_user_by_default = false;
  /// Non-empty for a DP-SGD run (Poisson or per-step batches stated with a noise multiplier) that
  /// took the replace-one default: how to get the number opacus, dp_accounting and
  /// tensorflow/privacy give (they count add/remove neighbours).
  std::string ecosystem_hint;
};

/// The terms of `spec` (every kind but "pdi", whose sensitivities are declared directly: there the
/// relation is the user's, and `adjacency` is empty).
RunTerms run_terms(const RunSpec& spec);

/// One line: "for replace-one neighbours (default), Poisson sampling q = 0.01, one record per user
/// (default)"; empty for a "pdi" run.
std::string run_terms_line(const RunTerms& terms);

}  // namespace rdpdyn

#pragma once
// `rdpdyn compare`: every analysis whose assumptions hold for the configured run, side by side,
// with the reason each other one does not apply, epsilon at the requested delta and the tightest
// valid bound.
#include <mpi.h>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "io/config.hpp"
#include "models/training_run.hpp"

namespace rdpdyn {

struct ComparisonEntry {
  AnalysisResult result;
  double epsilon = 0.0;     ///< at the report delta (improved conversion, best order); NaN without delta
  double best_order = 0.0;  ///< the order attaining epsilon
};

struct Comparison {
  std::vector<double> orders;
  std::optional<double> delta;
  std::vector<ComparisonEntry> entries;  ///< every analysis, in the stable order of the catalogue
  std::string best_name;                 ///< the valid analysis with the smallest epsilon (or R at the largest order)
  std::vector<double> best_R;            ///< pointwise minimum over the valid analyses
  double best_epsilon = 0.0;
  double best_order = 0.0;
  /// For a quadratic loss: the exact divergence of the worst pair (a lower bound every valid
  /// analysis must respect), else empty.
  std::vector<double> exact_R;
};

/// Evaluates every analysis (the `pdi` entry runs the configured engine; collective over `comm`
/// for the finite-difference engine).
Comparison run_comparison(const RunConfig& config, MPI_Comm comm = MPI_COMM_WORLD);

/// {"orders": [...], "delta": d, "analyses": [{"name", "applies", "reason", "citation", "R", "epsilon",
/// "best_order"}...], "best": {"name", "R", "epsilon", "best_order"}, and for a quadratic loss
/// "exact": {"name": "quadratic-exact", "R"}}
std::string comparison_to_json(const Comparison& comparison);

/// A table: analysis, applies / reason, R at each order, epsilon; the tightest valid one marked.
std::string comparison_table(const Comparison& comparison);

/// HDF5 (atomically): /orders, /analyses/<name> (R per order; attributes applies, reason,
/// citation, epsilon, best_order), /best/R (attributes name, epsilon, best_order), root
/// attributes as for `solve` plus delta.
void write_comparison_hdf5(const std::filesystem::path& path, const Comparison& comparison,
                           const RunConfig& config);

}  // namespace rdpdyn

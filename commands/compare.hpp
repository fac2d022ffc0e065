#pragma once
// `rdpdyn compare`: every registered analysis of the configured run side by side (analyses/
// registry.cpp), with its status, the reason each one that does not apply gives, epsilon at the
// requested delta and the tightest bound among the trusted ones.
#include <optional>
#include <string>
#include <vector>

#include "analyses/analysis.hpp"
#include "models/known_constants.hpp"
#include "models/run_config.hpp"
#include "solver/engine.hpp"

namespace rdpdyn {

struct ComparisonEntry {
  AnalysisResult result;
  AnalysisStatus status = AnalysisStatus::Published;  ///< for this run
  std::string status_note;  ///< disputed: where the gap is; derived: where the derivation is
  double epsilon = 0.0;     ///< at the report delta (improved conversion, best order); NaN without delta
  double best_order = 0.0;  ///< the order attaining epsilon
};

struct Comparison {
  std::vector<double> orders;
  std::optional<double> delta;
  std::vector<ComparisonEntry> entries;  ///< every analysis, in the stable order of the registry
  bool include_disputed = false;         ///< [report] include_disputed: disputed entries may be best
  std::string best_name;                 ///< the eligible valid analysis with the smallest epsilon (or R at the largest order)
  AnalysisStatus best_status = AnalysisStatus::Published;
  std::vector<double> best_R;            ///< pointwise minimum over the eligible valid analyses
  double best_epsilon = 0.0;
  double best_order = 0.0;
  /// For a quadratic loss: the exact divergence of the worst pair (a lower bound every valid
  /// analysis must respect), else empty.
  std::vector<double> exact_R;
  /// Which constants the user vouches for and which the tool derived or checked.
  ConstantProvenance constants;
};

/// Whether an entry may enter `best`: published and derived always, disputed only when included.
bool eligible_for_best(AnalysisStatus status, bool include_disputed);

/// Evaluates every registered analysis (the `pdi` entry runs the configured engine from
/// `engines`; collective over its communicator for the finite-difference engine).
Comparison run_comparison(const RunConfig& config, const EngineRegistry& engines);

}  // namespace rdpdyn

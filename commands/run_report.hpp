#pragma once
// Everything one `rdpdyn solve` produces: the solution grid, the closed forms evaluated on the
// same grid, and the metadata that makes the output self-describing. Written by hdf5_output and
// json_output; read back by read_report_hdf5 (tests, round trips).
#include <map>
#include <string>
#include <vector>

#include "commands/run_terms.hpp"
#include "dynamics/solution.hpp"
#include "solver/engine.hpp"
#include "analyses/closed_form_curves.hpp"

namespace rdpdyn {

struct RunMetadata {
  std::string config_text;  ///< the TOML configuration, verbatim
  std::string config_path;
  std::string program_version;  ///< rdpdyn version
  std::string engine;           ///< "characteristics"
  std::string gamma_mode;       ///< "fixed", "optimal" or "per-step"
  std::string algorithm;        ///< "noisy-gd" or "langevin"
  std::string lsi_model;        ///< "constant", "strongly-convex", "recursion", ...
  std::string initial_curve;    ///< "zero", "linear", "power", "table", "function"
  std::string method;           ///< how the solution was computed and how its accuracy is controlled
  /// "key = value (why)" per constant the user vouches for and the tool cannot check (generic
  /// loss), and per constant derived or checked from what the run defines
  /// (models/known_constants.hpp). HDF5: root attributes, one entry per line.
  std::vector<std::string> declared_constants;
  std::vector<std::string> derived_constants;
  /// The neighbouring relation, sampling and user level the numbers are for (commands/run_terms.hpp).
  RunTerms terms;
  /// What R is where `compare` reports another quantity for the same run (issue 37: one file, two
  /// epsilons): batches in a partition or shuffled, where solve takes the worst placement of the
  /// differing record and compare's pdi may average over the placements; else empty.
  std::string quantity;
};

/// A streamed row series read back (same shape as Solution::R).
struct RowSeries {
  std::string name;
  std::string description;
  std::string units;
  std::vector<double> values;  ///< row-major, records x orders
};

struct RunReport {
  Solution solution;
  std::vector<ClosedFormCurves> closed_forms;
  RunMetadata metadata;
  // Engine-specific extras (HDF5 schema >= 2, group /extras); JSON output ignores them.
  std::vector<RowSeries> row_series;
  std::vector<PerOrderVector> per_order;
  std::map<std::string, std::string> extra_attributes;  ///< extra root string attributes
};

/// Units written to the outputs (C21 conventions).
inline constexpr const char* kUnitsRdp = "nats (Renyi divergence R_alpha, natural log)";
inline constexpr const char* kUnitsTime = "C21 continuous time: each noisy-GD step lasts eta";
inline constexpr const char* kUnitsOrder = "Renyi order alpha (dimensionless, > 1)";
/// One version for the files of solve, compare and sweep (docs/hdf5.md, "Schema versioning"):
/// 2 added /extras; 3 the root attribute `command` and the common root attributes in compare and
/// sweep files; 4 delta at [report] epsilon (solve, compare) and the PLD entries' curves (compare);
/// 5 compare's /analyses/<name> over the orders (NaN where an entry does not apply).
inline constexpr int kHdf5SchemaVersion = 5;

}  // namespace rdpdyn

#pragma once
// `rdpdyn solve`: configuration -> privacy program -> engine -> closed forms -> report, with every
// record and its closed forms streamed to an optional sink (the HDF5 writer of io/) as it is produced.
#include <map>
#include <span>
#include <string>
#include <vector>

#include "commands/run_report.hpp"
#include "models/run_config.hpp"
#include "solver/engine.hpp"

namespace rdpdyn {

/// Where the records of a solve go while it runs (e.g. io/hdf5_output.hpp's stream): each record
/// with the closed forms evaluated at it, so nothing accumulates over the records.
class ReportSink {
 public:
  virtual ~ReportSink() = default;
  virtual void begin(const RunMetadata& metadata, std::span<const double> orders,
                     const std::vector<RowSeriesSpec>& row_series,
                     const std::vector<ClosedFormLabel>& closed_forms) = 0;
  /// `closed_forms`: one row per label given to begin(), in that order.
  virtual void record(const EngineRecord& row, const std::vector<std::span<const double>>& closed_forms) = 0;
  virtual void finish(const std::vector<PerOrderVector>& per_order,
                      const std::map<std::string, std::string>& attributes) = 0;
};

/// The metadata of the outputs of a configured run (engine, gamma, model, method).
RunMetadata metadata_of(const RunConfig& config, const Engine& engine);

/// Solves the configured run with the engine it names. The returned report holds the final record
/// only (solution and closed forms), the metadata and the engine's per-order vectors and
/// attributes. `sink` (may be null; pass it on the writing rank only) receives every record with
/// its closed-form rows, evaluated as the record arrives.
/// Throws SpecError for input that the models or engines refuse.
/// `progress` (may be empty) follows the engine's steps.
RunReport solve_run(const RunConfig& config, const EngineRegistry& engines, ReportSink* sink = nullptr,
                    const StepProgress& progress = {});

}  // namespace rdpdyn

#pragma once
// HDF5 output of a run report (schema version kHdf5SchemaVersion; layout in docs/hdf5.md).
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "commands/run_report.hpp"
#include "commands/solve.hpp"

namespace rdpdyn {

/// Writes a report record by record, so a long solve holds one row in memory, not all of them.
/// Written by one process (rank 0) with the default sec2 driver. Every failure throws
/// std::runtime_error naming the target path; an HDF5 failure also discards the stream (later
/// calls throw). Until finish() succeeds nothing appears at the target path, and an existing
/// file there is untouched.
class Hdf5ReportStream {
 public:
  /// Creates a temporary sibling of `path` (nothing appears at `path` until finish()), writes
  /// /orders, the root metadata attributes, and creates the extendible (chunked) datasets
  /// /t, /step, /lsi_constant, /R, /extras/<name> for each row series and /closed_forms/<name>
  /// for each closed form.
  Hdf5ReportStream(std::filesystem::path path, std::vector<double> orders, const RunMetadata& metadata,
                   std::vector<RowSeriesSpec> row_series = {}, const std::vector<ClosedFormLabel>& closed_forms = {});
  /// If finish() was not called: closes and removes the temporary. Never throws.
  ~Hdf5ReportStream();
  Hdf5ReportStream(const Hdf5ReportStream&) = delete;
  Hdf5ReportStream& operator=(const Hdf5ReportStream&) = delete;

  /// Appends one record: R, each row series and each closed-form row (both in the order given
  /// to the constructor) have orders.size() values. A wrong count or length throws before
  /// anything is written.
  void append_record(std::int64_t step, double t, double lsi_constant, std::span<const double> R,
                     const std::vector<std::span<const double>>& series_rows = {},
                     const std::vector<std::span<const double>>& closed_form_rows = {});

  /// Writes the per-order vectors and extra root string attributes, flushes, closes, and
  /// renames the temporary to `path` (atomic).
  void finish(const std::vector<PerOrderVector>& per_order = {},
              const std::map<std::string, std::string>& extra_attributes = {});

  std::size_t record_count() const;

 private:
  struct State;  // keeps <H5Cpp.h> out of this header
  std::unique_ptr<State> state_;
};

/// `rdpdyn solve`'s records streamed to `path` (an Hdf5ReportStream opened at begin()).
class Hdf5ReportSink final : public ReportSink {
 public:
  explicit Hdf5ReportSink(std::filesystem::path path) : path_(std::move(path)) {}
  void begin(const RunMetadata& metadata, std::span<const double> orders, const std::vector<RowSeriesSpec>& row_series,
             const std::vector<ClosedFormLabel>& closed_forms) override {
    stream_ = std::make_unique<Hdf5ReportStream>(path_, std::vector<double>(orders.begin(), orders.end()), metadata,
                                                 row_series, closed_forms);
  }
  void record(const EngineRecord& row, const std::vector<std::span<const double>>& closed_forms) override {
    stream_->append_record(row.step, row.t, row.lsi_constant, row.R, row.extras, closed_forms);
  }
  void finish(const std::vector<PerOrderVector>& per_order,
              const std::map<std::string, std::string>& attributes) override {
    stream_->finish(per_order, attributes);
  }

 private:
  std::filesystem::path path_;
  std::unique_ptr<Hdf5ReportStream> stream_;
};

/// Writes `report` to `path` atomically through an Hdf5ReportStream: on failure no file is
/// left behind and an existing file at `path` is untouched. Throws std::runtime_error naming
/// `path` if the report is inconsistent (shapes, names) or HDF5 fails.
void write_report_hdf5(const std::filesystem::path& path, const RunReport& report);

/// Reads a report written by write_report_hdf5 or Hdf5ReportStream, schema version >= 1
/// (created_utc is not part of RunReport and is not returned). Throws std::runtime_error naming
/// `path` on a missing or malformed field.
RunReport read_report_hdf5(const std::filesystem::path& path);

}  // namespace rdpdyn

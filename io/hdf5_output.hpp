#pragma once
// HDF5 output of a run report (schema version kHdf5SchemaVersion; layout in docs/hdf5.md).
#include <filesystem>

#include "io/run_report.hpp"

namespace rdpdyn {

/// Writes `report` to `path` atomically (temporary sibling, then rename): on failure no file is
/// left behind and an existing file at `path` is untouched. Throws std::runtime_error naming
/// `path` if the report is inconsistent (shapes) or HDF5 fails.
void write_report_hdf5(const std::filesystem::path& path, const RunReport& report);

/// Reads a report written by write_report_hdf5 (created_utc is not part of RunReport and is
/// not returned). Throws std::runtime_error naming `path` on a missing or malformed field.
RunReport read_report_hdf5(const std::filesystem::path& path);

}  // namespace rdpdyn

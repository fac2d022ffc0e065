#pragma once
// Every record of a solve kept in memory for Python (the HDF5 writer streams them to a file
// instead): steps, times, LSI constants, R, each closed form and each engine row series, row-major
// records x orders, ready to be handed to numpy without a copy.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "commands/solve.hpp"

namespace rdpdyn::python {

class SolveRecords final : public ReportSink {
 public:
  void begin(const RunMetadata& metadata, std::span<const double> orders, const std::vector<RowSeriesSpec>& row_series,
             const std::vector<ClosedFormLabel>& closed_forms) override;
  void record(const EngineRecord& row, const std::vector<std::span<const double>>& closed_forms) override;
  void finish(const std::vector<PerOrderVector>&, const std::map<std::string, std::string>&) override {}

  std::vector<double> orders;
  std::vector<std::int64_t> steps;
  std::vector<double> times, lsi_constant, R;
  std::vector<ClosedFormLabel> closed_form_labels;
  std::vector<std::vector<double>> closed_forms;  ///< one per label
  std::vector<RowSeriesSpec> row_series_specs;
  std::vector<std::vector<double>> row_series;  ///< one per spec (e.g. R_finite_difference)
};

}  // namespace rdpdyn::python

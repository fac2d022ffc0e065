#include "python/solve_records.hpp"

namespace rdpdyn::python {

void SolveRecords::begin(const RunMetadata&, std::span<const double> o, const std::vector<RowSeriesSpec>& series,
                         const std::vector<ClosedFormLabel>& labels) {
  orders.assign(o.begin(), o.end());
  closed_form_labels = labels;
  closed_forms.assign(labels.size(), {});
  row_series_specs = series;
  row_series.assign(series.size(), {});
}

void SolveRecords::record(const EngineRecord& row, const std::vector<std::span<const double>>& rows) {
  steps.push_back(row.step);
  times.push_back(row.t);
  lsi_constant.push_back(row.lsi_constant);
  R.insert(R.end(), row.R.begin(), row.R.end());
  for (std::size_t i = 0; i < rows.size() && i < closed_forms.size(); ++i)
    closed_forms[i].insert(closed_forms[i].end(), rows[i].begin(), rows[i].end());
  for (std::size_t i = 0; i < row.extras.size() && i < row_series.size(); ++i)
    row_series[i].insert(row_series[i].end(), row.extras[i].begin(), row.extras[i].end());
}

}  // namespace rdpdyn::python

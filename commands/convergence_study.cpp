#include "commands/convergence_study.hpp"

#include <cmath>
#include <limits>

#include "models/privacy_model.hpp"
#include "models/size_limits.hpp"
#include "numerics/spec_error.hpp"
#include "solver/characteristics_engine.hpp"
#include "solver/finite_difference_engine.hpp"

namespace rdpdyn {

ConvergenceStudy run_convergence_study(const RunConfig& config, MPI_Comm comm, int grids) {
  const RunSpec& spec = config.spec;
  // The finest grid doubles the configured cells grids - 1 times: it obeys grid.cells' limit.
  if (grids > 1 && config.grid.cells > (limits::kMaxGridCells >> (grids - 1)))
    throw SpecError("--grids", std::to_string(grids),
                    "the finest grid would have grid.cells x 2^" + std::to_string(grids - 1) + " = " +
                        std::to_string(config.grid.cells) + " x " + std::to_string(std::int64_t{1} << (grids - 1)) +
                        " cells, more than the limit 4194304 (2^22) of grid.cells (docs/config.md, Limits): "
                        "lower --grids or grid.cells");
  const PrivacyProgram program = build_program(spec);
  Solution exact;
  try {
    exact = solve_by_characteristics(program, spec.initial, spec.orders, {RecordPlan{0, {}}, {}});
  } catch (const SpecError& e) {
    throw SpecError("CONFIG", "\"" + config.path + "\"",
                    std::string("has no exact reference for a convergence study: ") + e.what());
  }
  const auto reference = exact.final_row();

  ConvergenceStudy study;
  double previous = std::numeric_limits<double>::quiet_NaN();
  for (int g = 0; g < grids; ++g) {
    FiniteDifferenceOptions options{config.grid, RecordPlan{0, {}}, {}};
    options.grid.cells = config.grid.cells << g;
    std::vector<double> fd_final;
    const FiniteDifferenceSummary summary = solve_by_finite_differences(
        comm, program, spec.initial, spec.orders, options,
        [&](std::int64_t, double, double, std::span<const double>, std::span<const double> fd,
            std::span<const double>) { fd_final.assign(fd.begin(), fd.end()); });
    double worst = 0.0;
    if (g == 0) {
      for (std::size_t j = 0; j < spec.orders.size(); ++j)
        if (summary.boundary_influenced[j] == 0.0) study.orders.push_back(spec.orders[j]);
      if (study.orders.empty())
        throw SpecError("grid.alpha_min", format_number(config.grid.alpha_min),
                        "the inflow boundary reaches every order: lower it for a convergence study");
    }
    for (std::size_t j = 0; j < spec.orders.size(); ++j)
      if (summary.boundary_influenced[j] == 0.0 && reference[j] != 0.0)
        worst = std::max(worst, std::abs(fd_final.empty() ? 0.0 : fd_final[j] - reference[j]) / reference[j]);
    study.rows.push_back({options.grid.cells, summary.dy, worst,
                          g == 0 ? std::numeric_limits<double>::quiet_NaN() : std::log2(previous / worst)});
    previous = worst;
  }
  return study;
}

}  // namespace rdpdyn

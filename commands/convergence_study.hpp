#pragma once
// Grid-refinement study of the finite-difference engine against the exact characteristic
// solution (`rdpdyn validate --convergence CONFIG`).
#include <mpi.h>

#include <cstdint>
#include <vector>

#include "models/run_config.hpp"

namespace rdpdyn {

struct ConvergenceRow {
  std::int64_t cells;
  double dy;
  double max_relative_error;  ///< finite-difference value vs exact, final time, orders off the boundary's reach
  double observed_order;      ///< log2(previous error / this error); NaN on the first grid
};

struct ConvergenceStudy {
  std::vector<ConvergenceRow> rows;
  std::vector<double> orders;  ///< the orders compared (those the inflow boundary cannot reach)
};

/// Solves the configured run with the finite-difference engine on `grids` grids, the configured
/// cell count doubled each time, and compares the finite-difference value at the final time with
/// the characteristics engine (exact for alpha-independent coefficients). Throws SpecError when
/// the configuration has alpha-dependent coefficients (no exact reference) or when the boundary
/// reaches every order.
ConvergenceStudy run_convergence_study(const RunConfig& config, MPI_Comm comm, int grids = 4);

}  // namespace rdpdyn

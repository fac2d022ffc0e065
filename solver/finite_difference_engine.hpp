#pragma once
// The finite-difference engine: method of lines on a PETSc DMDA over y = ln(alpha - 1) for PDI
// coefficients that may depend on (alpha, t), with every reported bound certified by the
// characteristics Certifier (solver/certification.hpp). docs/finite-difference.md explains the
// scheme, the boundary closure and the certification.
#include <mpi.h>

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "solver/step_progress.hpp"
#include "dynamics/initial_curve.hpp"
#include "dynamics/privacy_program.hpp"
#include "solver/certification.hpp"
#include "solver/finite_difference_grid.hpp"
#include "solver/interval_flow.hpp"
#include "dynamics/solution.hpp"

namespace rdpdyn {

struct FiniteDifferenceOptions {
  FiniteDifferenceGrid grid;
  RecordPlan record;
  IntegrationTolerance tolerance;
  /// Off only for benchmarks of the scheme alone: the rows then carry NaN as certified values.
  bool certify = true;
  StepProgress progress{};  ///< called after every step, on rank 0
  /// Shooting: the Odeint reference for every value (tests and benchmarks compare against it).
  CertificationMethod certification = CertificationMethod::Composed;
  /// CloudSettings::path_steps (tests: 0 takes every value after step 0 from the cloud).
  std::int64_t cloud_path_steps = -1;
};

/// One record of the finite-difference solve (called on rank 0 only).
using FiniteDifferenceSink =
    std::function<void(std::int64_t step, double t, double lsi_constant, std::span<const double> certified,
                       std::span<const double> finite_difference, std::span<const double> landing_orders)>;

struct FiniteDifferenceSummary {
  double dy = 0.0;
  std::int64_t time_steps = 0;              ///< TS steps taken in all
  double max_relative_gap = 0.0;            ///< max over records/orders of |certified - fd| / certified
  std::vector<double> boundary_influenced;  ///< per order: 1 if the inflow closure can reach it
  double inflow_reach_y = 0.0;              ///< y up to which the inflow boundary can have influence
};

/// Solves the program on the distributed grid (PETSC_COMM_WORLD-like `comm`; PETSc must be
/// initialised) and streams certified and finite-difference rows at the recorded steps.
/// PETSc options apply (prefix none: -ts_type, -ts_ssp_type, -ts_monitor, ...).
FiniteDifferenceSummary solve_by_finite_differences(MPI_Comm comm, const PrivacyProgram& program,
                                                    const InitialCurve& initial, std::span<const double> orders,
                                                    const FiniteDifferenceOptions& options,
                                                    const FiniteDifferenceSink& sink);

}  // namespace rdpdyn

#include <memory>
#include "solver/engine.hpp"
namespace rdpdyn {
/// The finite-difference engine behind the Engine interface (name "finite-difference"), collective
/// over `comm`: records reach the observer on rank 0; EngineSummary::final_R is on every rank.
std::unique_ptr<Engine> make_finite_difference_engine(MPI_Comm comm);
}  // namespace rdpdyn

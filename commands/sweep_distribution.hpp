#pragma once
// `mpirun -n P rdpdyn sweep`: the points of a sweep spread over the ranks of a communicator,
// balanced by estimated cost, evaluated independently and gathered on rank 0 byte for byte, so the
// result equals one process's bitwise.
#include <mpi.h>

#include <span>

#include "commands/sweep.hpp"

namespace rdpdyn {

/// Evaluates every point of `spec` on the ranks of `comm` (collective; with one rank, no MPI call
/// is made, so `comm` may be MPI_COMM_SELF of an uninitialised MPI). `costs` holds the estimated
/// cost of each point (balance_points). Rank 0 returns the whole result; the other ranks return
/// their own points only. `progress` is called on rank 0 with its own points.
SweepResult run_distributed_sweep(const SweepSpec& spec, std::span<const double> orders,
                                  const PointConfiguration& configure, const EngineRegistry& engines,
                                  std::span<const double> costs, MPI_Comm comm, const SweepProgress& progress = {});

}  // namespace rdpdyn

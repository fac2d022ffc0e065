#pragma once
// One solve, end to end: configuration -> privacy program -> engine -> closed forms -> outputs.
#include <mpi.h>

#include <filesystem>
#include <optional>

#include "io/config.hpp"
#include "io/run_report.hpp"

namespace rdpdyn {

/// Solves the configured run with the configured engine. Every recorded row is streamed to
/// `hdf5_output` (when given; written on rank 0, atomically) as it is produced. The returned
/// report holds the final record only (solution and closed forms), the metadata and the engine's
/// per-order vectors and attributes: what the JSON summary and the table print. The
/// finite-difference engine is collective over `comm` (PETSc must be initialised); the
/// characteristics engine runs on every rank and only rank 0 writes.
/// Throws SpecError for input that the models or engines refuse.
RunReport solve_run(const RunConfig& config, const std::optional<std::filesystem::path>& hdf5_output = {},
                    MPI_Comm comm = MPI_COMM_WORLD);

}  // namespace rdpdyn

#pragma once
// Every engine of this build, in one place: the builtin ones (solver/builtin_engines.hpp, no PETSc)
// and those that need PETSc, added here. Nothing else lists engines or compares their names.
#include <mpi.h>

#include <string>

#include "solver/engine.hpp"
#include "solver/petsc_session.hpp"

namespace rdpdyn {

/// Every engine: the builtin ones and "finite-difference" (PETSc; collective over `comm`).
EngineRegistry engine_registry(MPI_Comm comm);

/// The registry a run of engine `engine_name` is solved with: PETSc (and MPI) started in `session`
/// only when that engine needs them (docs/performance.md), the engines over its communicator.
/// An unknown name starts nothing (the run's configuration names the engines it knows).
EngineRegistry engines_for(const std::string& engine_name, PetscSession& session);

/// Starts PETSc in `session` when engine `engine_name` needs it (each point of a sweep, solved on
/// one process with engine_registry(MPI_COMM_SELF)).
void start_backend_of(const std::string& engine_name, PetscSession& session);

}  // namespace rdpdyn

#pragma once
// The engines of this build, in one place: a new engine is one line in engine_registry.cpp.
#include <mpi.h>

#include "solver/engine.hpp"

namespace rdpdyn {

/// Every engine: "characteristics" (exact for order-independent coefficients) and
/// "finite-difference" (PETSc; collective over `comm`).
EngineRegistry engine_registry(MPI_Comm comm);

}  // namespace rdpdyn

#pragma once
// The engines that need no PETSc, in one place: a new engine of that kind is one line in
// builtin_engines.cpp (an engine that needs PETSc is one line in engine_registry.cpp instead).
#include "solver/engine.hpp"

namespace rdpdyn {

/// Adds "characteristics" (exact for order-independent coefficients) and "reference" (the
/// characteristic ODEs integrated numerically, any coefficients; a cross-check) to `registry`.
void add_builtin_engines(EngineRegistry& registry);

}  // namespace rdpdyn

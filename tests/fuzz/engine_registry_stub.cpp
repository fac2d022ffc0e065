// The engine registry of the fuzzer, which links no PETSc: the builtin engines only (a configuration
// naming "finite-difference" is an unknown engine there; the loader's other paths are the target).
#include "solver/builtin_engines.hpp"
#include "solver/engine_registry.hpp"

namespace rdpdyn {

EngineRegistry engine_registry(MPI_Comm) {
  EngineRegistry registry;
  add_builtin_engines(registry);
  return registry;
}

}  // namespace rdpdyn

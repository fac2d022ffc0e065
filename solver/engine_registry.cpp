#include "solver/engine_registry.hpp"

#include "solver/characteristics_engine.hpp"
#include "solver/finite_difference_engine.hpp"

namespace rdpdyn {

EngineRegistry engine_registry(MPI_Comm comm) {
  EngineRegistry registry;
  registry.add(make_characteristics_engine());
  registry.add(make_finite_difference_engine(comm));
  return registry;
}

}  // namespace rdpdyn

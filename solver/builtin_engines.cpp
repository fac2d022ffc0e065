#include "solver/builtin_engines.hpp"

#include "solver/characteristics_engine.hpp"
#include "solver/reference_engine.hpp"

namespace rdpdyn {

void add_builtin_engines(EngineRegistry& registry) {
  registry.add(make_characteristics_engine());
  registry.add(make_reference_engine());
}

}  // namespace rdpdyn

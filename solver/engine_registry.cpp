#include "solver/engine_registry.hpp"

#include "solver/builtin_engines.hpp"
#include "solver/finite_difference_engine.hpp"

namespace rdpdyn {

EngineRegistry engine_registry(MPI_Comm comm) {
  EngineRegistry registry;
  add_builtin_engines(registry);
  registry.add(make_finite_difference_engine(comm));
  return registry;
}

void start_backend_of(const std::string& engine_name, PetscSession& session) {
  const EngineRegistry engines = engine_registry(MPI_COMM_SELF);  // constructing an engine starts nothing
  if (const Engine* e = engines.find(engine_name); e && e->needs_petsc()) session.require();
}

EngineRegistry engines_for(const std::string& engine_name, PetscSession& session) {
  start_backend_of(engine_name, session);
  return engine_registry(session.comm());
}

}  // namespace rdpdyn

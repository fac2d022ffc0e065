// The engine registry of the fuzzer: the loader only asks for the engines' names, so the
// finite-difference engine is a named placeholder here and the fuzzer needs no PETSc.
#include <stdexcept>

#include "solver/characteristics_engine.hpp"
#include "solver/engine_registry.hpp"

namespace rdpdyn {
namespace {

class PlaceholderEngine final : public Engine {
 public:
  std::string name() const override { return "finite-difference"; }
  std::string method(const EngineSettings&) const override { return "placeholder (fuzzer)"; }
  EngineSummary solve(const PrivacyProgram&, const InitialCurve&, std::span<const double>, const EngineSettings&,
                      RecordObserver&) const override {
    throw std::logic_error("the fuzzer never solves");
  }
};

}  // namespace

EngineRegistry engine_registry(MPI_Comm) {
  EngineRegistry registry;
  registry.add(make_characteristics_engine());
  registry.add(std::make_unique<PlaceholderEngine>());
  return registry;
}

}  // namespace rdpdyn

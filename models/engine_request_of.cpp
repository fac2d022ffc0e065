#include "models/engine_request_of.hpp"

#include <string>

namespace rdpdyn {

EngineRequest engine_request_of(const RunConfig& config) {
  const RunSpec& spec = config.spec;
  const AlgorithmSpec& a = spec.algorithm;
  EngineRequest r;
  r.initial = spec.initial;
  r.orders = spec.orders;
  r.gamma = spec.gamma;
  // The run's gamma applies to every Langevin / PDI interval and to each phase without a gamma of its own.
  r.optimal_gamma_somewhere =
      spec.gamma.is_optimal() && (a.kind == AlgorithmKind::Langevin || a.kind == AlgorithmKind::Pdi);
  for (const auto& p : a.phases)
    r.optimal_gamma_somewhere = r.optimal_gamma_somewhere || (spec.gamma.is_optimal() && !p.gamma);
  r.lsi_depends_on_alpha = spec.lsi.kind == LsiKind::Function && spec.lsi.function.depends_on_alpha;
  r.lsi_description = spec.lsi.kind == LsiKind::Function ? spec.lsi.function.description() : std::string();
  r.worst_case_over_placements = a.kind == AlgorithmKind::NoisySgd;
  r.steps = static_cast<double>(spec.total_steps());
  r.steps_key =
      a.kind == AlgorithmKind::Langevin || a.kind == AlgorithmKind::Pdi ? "algorithm.intervals" : "algorithm.steps";
  r.steps_value = std::to_string(spec.total_steps());
  r.record = spec.record;
  r.grid = config.grid;
  return r;
}

}  // namespace rdpdyn

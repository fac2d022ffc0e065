#include "models/configured_solve.hpp"

#include <stdexcept>

#include "models/noisy_sgd_worst_case.hpp"
#include "models/privacy_model.hpp"
#include "models/spec_error.hpp"

namespace rdpdyn {

const Engine& configured_engine(const RunConfig& config, const EngineRegistry& engines) {
  const Engine* engine = engines.find(config.engine);
  if (!engine) {
    std::string known;
    for (const auto& n : engines.names()) known += (known.empty() ? "\"" : ", \"") + n + "\"";
    throw SpecError("analysis.engine", "\"" + config.engine + "\"", "must be one of " + known);
  }
  return *engine;
}

EngineSummary solve_configured_run(const RunConfig& config, const EngineRegistry& engines,
                                   RecordObserver& observer) {
  const RunSpec& spec = config.spec;
  if (spec.adjacency == Adjacency::AddRemove) {
    std::string also;
    for (const auto& m : missing_pdi_constants(spec)) {
      if (!also.empty()) also += ", ";
      also += m == "lsi" ? std::string("[lsi]") : m;
    }
    std::string rule =
        "the PDI is derived for replace-one neighbours (same dataset size, C21 Sec. 2): use \"replace\" here, or "
        "`rdpdyn compare` for the accountants of add/remove neighbours";
    if (!also.empty()) rule += "; the run also does not declare " + also + ", which the PDI needs";
    throw SpecError("domain.adjacency", "\"" + std::string(adjacency_name(spec.adjacency)) + "\"", rule);
  }
  require_pdi_constants(spec);
  const Engine& engine = configured_engine(config, engines);
  const EngineSettings settings{spec.record, {config.integration_rtol}, config.grid};
  try {
    if (spec.algorithm.kind == AlgorithmKind::NoisySgd) {
      // Worst case over the differing record's batch, solved per placement then combined.
      const Solution worst = solve_noisy_sgd_worst_case(spec, {spec.record, settings.tolerance});
      EngineSummary summary;
      for (std::size_t r = 0; r < worst.record_count(); ++r)
        observer.record({worst.steps[r], worst.times[r], worst.lsi_constant[r], worst.row(r), {}});
      const auto last = worst.final_row();
      summary.final_R.assign(last.begin(), last.end());
      return summary;
    }
    return engine.solve(build_program(spec), spec.initial, spec.orders, settings, observer);
  } catch (const std::domain_error& e) {  // a user function left its domain
    const bool gamma = std::string(e.what()).rfind("gamma", 0) == 0;
    throw SpecError(gamma ? "analysis.gamma" : "lsi.c",
                    "\"" + (gamma ? spec.gamma.description : spec.lsi.function.description) + "\"", e.what());
  }
}

}  // namespace rdpdyn

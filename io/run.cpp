#include "io/run.hpp"

#include "models/privacy_model.hpp"
#include "models/spec_error.hpp"

#include <stdexcept>
#include "rdpdyn_version.hpp"
#include "solver/characteristics_engine.hpp"
#include "validation/closed_form_catalog.hpp"

namespace rdpdyn {
namespace {

std::string lsi_model_name(LsiKind kind) {
  switch (kind) {
    case LsiKind::Constant: return "constant";
    case LsiKind::StronglyConvex: return "strongly-convex";
    case LsiKind::Recursion: return "recursion";
    case LsiKind::SquaredLoss: return "squared-loss";
    case LsiKind::Function: return "function";
  }
  return "unknown";
}

std::string gamma_mode(const RunSpec& spec) {
  for (const auto& p : spec.algorithm.phases)
    if (p.gamma) return "per-step";
  return spec.gamma.is_optimal() ? "optimal" : "fixed";
}

}  // namespace

RunReport solve_run(const RunConfig& config) {
  const RunSpec& spec = config.spec;
  const PrivacyProgram program = build_program(spec);
  CharacteristicsOptions options;
  options.record = spec.record;
  options.tolerance.relative = config.integration_rtol;

  RunReport report;
  try {
    report.solution = solve_by_characteristics(program, spec.initial, spec.orders, options);
  } catch (const std::domain_error& e) {  // a user schedule left its domain (c < 0, NaN, inf)
    throw SpecError("lsi.c", "\"" + spec.lsi.function.description + "\"", e.what());
  }
  report.closed_forms = applicable_closed_forms(spec, report.solution);

  RunMetadata& m = report.metadata;
  m.config_text = config.text;
  m.config_path = config.path;
  m.program_version = kVersion;
  m.engine = config.engine;
  m.gamma_mode = gamma_mode(spec);
  m.algorithm = spec.algorithm.kind == AlgorithmKind::Langevin ? "langevin" : "noisy-gd";
  m.lsi_model = lsi_model_name(spec.lsi.kind);
  m.initial_curve = initial_curve_kind(spec.initial);
  m.method =
      "method of characteristics in y = ln(alpha-1), w = R/alpha (C21 eq. (13), math.md s.2): "
      "exact closed forms per interval for constant and Gaussian-convolution LSI schedules; "
      "Boost.Odeint Dormand-Prince 5(4) with rtol = " + format_number(config.integration_rtol) +
      " and a conservative a-posteriori bias for function schedules; tabulated initial data "
      "interpolated from above (monotone in alpha, chord of the convex (alpha-1) R_alpha); gamma: " +
      (spec.gamma.is_optimal() ? std::string("pointwise minimiser min(1, sqrt(P/(Q w)))")
                               : "fixed " + format_number(spec.gamma.value));
  return report;
}

}  // namespace rdpdyn

#include "models/run_validation.hpp"

#include <Eigen/Dense>
#include <string>
#include <variant>

#include "dynamics/overloaded.hpp"
#include "models/engine_request_of.hpp"
#include "models/privacy_model.hpp"
#include "numerics/format_number.hpp"
#include "numerics/outward_rounding.hpp"
#include "numerics/spec_error.hpp"

namespace rdpdyn {
namespace {

/// Events change the iterate law; only the LSI recursion carries that into c (C21 Lemma 8:
/// an L-Lipschitz map takes c to c/L^2). The other kinds fix c at every step: a restart would be
/// ignored, and an expanding map (L > 1) would leave c too large, unless the user vouches for c
/// (constant or function with a generic loss: their c must then account for the maps).
void check_event_against_lsi(const ScheduledEvent& e, const RunSpec& spec) {
  if (e.after_step > spec.total_steps())
    throw SpecError(e.origin + ".after_step", std::to_string(e.after_step),
                    "must be <= the number of steps (" + std::to_string(spec.total_steps()) + ")");
  if (!spec.declares_lsi || spec.lsi.kind == LsiKind::Recursion) return;
  const std::string kind = lsi_kind_name(spec.lsi.kind);
  if (spec.lsi.kind == LsiKind::BoundedDomain) {
    // The recursion carries restarts and maps; the cap of each step assumes the law starts on the
    // projection's set, which an expanding map would leave.
    if (const auto* map = std::get_if<LipschitzMap>(&e.event); map && map->lipschitz > 1.0)
      throw SpecError(e.origin + ".lipschitz", format_number(map->lipschitz),
                      "must be <= 1 with lsi.kind = \"bounded-domain\": an expanding map moves the law off the set "
                      "of diameter D on which the step's LSI bound rests (docs/math.md section 2.7)");
    return;
  }
  // A Langevin run has no recursion: the user's own c (constant, function) is the way out there.
  const std::string remedy = spec.algorithm.kind == AlgorithmKind::Langevin
                                 ? "; a Langevin run has no recursion: use lsi.kind = \"constant\" with a c you certify"
                                 : "";
  const bool user_vouches = (spec.lsi.kind == LsiKind::Constant || spec.lsi.kind == LsiKind::Function) &&
                            spec.algorithm.loss == LossKind::Generic;
  std::visit(Overloaded{[&](const LsiRestart&) {
                          throw SpecError(e.origin + ".kind", "\"lsi-restart\"",
                                          "needs lsi.kind = \"recursion\": lsi.kind = \"" + kind +
                                              "\" fixes c at every step, so the restart would be ignored" + remedy);
                        },
                        [&](const LipschitzMap& map) {
                          if (map.lipschitz > 1.0 && !user_vouches)
                            throw SpecError(e.origin + ".lipschitz", format_number(map.lipschitz),
                                            "an expanding map (L > 1) widens the iterate law (C21 Lemma 8: "
                                            "c -> c/L^2), which lsi.kind = \"" +
                                                kind + "\" does not account for: use lsi.kind = \"recursion\"" +
                                                remedy);
                        },
                        [](const GaussianRelease&) {},  // a release leaves the law's LSI constant alone
                        [](const InverseLsiCap&) {}},   // made by program builders, never configured
             e.event);
}

/// |H (x - x')| <= S_g: the sensitivity bounds the pair's gradient difference (docs/config.md,
/// [quadratic]). The computed norm may be a few units of roundoff below the exact one, and a pair
/// whose exact gradient gap exceeds S_g would be bounded with S_g: the norm is raised by a bound on
/// its rounding error (d products and sums, a square root) before the comparison.
void check_quadratic_pair(const QuadraticLoss& q, const AlgorithmSpec& a) {
  if (!a.declares_sensitivity)
    throw SpecError("algorithm.sensitivity", "missing",
                    "needed with algorithm.loss = \"quadratic\" (the pair is checked against it)");
  if (!q.pair) return;
  const auto d = static_cast<Eigen::Index>(q.hessian.size());
  Eigen::MatrixXd H(d, d);
  for (Eigen::Index i = 0; i < d; ++i)
    for (Eigen::Index j = 0; j < d; ++j) H(i, j) = q.hessian[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)];
  const Eigen::VectorXd delta = Eigen::Map<const Eigen::VectorXd>(q.pair->data(), d);
  const double gradient_gap =
      (H * delta).norm() * (1.0 + 4.0 * (static_cast<double>(d) + 2.0) * outward::kUnitRoundoff);
  if (!(gradient_gap <= a.sensitivity))
    throw SpecError("quadratic.pair", "with |H pair| = " + format_number(gradient_gap) + " (rounded up)",
                    "must satisfy |H (x - x')| <= algorithm.sensitivity = " + format_number(a.sensitivity));
}

}  // namespace

void validate_run(RunConfig& cfg, const Engine& engine) {
  RunSpec& spec = cfg.spec;
  if (spec.quadratic) check_quadratic_pair(*spec.quadratic, spec.algorithm);
  for (const ScheduledEvent& e : spec.events) check_event_against_lsi(e, spec);
  if (const auto* t = std::get_if<TableCurve>(&spec.initial); t && spec.orders.back() > t->alpha.back())
    throw SpecError("orders", "max " + format_number(spec.orders.back()),
                    "must not exceed the largest tabulated order initial.alpha = " + format_number(t->alpha.back()) +
                        " (no sound extrapolation above the table)");
  // The default gamma: the best certified choice the engine supports (Engine::optimal_gamma_by_default).
  if (spec.gamma_by_default)
    spec.gamma = engine.optimal_gamma_by_default(spec.initial) ? GammaChoice::optimal() : GammaChoice::fixed(0.5);
  // The engine's dry run: whether it can solve this run, and the defaults of its own settings.
  EngineRequest request = engine_request_of(cfg);
  if (const auto refusal = engine.admit(request)) throw SpecError(refusal->key, refusal->value, refusal->rule);
  cfg.grid = request.grid;
  check_model_assumptions(spec);
}

}  // namespace rdpdyn

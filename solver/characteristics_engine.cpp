#include "solver/characteristics_engine.hpp"

#include <cmath>
#include <stdexcept>
#include <vector>

#include "numerics/format_number.hpp"
#include "numerics/spec_error.hpp"
#include "numerics/outward_rounding.hpp"

namespace rdpdyn {
namespace {

/// w(alpha) = (initial_absorbed ? 0 : exp(-transport) w_0(alpha_0)) + offset.
struct CharacteristicState {
  double transport = 0.0;
  double transport_compensation = 0.0;  ///< Neumaier: transport + compensation is the sum
  double offset = 0.0;
  bool initial_absorbed = false;
  double inverse_lsi = kPointMassInverseLsi;
};

/// R(alpha) = alpha w(alpha) at every order (docs/math.md section 2.3, exact characteristic solution).
void evaluate_rdp(const CharacteristicState& s, const InitialCurve& initial, std::span<const double> orders,
                  std::span<double> R) {
  if (s.initial_absorbed || std::isinf(s.transport)) {
    for (std::size_t j = 0; j < orders.size(); ++j) R[j] = orders[j] * s.offset;
    return;
  }
  const double decay = std::exp(-(s.transport + s.transport_compensation));
  for (std::size_t j = 0; j < orders.size(); ++j) {
    const double alpha0 = 1.0 + (orders[j] - 1.0) * decay;  // foot of the characteristic
    R[j] = orders[j] * (decay * initial_rdp(initial, alpha0) / alpha0 + s.offset);
  }
}

void apply_event(CharacteristicState& s, const StepEvent& event) {
  // Post-processing keeps the bound (data processing) and changes only the LSI constant; a
  // Gaussian release adds alpha Delta^2 / (2 s^2) (Ye & Shokri 2022 eq. (70)).
  s.offset += rdp_slope_jump(event);
  update_inverse_lsi(s.inverse_lsi, event);
}

/// Adds one interval's transport to the accumulated one (compensated, so that K steps add no K
/// roundings; an infinite transport absorbs the sum).
void add_transport(CharacteristicState& s, double A) {
  if (std::isinf(A) || std::isinf(s.transport)) {
    s.transport = s.transport + A;
    s.transport_compensation = 0.0;
    return;
  }
  const double sum = s.transport + A;
  s.transport_compensation += std::abs(s.transport) >= std::abs(A) ? (s.transport - sum) + A : (A - sum) + s.transport;
  s.transport = sum;
}

/// A computed transport may exceed the exact one by its rounding error, and less transport is a
/// larger bound (both exp(-A) and the foot order alpha_0 = 1 + (alpha - 1) e^{-A} grow as A
/// shrinks, and R_0 is non-decreasing in alpha: docs/math.md sections 2.3, 5.1, 6). Each interval's
/// transport (a few operations, at most ~8 u relative error) is therefore lowered by 16 u before
/// it enters the state, so the exponential carrying old data never rounds the bound down.
constexpr double kTransportRelativeBias = 16.0 * outward::kUnitRoundoff;

/// This engine is exact only for coefficients that do not depend on the order.
void require_alpha_independent(const ProgramStep& step) {
  if (step.gamma.is_field())
    throw SpecError("analysis.gamma", "\"" + step.gamma.description() + "\"",
                    "depends on the order: use [analysis] engine = \"finite-difference\" or \"reference\"");
  if (lsi_depends_on_alpha(step.diffusion.lsi))
    throw SpecError("lsi.c", "\"" + std::get<FunctionLsi>(step.diffusion.lsi).description() + "\"",
                    "depends on alpha: use [analysis] engine = \"finite-difference\" or \"reference\"");
}

}  // namespace

void solve_by_characteristics(const PrivacyProgram& program, const InitialCurve& initial,
                              std::span<const double> orders, const CharacteristicsOptions& options,
                              const RecordSink& sink) {
  const std::int64_t total = program.step_count();
  CharacteristicState state;
  state.inverse_lsi = program.initial_inverse_lsi;
  std::vector<double> row(orders.size());
  // Time is a compensated (Neumaier) sum of the step durations, so K steps of eta end at K eta
  // to the last bit rather than drifting by K roundings.
  double t = 0.0, t_compensation = 0.0;

  auto record = [&](std::int64_t step) {
    evaluate_rdp(state, initial, orders, row);
    sink(step, t + t_compensation, lsi_constant_from_inverse(state.inverse_lsi), row);
  };
  record(0);

  program.for_each_step([&](std::int64_t k, const ProgramStep& step) {
    require_alpha_independent(step);
    for (const auto& e : step.before) apply_event(state, e);
    const DiffusionInterval& iv = step.diffusion;
    if (step.gamma.is_optimal()) {
      if (!state.initial_absorbed && !is_linear_in_alpha(initial))
        throw SpecError("analysis.gamma", "\"optimal\"",
                        "needs data linear in alpha in the characteristics engine, but the initial curve is '" +
                            initial_curve_kind(initial) + "'");
      const double w_start =
          state.initial_absorbed || std::isinf(state.transport)
              ? state.offset
              : std::exp(-(state.transport + state.transport_compensation)) * linear_initial_slope(initial) +
                    state.offset;
      state.offset = optimal_gamma_flow(iv, w_start, state.inverse_lsi, t + t_compensation, options.tolerance);
      state.initial_absorbed = true;
    } else {
      const IntervalFlow flow =
          fixed_gamma_flow(iv, step.gamma.value, state.inverse_lsi, t + t_compensation, options.tolerance);
      const double transport = outward::round_down(flow.transport, kTransportRelativeBias);
      add_transport(state, transport);
      state.offset = std::exp(-transport) * state.offset + flow.source;
    }
    state.inverse_lsi = end_inverse_lsi(iv, state.inverse_lsi, t + t_compensation);
    const double t_next = t + iv.duration;
    t_compensation += std::abs(t) >= iv.duration ? (t - t_next) + iv.duration : (iv.duration - t_next) + t;
    t = t_next;
    for (const auto& e : step.after) apply_event(state, e);
    if (options.record.records(k + 1, total)) record(k + 1);
    if (options.progress && ((k + 1) % 65536 == 0 || k + 1 == total)) options.progress(k + 1, total);
  });
}

Solution solve_by_characteristics(const PrivacyProgram& program, const InitialCurve& initial,
                                  std::span<const double> orders, const CharacteristicsOptions& options) {
  Solution out;
  out.orders.assign(orders.begin(), orders.end());
  solve_by_characteristics(program, initial, orders, options,
                           [&](std::int64_t step, double t, double c, std::span<const double> R) {
                             out.steps.push_back(step);
                             out.times.push_back(t);
                             out.lsi_constant.push_back(c);
                             out.R.insert(out.R.end(), R.begin(), R.end());
                           });
  return out;
}

namespace {

class CharacteristicsEngine final : public Engine {
 public:
  std::string name() const override { return "characteristics"; }
  // Exact for alpha-independent coefficients; its optimal gamma needs data linear in alpha.
  std::optional<EngineRefusal> admit(EngineRequest& r) const override {
    if (r.gamma.is_field())
      return EngineRefusal{"analysis.gamma", "\"" + r.gamma.description() + "\"",
                           "a gamma expression (a field in alpha and t) needs an engine for alpha-dependent "
                           "coefficients (analysis.engine = \"finite-difference\" or \"reference\"); give a "
                           "number for a constant gamma"};
    if (r.lsi_depends_on_alpha)
      return EngineRefusal{"lsi.c", "\"" + r.lsi_description + "\"",
                           "a schedule that depends on alpha needs an engine for alpha-dependent coefficients "
                           "(analysis.engine = \"finite-difference\" or \"reference\")"};
    if (r.optimal_gamma_somewhere && !is_linear_in_alpha(r.initial))
      return EngineRefusal{"analysis.gamma", "\"optimal\"",
                           "the characteristics engine needs initial data linear in alpha (initial.kind "
                           "zero, linear, or power with exponent 1) for the pointwise-optimal gamma; "
                           "initial.kind is \"" +
                               initial_curve_kind(r.initial) +
                               "\" (use "
                               "analysis.engine = \"finite-difference\")"};
    return std::nullopt;
  }
  bool optimal_gamma_by_default(const InitialCurve& initial) const override { return is_linear_in_alpha(initial); }
  bool keeps_linear_data_exact() const override { return true; }
  std::string method(const EngineSettings& settings) const override {
    return "method of characteristics in y = ln(alpha-1), w = R/alpha (C21 eq. (13), docs/math.md s.2): "
           "exact closed forms per interval for constant and Gaussian-convolution LSI schedules; "
           "Boost.Odeint Dormand-Prince 5(4) with rtol = " +
           format_number(settings.tolerance.relative) +
           " and a conservative a-posteriori bias for function schedules; tabulated initial data "
           "interpolated from above (monotone in alpha, chord of the convex (alpha-1) R_alpha)";
  }
  EngineSummary solve(const PrivacyProgram& program, const InitialCurve& initial, std::span<const double> orders,
                      const EngineSettings& settings, RecordObserver& observer) const override {
    EngineSummary summary;
    solve_by_characteristics(program, initial, orders, {settings.record, settings.tolerance, settings.progress},
                             [&](std::int64_t step, double t, double c, std::span<const double> R) {
                               observer.record({step, t, c, R, {}});
                               summary.final_R.assign(R.begin(), R.end());
                             });
    return summary;
  }
};

}  // namespace

std::unique_ptr<Engine> make_characteristics_engine() { return std::make_unique<CharacteristicsEngine>(); }

}  // namespace rdpdyn

#include "solver/reference_engine.hpp"

#include <algorithm>
#include <array>
#include <boost/numeric/odeint.hpp>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "numerics/format_number.hpp"
#include "numerics/outward_rounding.hpp"
#include "solver/lsi_evaluation.hpp"

namespace rdpdyn {
namespace {

namespace odeint = boost::numeric::odeint;
constexpr double kInf = std::numeric_limits<double>::infinity();

/// The start of a Gaussian-convolution step from a point mass is singular (c = 1/(2 s sigma^2), an
/// infinite transport): the integration starts this fraction of the step in, where the initial data
/// are forgotten and w is at most s0 max a.
constexpr double kSingularStartFraction = 0x1p-40;

/// What the steps before a record leave that does not depend on the order: each step's start time
/// and inverse LSI constant (after its `before` events), and the inverse constant after it.
struct StepStart {
  double t = 0.0;
  double inverse_lsi = 0.0;
  double inverse_lsi_after = 0.0;
};

std::vector<StepStart> step_starts(const PrivacyProgram& program) {
  std::vector<StepStart> out;
  out.reserve(static_cast<std::size_t>(program.step_count()));
  double A = program.initial_inverse_lsi, t = 0.0, t_compensation = 0.0;
  program.for_each_step([&](std::int64_t, const ProgramStep& step) {
    for (const auto& e : step.before) update_inverse_lsi(A, e);
    StepStart s{t + t_compensation, A, 0.0};
    A = end_inverse_lsi(step.diffusion, A, s.t);
    for (const auto& e : step.after) update_inverse_lsi(A, e);
    s.inverse_lsi_after = A;
    out.push_back(s);
    const double d = step.diffusion.duration, next = t + d;
    t_compensation += std::abs(t) >= d ? (t - next) + d : (d - next) + t;  // Neumaier, as the characteristics engine
    t = next;
  });
  return out;
}

/// The coefficients of one step at interval time s and order alpha: the transport speed b and the
/// source a of dw/dt = a - b w (C21 eq. (13) in w = R/alpha).
struct Coefficients {
  double a, b;
};
Coefficients coefficients(const ProgramStep& step, const StepStart& start, double s, double alpha) {
  const DiffusionInterval& iv = step.diffusion;
  const double t = start.t + s;
  const double gamma = step.gamma.is_field() ? step.gamma.field(alpha, t) : step.gamma.value;
  if (!(gamma > 0.0 && gamma <= 1.0))
    throw std::domain_error("gamma = " + format_number(gamma) + " at alpha = " + format_number(alpha) +
                            ", t = " + format_number(t) + ": must lie in (0, 1]");
  const double sigma = sigma_at(iv, t), sv = sensitivity_at(iv, t);
  const double c = lsi_constant_at(iv, start.inverse_lsi, s, t, alpha);
  return {sv * sv / (4.0 * gamma * sigma * sigma), 2.0 * (1.0 - gamma) * sigma * sigma * c};
}

bool singular_start(const ProgramStep& step, const StepStart& start) {
  return starts_from_point_mass(step.diffusion.lsi, start.inverse_lsi);
}

class CharacteristicSolver {
 public:
  CharacteristicSolver(const PrivacyProgram& program, const InitialCurve& initial, const std::vector<StepStart>& starts,
                       double relative, double absolute)
      : program_(program), initial_(initial), starts_(starts), relative_(relative), absolute_(absolute) {}

  /// R at order alpha after the first `steps` steps.
  double rdp(double alpha, std::int64_t steps) const {
    if (steps == 0) return initial_rdp(initial_, alpha);
    // Back along the characteristic to its foot: the start, or a singular step start.
    double y = std::log(alpha - 1.0);
    std::int64_t first = 0;
    double s_first = 0.0;
    for (std::int64_t k = steps - 1; k >= 0; --k) {
      const ProgramStep& step = program_.step(k);
      const StepStart& st = starts_[static_cast<std::size_t>(k)];
      const double tau = step.diffusion.duration;
      const double s0 = singular_start(step, st) ? tau * kSingularStartFraction : 0.0;
      y = transport_back(step, st, y, tau, s0);
      if (s0 > 0.0) {
        first = k;
        s_first = s0;
        break;
      }
    }
    // Forward from the foot: w = R_0(alpha_0) / alpha_0 there, or at most s0 max a after a singular start
    // (the initial data and the step's `before` events are forgotten there).
    double w = 0.0;
    if (s_first > 0.0) {
      const ProgramStep& step = program_.step(first);
      const StepStart& st = starts_[static_cast<std::size_t>(first)];
      const double alpha0 = 1.0 + std::exp(y);
      w = s_first * std::max(coefficients(step, st, s_first, alpha0).a, coefficients(step, st, 0.0, alpha0).a);
    } else {
      const double alpha0 = 1.0 + std::exp(y);
      w = initial_rdp(initial_, alpha0) / alpha0;
    }
    for (std::int64_t k = first; k < steps; ++k) {
      const ProgramStep& step = program_.step(k);
      const StepStart& st = starts_[static_cast<std::size_t>(k)];
      if (!(k == first && s_first > 0.0))
        for (const auto& e : step.before) w += rdp_slope_jump(e);
      std::array<double, 2> state{y, w};
      integrate(step, st, state, k == first ? s_first : 0.0, step.diffusion.duration);
      y = state[0];
      w = state[1];
      for (const auto& e : step.after) w += rdp_slope_jump(e);
    }
    return alpha * w;
  }

 private:
  // y at interval time s_end, going back from y at tau (dy/ds = b).
  double transport_back(const ProgramStep& step, const StepStart& st, double y, double tau, double s_end) const {
    std::array<double, 1> state{y};
    auto system = [&](const std::array<double, 1>& x, std::array<double, 1>& dxds, double s) {
      dxds[0] = coefficients(step, st, s, 1.0 + std::exp(x[0])).b;
    };
    odeint::integrate_adaptive(
        odeint::make_controlled<odeint::runge_kutta_dopri5<std::array<double, 1>>>(absolute_, relative_), system, state,
        tau, s_end, -(tau - s_end) / 16.0);
    return state[0];
  }
  void integrate(const ProgramStep& step, const StepStart& st, std::array<double, 2>& state, double s_begin,
                 double s_end) const {
    auto system = [&](const std::array<double, 2>& x, std::array<double, 2>& dxds, double s) {
      const Coefficients k = coefficients(step, st, s, 1.0 + std::exp(x[0]));
      dxds[0] = k.b;
      dxds[1] = k.a - k.b * x[1];
    };
    odeint::integrate_adaptive(
        odeint::make_controlled<odeint::runge_kutta_dopri5<std::array<double, 2>>>(absolute_, relative_), system, state,
        s_begin, s_end, (s_end - s_begin) / 16.0);
  }

  const PrivacyProgram& program_;
  const InitialCurve& initial_;
  const std::vector<StepStart>& starts_;
  double relative_, absolute_;
};

/// The order-steps of integration a solve costs: every record integrates the steps before it.
double integration_work(double steps, const RecordPlan& plan, double orders) {
  double sum = steps;  // the last record
  if (plan.every > 0) {
    const double m = std::floor(steps / static_cast<double>(plan.every));
    sum += static_cast<double>(plan.every) * m * (m + 1.0) / 2.0;
  }
  for (std::int64_t s : plan.steps) sum += static_cast<double>(s);
  return sum * orders;
}

class ReferenceEngine final : public Engine {
 public:
  std::string name() const override { return "reference"; }
  std::string method(const EngineSettings& settings) const override {
    return "reference: the characteristic ODEs in y = ln(alpha-1), w = R/alpha (C21 eq. (13), docs/math.md s.2.3) "
           "integrated by Boost.Odeint Dormand-Prince 5(4), rtol = " +
           format_number(settings.tolerance.relative) + ", atol = " + format_number(settings.tolerance.absolute) +
           ", each value raised by " + format_number(settings.tolerance.safety_factor) +
           " x its difference from a run at 1/1000 of the "
           "tolerance, and at least by rtol relative (an a-posteriori estimate, not a proof); one characteristic per "
           "order and record, back to "
           "its foot and forward through the events; a cross-check of the other engines";
  }
  std::optional<EngineRefusal> admit(EngineRequest& r) const override {
    if (r.worst_case_over_placements)
      return EngineRefusal{"analysis.engine", "\"reference\"",
                           "noisy-sgd runs use the characteristics engine (worst case over batch placements)"};
    if (r.optimal_gamma_somewhere)
      return EngineRefusal{"analysis.gamma", "\"optimal\"",
                           "the reference engine integrates a given gamma (a number or a field in alpha and t), "
                           "not the pointwise-optimal one"};
    const double work = integration_work(r.steps, r.record, static_cast<double>(r.orders.size()));
    if (work > kReferenceEngineMaxWork)
      return EngineRefusal{
          r.record.every > 0 ? "output.record_every" : r.steps_key,
          r.record.every > 0 ? std::to_string(r.record.every) : r.steps_value,
          "the reference engine integrates every record's characteristics from the start: " + format_count(work) +
              " order-steps, more than its " + format_count(kReferenceEngineMaxWork) +
              " (raise output.record_every, or lower " + r.steps_key + " or the orders)"};
    return std::nullopt;
  }
  bool optimal_gamma_by_default(const InitialCurve&) const override { return false; }
  double relative_cost() const override { return 1000.0; }

  EngineSummary solve(const PrivacyProgram& program, const InitialCurve& initial, std::span<const double> orders,
                      const EngineSettings& settings, RecordObserver& observer) const override {
    const std::vector<StepStart> starts = step_starts(program);
    const IntegrationTolerance& tol = settings.tolerance;
    const CharacteristicSolver coarse(program, initial, starts, tol.relative, tol.absolute);
    const CharacteristicSolver fine(program, initial, starts, tol.relative / 1000.0, tol.absolute / 1000.0);
    const std::int64_t total = program.step_count();
    EngineSummary summary;
    std::vector<double> row(orders.size());
    for (std::int64_t k = 0; k <= total; ++k) {
      if (!settings.record.records(k, total)) continue;
      for (std::size_t j = 0; j < orders.size(); ++j) {
        const double f = fine.rdp(orders[j], k), c = coarse.rdp(orders[j], k);
        // raised by the estimated error, and at least by the tolerance asked of the integration
        const double raise = std::max(tol.safety_factor * std::abs(f - c), tol.relative * std::abs(f));
        row[j] = outward::round_up(f + raise, 16.0 * outward::kUnitRoundoff);
      }
      const double t =
          k == 0 ? 0.0 : starts[static_cast<std::size_t>(k - 1)].t + program.step(k - 1).diffusion.duration;
      const double A = k == 0 ? program.initial_inverse_lsi : starts[static_cast<std::size_t>(k - 1)].inverse_lsi_after;
      observer.record({k, t, lsi_constant_from_inverse(A), row, {}});
      summary.final_R = row;
      if (settings.progress && k > 0) settings.progress(k, total);
    }
    return summary;
  }
};

}  // namespace

std::unique_ptr<Engine> make_reference_engine() { return std::make_unique<ReferenceEngine>(); }

}  // namespace rdpdyn

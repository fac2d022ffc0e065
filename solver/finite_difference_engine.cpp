#include "solver/finite_difference_engine.hpp"

#include "numerics/format_number.hpp"
#include "numerics/spec_error.hpp"

#include <petscdmda.h>
#include <petscts.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "dynamics/pdi.hpp"
#include "solver/certification.hpp"
#include "solver/lsi_evaluation.hpp"

namespace rdpdyn {
namespace {

/// Throws on a PETSc error code (PETSc's own traceback printing is switched off: we report).
void check(PetscErrorCode code, const char* what) {
  if (code != 0) throw std::runtime_error(std::string("PETSc error ") + std::to_string(code) + " in " + what);
}
#define RDPDYN_PETSC(call) check((call), #call)

double order_of(double y) { return 1.0 + std::exp(y); }

/// What the certification of an optimal-gamma run keeps: per program step, snapshots of the
/// optimal gamma field of the finite-difference solution (at the step's start, at times through
/// it and at its end), sampled at fixed y. The certification's gamma is their piecewise-linear
/// interpolation in y and in time. Any field is valid for the certification; sampling costs only
/// tightness (second order in the snapshot spacing: the minimum over gamma is flat).
struct GammaHistory {
  double y_first = 0.0, y_step = 1.0;
  struct Snapshot {
    double t;
    std::vector<float> gamma;  // float: half the memory; the stored values ARE the field used
    double at(double y, double y_first, double y_step) const {
      const double x = std::clamp((y - y_first) / y_step, 0.0, static_cast<double>(gamma.size() - 1));
      const auto i = std::min(static_cast<std::size_t>(x), gamma.size() - 2);
      const double theta = x - static_cast<double>(i);
      return (1.0 - theta) * gamma[i] + theta * gamma[i + 1];
    }
  };
  std::vector<std::vector<Snapshot>> per_step;

  double lookup(std::int64_t step, double y, double t) const {
    const auto& snaps = per_step[static_cast<std::size_t>(step)];
    if (snaps.empty()) return 1.0;  // gamma = 1 is always valid (C21 Thm 1)
    std::size_t hi = 0;
    while (hi < snaps.size() && snaps[hi].t < t) ++hi;
    if (hi == 0) return snaps.front().at(y, y_first, y_step);
    if (hi == snaps.size()) return snaps.back().at(y, y_first, y_step);
    const Snapshot &a = snaps[hi - 1], &b = snaps[hi];
    const double theta = b.t > a.t ? (t - a.t) / (b.t - a.t) : 1.0;
    return (1.0 - theta) * a.at(y, y_first, y_step) + theta * b.at(y, y_first, y_step);
  }
};

struct Context {
  DM da = nullptr;
  std::int64_t N = 0, xs = 0, xm = 0;
  double y_min = 0.0, dy = 0.0;
  Limiter limiter = Limiter::MonotonizedCentral;
  const ProgramStep* step = nullptr;
  std::int64_t step_index = 0;
  double A0 = 0.0, t_start = 0.0;
  std::vector<double> a1, a2, Q;    // local cells
  std::vector<double> alpha_local;  // orders at the local cell centres
  std::string error;                // a message from a callback (no exceptions through PETSc)
  // certification of the optimal gamma
  bool keep_gamma = false;
  double next_snapshot = 0.0, snapshot_every = 0.0;
  VecScatter to_zero = nullptr;
  Vec gathered = nullptr;
  GammaHistory* history = nullptr;
  std::int64_t samples = 0;
  int rank = 0;

  double y_at(std::int64_t i) const { return y_min + (static_cast<double>(i) + 0.5) * dy; }
  double alpha_at(std::int64_t i) const { return order_of(y_at(i)); }
  /// Inflow closure: R at orders below the grid is at most R at the first cell (R_alpha is
  /// non-decreasing in alpha), so w_ghost = w_0 alpha_0 / alpha_ghost is an upper bound there.
  double inflow_ghost(double w0, std::int64_t ghost) const { return w0 * alpha_at(0) / alpha_at(ghost); }
  double gamma_fixed_or_field(double alpha, double t) const {
    const GammaChoice& g = step->gamma;
    const double gamma = g.is_field() ? g.field(alpha, t) : g.value;
    if (!(gamma > 0.0 && gamma <= 1.0))
      throw std::domain_error("gamma field '" + g.description() + "' gave " + std::to_string(gamma) +
                              " at alpha = " + std::to_string(alpha) + ": it must be in (0, 1]");
    return gamma;
  }
};

void fill_ghosts(const Context& c, PetscScalar* w) {
  if (c.xs == 0) {
    w[-1] = c.inflow_ghost(w[0], -1);
    w[-2] = c.inflow_ghost(w[0], -2);
  }
  if (c.xs + c.xm == c.N) w[c.N] = w[c.N - 1];  // outflow: zero gradient (information leaves)
}

bool depends_on_alpha(const DiffusionInterval& iv) { return lsi_depends_on_alpha(iv.lsi); }

void evaluate_rhs(Context& c, double t, const PetscScalar* w, PetscScalar* f) {
  const DiffusionInterval& iv = c.step->diffusion;
  const double s = t - c.t_start;
  // sigma(t), S_v(t) at this time (the constants unless algorithm.kind = "pdi" made them vary).
  const double sigma = sigma_at(iv, t), sensitivity = sensitivity_at(iv, t);
  if (!c.step->gamma.is_optimal() && !c.step->gamma.is_field() && !depends_on_alpha(iv)) {
    // Coefficients independent of the order: evaluate them once.
    const double gamma = c.step->gamma.value;
    const double Q = pdi::decay_scale(sigma, lsi_constant_at(iv, c.A0, s, t, c.alpha_local.front()));
    linear_pdi_rhs_uniform(w, (1.0 - gamma) * Q, pdi::source_rate(gamma, sigma, sensitivity), c.xs, c.xs + c.xm, c.dy,
                           c.limiter, f);
    return;
  }
  for (std::int64_t i = c.xs; i < c.xs + c.xm; ++i) {
    const double alpha = c.alpha_local[static_cast<std::size_t>(i - c.xs)];
    const double Q = pdi::decay_scale(sigma, lsi_constant_at(iv, c.A0, s, t, alpha));
    const auto j = static_cast<std::size_t>(i - c.xs);
    c.Q[j] = Q;
    if (!c.step->gamma.is_optimal()) {
      const double gamma = c.gamma_fixed_or_field(alpha, t);
      c.a1[j] = (1.0 - gamma) * Q;  // C21 eq. (13)
      c.a2[j] = pdi::source_rate(gamma, sigma, sensitivity);
    }
  }
  if (c.step->gamma.is_optimal())
    optimal_gamma_rhs(w, pdi::source_scale(sigma, sensitivity), c.Q.data() - c.xs, c.xs, c.xs + c.xm, c.dy, f);
  else
    linear_pdi_rhs(w, c.a1.data() - c.xs, c.a2.data() - c.xs, c.xs, c.xs + c.xm, c.dy, c.limiter, f);
}

PetscErrorCode rhs_callback(TS, PetscReal t, Vec U, Vec F, void* raw) {
  auto* c = static_cast<Context*>(raw);
  Vec local;
  PetscCall(DMGetLocalVector(c->da, &local));
  PetscCall(DMGlobalToLocalBegin(c->da, U, INSERT_VALUES, local));
  PetscCall(DMGlobalToLocalEnd(c->da, U, INSERT_VALUES, local));
  PetscScalar *w, *f;
  PetscCall(DMDAVecGetArray(c->da, local, &w));
  PetscCall(DMDAVecGetArray(c->da, F, &f));
  PetscErrorCode status = 0;
  try {
    fill_ghosts(*c, w);
    evaluate_rhs(*c, t, w, f);
  } catch (const std::exception& e) {
    c->error = e.what();
    status = PETSC_ERR_USER;
  }
  PetscCall(DMDAVecRestoreArray(c->da, F, &f));
  PetscCall(DMDAVecRestoreArray(c->da, local, &w));
  PetscCall(DMRestoreLocalVector(c->da, &local));
  return status;
}

/// Gathers the whole grid function on rank 0 (natural ordering: a 1-D DMDA's global ordering).
std::vector<double> gather(Context& c, Vec U) {
  RDPDYN_PETSC(VecScatterBegin(c.to_zero, U, c.gathered, INSERT_VALUES, SCATTER_FORWARD));
  RDPDYN_PETSC(VecScatterEnd(c.to_zero, U, c.gathered, INSERT_VALUES, SCATTER_FORWARD));
  std::vector<double> out;
  if (c.rank == 0) {
    const PetscScalar* a;
    RDPDYN_PETSC(VecGetArrayRead(c.gathered, &a));
    out.assign(a, a + c.N);
    RDPDYN_PETSC(VecRestoreArrayRead(c.gathered, &a));
  }
  return out;
}

/// PETSc log events, so that -log_view shows what the certification costs beside TSStep.
struct LogEvents {
  PetscLogEvent certify = 0, gamma_snapshot = 0;
  static const LogEvents& get() {
    static const LogEvents events = [] {
      LogEvents e;
      PetscClassId id = 0;
      PetscClassIdRegister("rdpdyn finite differences", &id);
      PetscLogEventRegister("FDCertify", id, &e.certify);
      PetscLogEventRegister("FDGammaSnapshot", id, &e.gamma_snapshot);
      return e;
    }();
    return events;
  }
};

/// Begins a PETSc log event and ends it on scope exit (exceptions included).
class LogScope {
 public:
  explicit LogScope(PetscLogEvent e) : e_(e) { PetscLogEventBegin(e_, 0, 0, 0, 0); }
  ~LogScope() { PetscLogEventEnd(e_, 0, 0, 0, 0); }
  LogScope(const LogScope&) = delete;
  LogScope& operator=(const LogScope&) = delete;

 private:
  PetscLogEvent e_;
};

/// Keeps the optimal gamma field of the current state for the certification (rank 0).
void snapshot_gamma(Context& c, double t, Vec U) {
  const LogScope scope(LogEvents::get().gamma_snapshot);
  const std::vector<double> w = gather(c, U);  // collective
  if (c.rank != 0) return;
  const DiffusionInterval& iv = c.step->diffusion;
  const double sigma = sigma_at(iv, t);
  const double P = pdi::source_scale(sigma, sensitivity_at(iv, t));
  std::vector<double> gamma(static_cast<std::size_t>(c.N));
  for (std::int64_t i = 0; i < c.N; ++i) {
    const double w_prev = i == 0 ? c.inflow_ghost(w[0], -1) : w[static_cast<std::size_t>(i - 1)];
    const double wi = w[static_cast<std::size_t>(i)];
    const double Q = pdi::decay_scale(sigma, lsi_constant_at(iv, c.A0, t - c.t_start, t, c.alpha_at(i)));
    gamma[static_cast<std::size_t>(i)] = optimal_gamma_at(P, Q, wi + (wi - w_prev) / c.dy);  // the scheme's z
  }
  GammaHistory::Snapshot snap{t, std::vector<float>(static_cast<std::size_t>(c.samples))};
  for (std::int64_t k = 0; k < c.samples; ++k) {
    const double y = c.history->y_first + static_cast<double>(k) * c.history->y_step;
    const double x = std::clamp((y - c.y_at(0)) / c.dy, 0.0, static_cast<double>(c.N - 1));
    const auto i = std::min(static_cast<std::size_t>(x), static_cast<std::size_t>(c.N - 2));
    const double theta = x - static_cast<double>(i);
    snap.gamma[static_cast<std::size_t>(k)] = static_cast<float>((1.0 - theta) * gamma[i] + theta * gamma[i + 1]);
  }
  c.history->per_step[static_cast<std::size_t>(c.step_index)].push_back(std::move(snap));
}

PetscErrorCode pre_step_callback(TS ts) {
  void* raw;
  PetscCall(TSGetApplicationContext(ts, &raw));
  auto* c = static_cast<Context*>(raw);
  if (!c->keep_gamma || !c->step->gamma.is_optimal()) return 0;
  PetscReal t;
  PetscCall(TSGetTime(ts, &t));
  if (t + 1e-15 * std::abs(t) < c->next_snapshot) return 0;
  c->next_snapshot += c->snapshot_every;
  Vec U;
  PetscCall(TSGetSolution(ts, &U));
  try {
    snapshot_gamma(*c, t, U);
  } catch (const std::exception& e) {
    c->error = e.what();
    return PETSC_ERR_USER;
  }
  return 0;
}

/// Quadratic (three nearest cell centres) interpolation of w at order alpha: the
/// finite-difference value at an order between centres, third-order accurate so that it does not
/// mask the scheme's own error.
double interpolate_w(const Context& c, const std::vector<double>& w, double alpha) {
  const double x = std::clamp((std::log(alpha - 1.0) - c.y_at(0)) / c.dy, 0.0, static_cast<double>(c.N - 1));
  const auto mid = std::clamp<std::int64_t>(std::llround(x), 1, c.N - 2);
  const double u = x - static_cast<double>(mid);  // in [-1/2, 1/2] away from the edges
  const auto m = static_cast<std::size_t>(mid);
  return w[m - 1] * u * (u - 1.0) / 2.0 + w[m] * (1.0 - u * u) + w[m + 1] * u * (u + 1.0) / 2.0;
}

/// Exact scalar flow of a point-mass interval (w no longer depends on the start when it
/// transports), applied cell by cell.
void point_mass_interval(const Context& c, Vec U, double t_start) {
  const ProgramStep& ps = *c.step;
  if (ps.gamma.is_field())
    throw SpecError("analysis.gamma", "\"" + ps.gamma.description() + "\"",
                    "a gamma field that depends on alpha is not supported on an interval that starts from a "
                    "point mass");
  PetscScalar* w;
  RDPDYN_PETSC(VecGetArray(U, &w));
  for (std::int64_t j = 0; j < c.xm; ++j) {
    if (ps.gamma.is_optimal()) {
      w[j] = optimal_gamma_flow(ps.diffusion, w[j], 0.0, t_start, {});
    } else {
      const IntervalFlow flow = fixed_gamma_flow(ps.diffusion, ps.gamma.value, 0.0, t_start, {});
      w[j] = (std::isinf(flow.transport) ? 0.0 : std::exp(-flow.transport) * w[j]) + flow.source;
    }
  }
  RDPDYN_PETSC(VecRestoreArray(U, &w));
}

struct PetscObjects {
  DM da = nullptr;
  Vec U = nullptr, gathered = nullptr;
  TS ts = nullptr;
  VecScatter to_zero = nullptr;
  ~PetscObjects() {
    if (ts) TSDestroy(&ts);
    if (to_zero) VecScatterDestroy(&to_zero);
    if (gathered) VecDestroy(&gathered);
    if (U) VecDestroy(&U);
    if (da) DMDestroy(&da);
  }
};

}  // namespace

FiniteDifferenceSummary solve_by_finite_differences(MPI_Comm comm, const PrivacyProgram& program,
                                                    const InitialCurve& initial, std::span<const double> orders,
                                                    const FiniteDifferenceOptions& options,
                                                    const FiniteDifferenceSink& sink) {
  const FiniteDifferenceGrid& grid = options.grid;
  Context c;
  MPI_Comm_rank(comm, &c.rank);
  c.N = grid.cells;
  c.limiter = grid.limiter;
  const double alpha_max = grid.alpha_max > 0.0 ? grid.alpha_max : 4.0 * orders.back();
  c.y_min = std::log(grid.alpha_min - 1.0);
  c.dy = (std::log(alpha_max - 1.0) - c.y_min) / static_cast<double>(c.N);

  PetscPushErrorHandler(PetscReturnErrorHandler, nullptr);
  struct PopHandler {
    ~PopHandler() { PetscPopErrorHandler(); }
  } pop;
  PetscObjects p;
  RDPDYN_PETSC(DMDACreate1d(comm, DM_BOUNDARY_GHOSTED, static_cast<PetscInt>(c.N), 1, 2, nullptr, &p.da));
  RDPDYN_PETSC(DMSetFromOptions(p.da));
  RDPDYN_PETSC(DMSetUp(p.da));
  c.da = p.da;
  PetscInt xs, xm;
  RDPDYN_PETSC(DMDAGetCorners(p.da, &xs, nullptr, nullptr, &xm, nullptr, nullptr));
  c.xs = xs;
  c.xm = xm;
  c.a1.resize(static_cast<std::size_t>(xm));
  c.a2.resize(static_cast<std::size_t>(xm));
  c.Q.resize(static_cast<std::size_t>(xm));
  for (std::int64_t i = xs; i < xs + xm; ++i) c.alpha_local.push_back(c.alpha_at(i));
  RDPDYN_PETSC(DMCreateGlobalVector(p.da, &p.U));
  RDPDYN_PETSC(VecScatterCreateToZero(p.U, &p.to_zero, &p.gathered));
  c.to_zero = p.to_zero;
  c.gathered = p.gathered;

  {  // initial data: w_0 = R_0(alpha) / alpha at the cell centres
    PetscScalar* w;
    RDPDYN_PETSC(VecGetArray(p.U, &w));
    for (std::int64_t i = xs; i < xs + xm; ++i) w[i - xs] = initial_rdp(initial, c.alpha_at(i)) / c.alpha_at(i);
    RDPDYN_PETSC(VecRestoreArray(p.U, &w));
  }

  RDPDYN_PETSC(TSCreate(comm, &p.ts));
  RDPDYN_PETSC(TSSetApplicationContext(p.ts, &c));
  RDPDYN_PETSC(TSSetRHSFunction(p.ts, nullptr, rhs_callback, &c));
  RDPDYN_PETSC(TSSetType(p.ts, TSSSP));
  RDPDYN_PETSC(TSSSPSetType(p.ts, TSSSPRKS3));  // third-order SSP Runge-Kutta
  RDPDYN_PETSC(TSSSPSetNumStages(p.ts, 4));     // s = 4: SSP coefficient 2
  RDPDYN_PETSC(TSSetExactFinalTime(p.ts, TS_EXACTFINALTIME_MATCHSTEP));
  RDPDYN_PETSC(TSSetPreStep(p.ts, pre_step_callback));
  RDPDYN_PETSC(TSSetFromOptions(p.ts));  // -ts_type, -ts_ssp_type, -ts_monitor ... override

  GammaHistory history;
  bool any_optimal = false;
  for (const auto& phase : program.phases()) any_optimal |= phase.step.gamma.is_optimal();
  c.keep_gamma = any_optimal;
  c.history = &history;
  c.samples = std::max<std::int64_t>(2, grid.gamma_samples);
  history.y_first = c.y_at(0);
  history.y_step = (c.y_at(c.N - 1) - c.y_at(0)) / static_cast<double>(c.samples - 1);
  history.per_step.resize(static_cast<std::size_t>(program.step_count()));

  // Registered on every rank in the same order; the certifier's set-up (straight flows composed
  // once) counts as certification.
  const Certifier certifier = [&] {
    const LogScope scope(LogEvents::get().certify);
    CloudSettings cloud;
    cloud.y_min = std::min(cloud.y_min, c.y_min - 1.0);
    cloud.path_steps = options.cloud_path_steps;
    for (std::int64_t k = 0; k <= program.step_count(); ++k)
      cloud.expected_records += options.record.records(k, program.step_count()) ? 1 : 0;
    return Certifier(program, initial, options.tolerance, options.certification, cloud);
  }();
  const std::int64_t total = program.step_count();
  FiniteDifferenceSummary summary;
  summary.dy = c.dy;
  double inverse_lsi = program.initial_inverse_lsi, t = 0.0, reach = 0.0;
  std::vector<double> alphas(static_cast<std::size_t>(c.N));
  for (std::int64_t i = 0; i < c.N; ++i) alphas[static_cast<std::size_t>(i)] = c.alpha_at(i);

  auto record = [&](std::int64_t step) {
    const std::vector<double> w = gather(c, p.U);  // collective
    if (c.rank != 0) return;
    const LogScope scope(LogEvents::get().certify);
    std::vector<double> fd(orders.size()), certified(orders.size()), landing(orders.size());
    const OptimalGammaLookup lookup{[&](std::int64_t k, double y, double tt) { return history.lookup(k, y, tt); },
                                    [&](std::int64_t k) {
                                      std::vector<double> times;
                                      for (const auto& snap : history.per_step[static_cast<std::size_t>(k)])
                                        times.push_back(snap.t);
                                      return times;
                                    }};
    const auto values =
        options.certify ? certifier.certify(step, orders, lookup)
                        : std::vector<CertifiedValue>(orders.size(), {std::numeric_limits<double>::quiet_NaN(), 0.0});
    for (std::size_t j = 0; j < orders.size(); ++j) {
      fd[j] = orders[j] * interpolate_w(c, w, orders[j]);
      certified[j] = values[j].rdp;
      landing[j] = values[j].landing_order;
      if (certified[j] > 0.0)
        summary.max_relative_gap =
            std::max(summary.max_relative_gap, std::isfinite(fd[j]) ? std::abs(certified[j] - fd[j]) / certified[j]
                                                                    : std::numeric_limits<double>::infinity());
    }
    sink(step, t, lsi_constant_from_inverse(inverse_lsi), certified, fd, landing);
  };
  record(0);

  program.for_each_step([&](std::int64_t k, const ProgramStep& step) {
    double jump = 0.0;
    for (const auto& e : step.before) {
      jump += rdp_slope_jump(e);
      update_inverse_lsi(inverse_lsi, e);
    }
    if (jump != 0.0) RDPDYN_PETSC(VecShift(p.U, jump));
    c.step = &step;
    c.step_index = k;
    c.A0 = inverse_lsi;
    c.t_start = t;
    const DiffusionInterval& iv = step.diffusion;
    const bool point_mass = starts_from_point_mass(iv.lsi, inverse_lsi);
    if (point_mass) {
      point_mass_interval(c, p.U, t);
    } else {
      const double transport = max_transport_bound(iv, inverse_lsi, t, alphas.data(), alphas.size());
      // Characteristics move at (1 - gamma) Q <= Q; with a fixed gamma the factor is known.
      const bool fixed = !step.gamma.is_optimal() && !step.gamma.is_field();
      reach += fixed ? (1.0 - step.gamma.value) * transport : transport;
      // Stable step for both schemes: dt max Q (1 + 1/dy) <= cfl (the monotone Hamilton-Jacobi
      // condition; for the MUSCL scheme it also keeps the SSP stages TVD).
      const double Q_rate = transport / iv.duration;  // mean; the maximum is at s = 0 for Lemma 9
      const double Q_max = std::visit(
          Overloaded{[&](const GaussianConvolutionLsi&) { return pdi::decay_scale(iv.sigma, 1.0 / inverse_lsi); },
                     [&](const ConstantLsi&) { return Q_rate; }, [&](const FunctionLsi&) { return Q_rate; }},
          iv.lsi);
      const double n_sub = std::max(1.0, std::ceil(iv.duration * Q_max * (1.0 + 1.0 / c.dy) / grid.cfl));
      if (n_sub > 1e7)
        throw SpecError("grid.cells", std::to_string(grid.cells),
                        "step " + std::to_string(k + 1) + " needs " + format_count(n_sub) +
                            " time steps on this grid (LSI constant too large); use the characteristics engine "
                            "or a coarser grid");
      c.snapshot_every = iv.duration / std::max(1, grid.gamma_snapshots_per_step);
      c.next_snapshot = t;
      PetscInt done;
      RDPDYN_PETSC(TSGetStepNumber(p.ts, &done));
      RDPDYN_PETSC(TSSetTime(p.ts, t));
      RDPDYN_PETSC(TSSetMaxTime(p.ts, t + iv.duration));
      RDPDYN_PETSC(TSSetTimeStep(p.ts, iv.duration / n_sub));
      // Room for adaptive methods chosen with -ts_type; the end time is checked below.
      RDPDYN_PETSC(TSSetMaxSteps(p.ts, done + 100 * static_cast<PetscInt>(n_sub) + 1000));
      const PetscErrorCode code = TSSolve(p.ts, p.U);
      if (code != 0) {
        if (!c.error.empty()) throw std::domain_error(c.error);
        check(code, "TSSolve");
      }
      PetscReal reached;
      RDPDYN_PETSC(TSGetTime(p.ts, &reached));
      if (!(std::abs(reached - (t + iv.duration)) <= 1e-12 * (1.0 + std::abs(t + iv.duration))))
        throw std::runtime_error("PETSc TS stopped at t = " + std::to_string(reached) + " before the end of step " +
                                 std::to_string(k + 1) + " (t = " + std::to_string(t + iv.duration) + ")");
      PetscInt after;
      RDPDYN_PETSC(TSGetStepNumber(p.ts, &after));
      summary.time_steps += after - done;
      if (c.keep_gamma && step.gamma.is_optimal()) snapshot_gamma(c, t + iv.duration, p.U);  // the step's end
    }
    inverse_lsi = end_inverse_lsi(iv, inverse_lsi, t);
    t = c.t_start + iv.duration;
    jump = 0.0;
    for (const auto& e : step.after) {
      jump += rdp_slope_jump(e);
      update_inverse_lsi(inverse_lsi, e);
    }
    if (jump != 0.0) RDPDYN_PETSC(VecShift(p.U, jump));
    if (options.record.records(k + 1, total)) record(k + 1);
    if (options.progress && c.rank == 0) options.progress(k + 1, total);
  });

  summary.inflow_reach_y = c.y_min + reach + 2.0 * c.dy;
  for (double alpha : orders)
    summary.boundary_influenced.push_back(std::log(alpha - 1.0) <= summary.inflow_reach_y ? 1.0 : 0.0);
  return summary;
}

namespace {

class FiniteDifferenceEngine final : public Engine {
 public:
  explicit FiniteDifferenceEngine(MPI_Comm comm) : comm_(comm) {}
  std::string name() const override { return "finite-difference"; }
  bool needs_petsc() const override { return true; }
  bool optimal_gamma_by_default(const InitialCurve&) const override { return true; }
  double relative_cost() const override { return 64.0; }
  /// The grid must contain the orders; its inflow edge must lie below them; a tabulated initial
  /// curve must cover it (no extrapolation above the table).
  std::optional<EngineRefusal> admit(EngineRequest& r) const override {
    if (r.worst_case_over_placements)
      return EngineRefusal{"analysis.engine", "\"finite-difference\"",
                           "noisy-sgd runs use the characteristics engine (worst case over batch placements)"};
    if (const auto* t = std::get_if<TableCurve>(&r.initial)) {
      const double top = t->alpha.back();
      if (r.grid.alpha_max == 0.0) r.grid.alpha_max = std::min(4.0 * r.orders.back(), top);
      if (r.grid.alpha_max > top)
        return EngineRefusal{"grid.alpha_max", format_number(r.grid.alpha_max),
                             "must be <= the largest tabulated order initial.alpha = " + format_number(top)};
    }
    if (!(r.grid.alpha_min < r.orders.front()))
      return EngineRefusal{"grid.alpha_min", format_number(r.grid.alpha_min),
                           "must be < the smallest order " + format_number(r.orders.front())};
    if (r.grid.alpha_max != 0.0 && !(r.grid.alpha_max > r.orders.back()))
      return EngineRefusal{"grid.alpha_max", format_number(r.grid.alpha_max),
                           "must be > the largest order " + format_number(r.orders.back())};
    return std::nullopt;
  }
  /// The grid's vectors (the solution, the PETSc time stepper's work vectors, the coefficients a1,
  /// a2, Q, the cells' orders, rank 0's gathered copy, a snapshot's gamma field: 16 per cell) and,
  /// for the optimal gamma, the snapshots of its field kept per step for the certification.
  std::vector<MemoryTerm> memory_terms(const EngineRequest& r) const override {
    constexpr double kGridVectors = 16, kValue = sizeof(double);
    constexpr double kSnapshotHeader = sizeof(double) + sizeof(std::vector<float>);
    const double cells = static_cast<double>(r.grid.cells);
    std::vector<MemoryTerm> terms{{cells * kGridVectors * kValue, format_count(cells) + " cells x 16 vectors x 8 B",
                                   "grid.cells", format_count(cells), "lower grid.cells"}};
    const bool optimal = r.optimal_gamma_somewhere;
    const double snapshots = optimal ? r.grid.gamma_snapshots_per_step + 1.0 : 0.0;
    const double samples = static_cast<double>(r.grid.gamma_samples);
    const double per_step = sizeof(std::vector<int>) + snapshots * (samples * sizeof(float) + kSnapshotHeader);
    terms.push_back({r.steps * per_step,
                     format_count(r.steps) + " steps x (" +
                         (optimal ? format_count(snapshots) + " optimal-gamma snapshots x " + format_count(samples) +
                                        " samples x 4 B + "
                                  : std::string()) +
                         "bookkeeping)",
                     r.steps_key, r.steps_value,
                     "lower " + r.steps_key +
                         (optimal ? ", grid.gamma_samples or grid.gamma_snapshots_per_step, or give a fixed "
                                    "analysis.gamma"
                                  : "")});
    return terms;
  }
  std::string method(const EngineSettings& settings) const override {
    const auto& g = settings.grid;
    return "finite differences (method of lines) on a PETSc DMDA over y = ln(alpha-1): " + std::to_string(g.cells) +
           " cells, limiter " + limiter_name(g.limiter) + ", cfl " + format_number(g.cfl) +
           ", TS SSP-RK3 (4 stages) unless -ts_type says otherwise; inflow "
           "closure R(alpha < alpha_min) <= R(alpha_min). /R is CERTIFIED: each value integrates the "
           "linear PDI exactly along a characteristic (Boost.Odeint, rtol = " +
           format_number(settings.tolerance.relative) +
           ", conservative bias) with the gamma field of the "
           "finite-difference solution, landing at or above the order; the finite-difference value "
           "is /extras/R_finite_difference";
  }
  std::vector<RowSeriesSpec> row_series() const override {
    return {{"R_finite_difference", "finite-difference value of R (not certified)",
             "nats (Renyi divergence R_alpha, natural log)"},
            {"certified_landing_order",
             "order reached by the characteristic behind each certified value (>= the order; R is "
             "non-decreasing in alpha)",
             "Renyi order alpha (dimensionless, > 1)"}};
  }
  EngineSummary solve(const PrivacyProgram& program, const InitialCurve& initial, std::span<const double> orders,
                      const EngineSettings& settings, RecordObserver& observer) const override {
    EngineSummary out;
    out.final_R.assign(orders.size(), 0.0);
    FiniteDifferenceOptions options{settings.grid, settings.record, settings.tolerance, true, settings.progress};
    const FiniteDifferenceSummary summary =
        solve_by_finite_differences(comm_, program, initial, orders, options,
                                    [&](std::int64_t step, double t, double c, std::span<const double> certified,
                                        std::span<const double> finite_difference, std::span<const double> landing) {
                                      observer.record({step, t, c, certified, {finite_difference, landing}});
                                      out.final_R.assign(certified.begin(), certified.end());
                                    });
    // Rows arrive on rank 0 only: every rank gets the final one.
    MPI_Bcast(out.final_R.data(), static_cast<int>(out.final_R.size()), MPI_DOUBLE, 0, comm_);
    out.per_order.push_back({"boundary_influenced",
                             "1 where the inflow closure at alpha_min can reach the order (the "
                             "finite-difference value there depends on it; the certified /R does not)",
                             summary.boundary_influenced});
    out.attributes["fd_cells"] = std::to_string(settings.grid.cells);
    out.attributes["fd_dy"] = format_number(summary.dy);
    out.attributes["fd_time_steps"] = std::to_string(summary.time_steps);
    out.attributes["fd_max_relative_gap"] = format_number(summary.max_relative_gap);
    out.attributes["fd_inflow_reach_alpha"] = format_number(1.0 + std::exp(summary.inflow_reach_y));
    return out;
  }

 private:
  MPI_Comm comm_;
};

}  // namespace

std::unique_ptr<Engine> make_finite_difference_engine(MPI_Comm comm) {
  return std::make_unique<FiniteDifferenceEngine>(comm);
}

}  // namespace rdpdyn

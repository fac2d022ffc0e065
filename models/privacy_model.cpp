#include "models/privacy_model.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/bounded_domain_lsi.hpp"
#include "models/gradient_map.hpp"
#include "models/known_constants.hpp"
#include "models/langevin_strongly_convex.hpp"
#include "models/noise_units.hpp"
#include "numerics/spec_error.hpp"

namespace rdpdyn {

std::int64_t RunSpec::total_steps() const {
  if (algorithm.kind == AlgorithmKind::Langevin || algorithm.kind == AlgorithmKind::Pdi) return algorithm.intervals;
  std::int64_t k = 0;
  for (const auto& p : algorithm.phases) k += p.steps;
  return k;
}

namespace {

void check_step_size_below_inverse_smoothness(const RunSpec& spec, const char* lemma) {
  const double beta = spec.lsi.beta;
  for (std::size_t i = 0; i < spec.algorithm.phases.size(); ++i) {
    const double eta = spec.algorithm.phases[i].eta;
    if (!(eta < 1.0 / beta))
      throw SpecError(spec.algorithm.phases[i].origin + ".eta",
                      format_number(eta) + spec.algorithm.phases[i].steps_note(),
                      "must be < 1/beta = " + format_number(1.0 / beta) + " (" + lemma + ")");
  }
}

/// What the loss's Hessian bounds lambda I <= Hess l <= beta I must satisfy: strong convexity
/// (0 < lambda), or any lambda >= -beta (lambda < 0: an m = -lambda weakly convex loss; the gradient
/// map is then (1 + eta m)-Lipschitz, models/gradient_map.hpp).
enum class LambdaRange { StronglyConvex, WeaklyConvex };

void check_smoothness(const LsiSpec& lsi, LambdaRange range, bool beta_may_be_zero = false) {
  if (!(beta_may_be_zero ? lsi.beta >= 0.0 : lsi.beta > 0.0) || !std::isfinite(lsi.beta))
    throw SpecError("lsi.beta", format_number(lsi.beta),
                    beta_may_be_zero ? "must be a finite number >= 0" : "must be a finite number > 0");
  const bool strong = range == LambdaRange::StronglyConvex;
  const bool lambda_ok = strong ? lsi.lambda > 0.0 : lsi.lambda >= -lsi.beta;
  if (!lambda_ok || !(lsi.lambda <= lsi.beta))
    throw SpecError("lsi.lambda", format_number(lsi.lambda),
                    std::string(strong ? "must satisfy 0 < lambda" : "must satisfy -beta <= lambda") +
                        " <= beta = " + format_number(lsi.beta) +
                        (strong ? "" : " (lambda < 0: an m = -lambda weakly convex loss; -beta: smooth only)"));
}

/// The gradient map's Lipschitz constant of every update of a phase of step size eta
/// (models/gradient_map.hpp; Poisson batches scale the loss's constants).
double step_map_lipschitz(const RunSpec& spec, double eta) {
  if (spec.lsi.lipschitz) return *spec.lsi.lipschitz;  // declared by the user for every update
  const bool poisson = spec.algorithm.sampling == BatchSampling::Poisson;
  return update_map_lipschitz(eta, spec.lsi.lambda, spec.lsi.beta,
                              poisson ? std::optional<double>(spec.algorithm.sampling_rate) : std::nullopt);
}

/// A bound on the norm of every update's gradient when per-record norms are declared <= S_g/2
/// ([domain] lipschitz_loss): S_g/2 for the full batch and fixed-size batches, S_g/(2q) for Poisson
/// batches (at most n records over q n).
std::optional<double> update_gradient_bound(const RunSpec& spec) {
  // The run's S_g: [domain] lipschitz_loss bounds every record's gradient by algorithm.sensitivity / 2,
  // whatever a phase's own sensitivity says about the differing record.
  if (!spec.gradients_norm_bounded) return std::nullopt;
  const double per_record = spec.algorithm.sensitivity / 2.0;
  return spec.algorithm.sampling == BatchSampling::Poisson ? per_record / spec.algorithm.sampling_rate : per_record;
}

/// Places the configured events: after_step 0 goes before the first step, k after step k.
void attach_events(const RunSpec& spec, PrivacyProgram& program) {
  std::ptrdiff_t zero_step_events = 0;
  for (const auto& e : spec.events) {
    if (program.step_count() == 0) return;
    if (e.after_step == 0) {  // before anything of step 1, including its gradient map
      ProgramStep& first = program.isolate(0);
      first.before.insert(first.before.begin() + zero_step_events++, e.event);
    } else {
      program.isolate(e.after_step - 1).after.push_back(e.event);
    }
  }
}

bool uniform_sigma(const AlgorithmSpec& a) {
  for (const auto& p : a.phases)
    if (p.sigma != a.phases.front().sigma) return false;
  return true;
}

}  // namespace

void check_model_assumptions(const RunSpec& spec) {
  const auto& a = spec.algorithm;
  const auto& lsi = spec.lsi;
  if (a.kind == AlgorithmKind::Pdi) {
    if (lsi.kind != LsiKind::Constant && lsi.kind != LsiKind::Function)
      throw SpecError("lsi.kind", "\"" + lsi_kind_name(lsi.kind) + "\"",
                      "algorithm.kind = \"pdi\" accepts only \"constant\" or \"function\" LSI schedules "
                      "(the PDI takes c(t) as given; the other kinds derive it from a training run)");
    return;
  }
  if (a.kind == AlgorithmKind::Langevin) {
    if (lsi.kind != LsiKind::Constant && lsi.kind != LsiKind::Function && lsi.kind != LsiKind::StronglyConvex)
      throw SpecError(
          "lsi.kind", "\"" + lsi_kind_name(lsi.kind) + "\"",
          "Langevin diffusion accepts only \"constant\", \"function\" or \"strongly-convex\" LSI schedules");
    if (lsi.kind == LsiKind::StronglyConvex) {
      if (!(lsi.lambda > 0.0) || !std::isfinite(lsi.lambda))
        throw SpecError("lsi.lambda", format_number(lsi.lambda), "must be a finite number > 0");
      // c = lambda/sigma^2 is derived for the unconstrained diffusion from the unconstrained start
      // N(0, (sigma^2/lambda) I) (models/langevin_strongly_convex.hpp).
      if (spec.diameter)
        throw SpecError("domain.diameter", format_number(*spec.diameter),
                        "lsi.kind = \"strongly-convex\" on a Langevin run declares the unconstrained diffusion "
                        "started at N(0, (sigma^2/lambda) I); a projection on a set of diameter D is outside that "
                        "model (use lsi.kind = \"constant\" with a c you certify)");
    }
    return;
  }
  if (a.loss == LossKind::Squared) {
    // l = |theta - x|^2 / 2 is 1-strongly convex and 1-smooth; C21 Thm 3 needs eta < 1.
    for (std::size_t i = 0; i < a.phases.size(); ++i)
      if (!(a.phases[i].eta < 1.0))
        throw SpecError(a.phases[i].origin + ".eta", format_number(a.phases[i].eta) + a.phases[i].steps_note(),
                        "must be < 1 for the squared loss (C21 Thm 3, Cor 2)");
  }
  const bool poisson = a.kind == AlgorithmKind::NoisySgd && a.sampling == BatchSampling::Poisson;
  if (poisson && (lsi.kind == LsiKind::StronglyConvex || lsi.kind == LsiKind::SquaredLoss))
    throw SpecError("lsi.kind", "\"" + lsi_kind_name(lsi.kind) + "\"",
                    "needs every update's loss strongly convex; a Poisson batch may be empty or small (the update's "
                    "loss sum_{i in B} l_i / (q n) has its constants scaled by |B|/(q n)): use lsi.kind = "
                    "\"recursion\" or \"bounded-domain\", which take the scaling into account");
  if (a.loss == LossKind::NonConvex) {
    if (lsi.kind == LsiKind::StronglyConvex || lsi.kind == LsiKind::SquaredLoss || lsi.kind == LsiKind::ExactQuadratic)
      throw SpecError("lsi.kind", "\"" + lsi_kind_name(lsi.kind) + "\"",
                      "assumes a convex loss; algorithm.loss = \"nonconvex\" declares none (use \"bounded-domain\")");
    if ((lsi.kind == LsiKind::Recursion || lsi.kind == LsiKind::BoundedDomain) && !lsi.lipschitz && lsi.lambda >= 0.0)
      throw SpecError("lsi.lambda", format_number(lsi.lambda),
                      "must be < 0 with algorithm.loss = \"nonconvex\" (lambda bounds the Hessian from below: -m for "
                      "an m-weakly convex loss; omit it with lsi.kind = \"bounded-domain\" for a smooth loss)");
  }
  // A point start (recursion or bounded-domain without c0 or a stated law) has c = +infinity, and the
  // PDI forgets everything before it; two point masses are 0 or +infinity apart, so a declared finite
  // R_0 > 0 would be dropped.
  if ((lsi.kind == LsiKind::Recursion || lsi.kind == LsiKind::BoundedDomain) && !lsi.c0 &&
      !stated_initial_variance(spec) && !std::holds_alternative<ZeroCurve>(spec.initial))
    throw SpecError("initial", "\"" + initial_curve_kind(spec.initial) + "\"",
                    "declares a divergence between the two starts, but lsi.kind = \"" + lsi_kind_name(lsi.kind) +
                        "\" without lsi.c0 starts both runs at one point (c = +infinity, where the PDI forgets "
                        "the start); give lsi.c0, the LSI constant of the initial laws");
  switch (lsi.kind) {
    case LsiKind::StronglyConvex:
      check_smoothness(lsi, LambdaRange::StronglyConvex);
      check_step_size_below_inverse_smoothness(spec, "C21 Lemma 5");
      if (!uniform_sigma(a))
        throw SpecError("algorithm.schedule", "phases with different sigma",
                        "lsi.kind = \"strongly-convex\" (C21 Lemma 5) needs one sigma for all "
                        "steps; use lsi.kind = \"recursion\"");
      break;
    case LsiKind::Recursion:
      if (!lsi.lipschitz)
        check_smoothness(lsi, LambdaRange::WeaklyConvex);  // any eta: L = max(|1-eta lambda|, |1-eta beta|)
      break;
    case LsiKind::SquaredLoss:
      if (a.loss != LossKind::Squared)
        throw SpecError("lsi.kind", "\"squared-loss\"", "needs algorithm.loss = \"squared\" (C21 Cor 2)");
      break;
    case LsiKind::ExactQuadratic:
      if (a.loss != LossKind::Quadratic || a.kind != AlgorithmKind::NoisyGd || a.phases.size() != 1)
        throw SpecError("lsi.kind", "\"exact-quadratic\"",
                        "needs algorithm.kind = \"noisy-gd\", loss = \"quadratic\" and one step size and noise level");
      break;
    case LsiKind::BoundedDomain:
      check_smoothness(lsi, LambdaRange::WeaklyConvex, /*beta_may_be_zero=*/true);
      if (!spec.diameter)
        throw SpecError("domain.diameter", "missing",
                        "lsi.kind = \"bounded-domain\" needs the diameter D of the set every step projects onto "
                        "(docs/math.md section 2.7)");
      break;
    case LsiKind::Constant:
    case LsiKind::Function:
      break;
  }
  // Declared constants against what the run defines (quadratic and squared losses, a stated start).
  check_declared_constants(spec);
}

std::vector<std::string> missing_pdi_constants(const RunSpec& spec) {
  std::vector<std::string> missing;
  if (!spec.algorithm.declares_eta) missing.push_back("algorithm.eta");
  if (!spec.algorithm.declares_sensitivity) missing.push_back("algorithm.sensitivity");
  if (!spec.declares_lsi) missing.push_back("lsi");
  return missing;
}

void require_pdi_constants(const RunSpec& spec) {
  const std::vector<std::string> missing = missing_pdi_constants(spec);
  if (missing.empty()) return;
  std::string list;
  for (const auto& m : missing) {
    if (!list.empty()) list += ", ";
    list += m == "lsi" ? std::string("[lsi]") : m;
  }
  throw SpecError(missing.front(), "missing",
                  "the PDI needs the step size, the gradient sensitivity and an LSI model of the iterates; "
                  "this run, configured for accounting alone, does not declare " +
                      list + " (`rdpdyn compare` evaluates its accountants)");
}

PrivacyProgram build_noisy_gd_program(const RunSpec& spec) {
  require_pdi_constants(spec);
  check_model_assumptions(spec);
  const auto& a = spec.algorithm;
  const auto& lsi = spec.lsi;
  PrivacyProgram program;
  switch (lsi.kind) {
    case LsiKind::Constant:
      program.initial_inverse_lsi = 1.0 / lsi.c;
      break;
    case LsiKind::StronglyConvex:
      // Theta_0 ~ Pi(N(0, 2 sigma^2 / lambda)) (C21 Lemma 5).
      program.initial_inverse_lsi = 2.0 * a.phases.front().sigma * a.phases.front().sigma / lsi.lambda;
      break;
    case LsiKind::Recursion:
    case LsiKind::BoundedDomain:
      // Without c0: the stated start N(mu, s^2 I) (1/s^2-LSI, C21 Def. 3.2), else a point mass.
      program.initial_inverse_lsi =
          lsi.c0 ? 1.0 / *lsi.c0 : stated_initial_variance(spec).value_or(kPointMassInverseLsi);
      break;
    case LsiKind::SquaredLoss:
      program.initial_inverse_lsi = kPointMassInverseLsi;
      break;  // theta_0 = 0
    case LsiKind::Function:
    case LsiKind::ExactQuadratic:  // a point start, or the stated N(mu, s^2 I)
      program.initial_inverse_lsi = stated_initial_variance(spec).value_or(kPointMassInverseLsi);
      break;
  }

  // Every step of a configured phase is the same step: one program phase each.
  program.reserve(a.phases.size() + spec.events.size());
  for (const auto& phase : a.phases) {
    const GammaChoice gamma = phase.gamma ? GammaChoice::fixed(*phase.gamma) : spec.gamma;
    const double Sv = phase.sensitivity.value_or(a.sensitivity) / a.n;  // C21 Lemma 4: S_g / n
    ProgramStep step{{}, {phase.eta, phase.sigma, Sv, ConstantLsi{1.0}, nullptr}, {}, gamma};
    switch (lsi.kind) {
      case LsiKind::Constant:
        step.diffusion.lsi = ConstantLsi{lsi.c};
        break;
      case LsiKind::StronglyConvex:
        step.diffusion.lsi = ConstantLsi{lsi.lambda / (2.0 * phase.sigma * phase.sigma)};  // C21 Lemma 5
        break;
      case LsiKind::Recursion: {
        step.before.push_back(LipschitzMap{step_map_lipschitz(spec, phase.eta)});  // C21 Lemma 8: gradient map
        step.diffusion.lsi = GaussianConvolutionLsi{};                             // C21 Lemma 9
        break;
      }
      case LsiKind::BoundedDomain: {
        // The recursion, and at the step's end the bound of a gradient-mapped point of the set (diameter
        // Dg) convolved with the step's noise; the projection keeps it (docs/math.md section 2.7).
        const double L = step_map_lipschitz(spec, phase.eta);
        step.before.push_back(LipschitzMap{L});
        step.diffusion.lsi = GaussianConvolutionLsi{};
        const double Dg = bounded_domain::mapped_diameter(*spec.diameter, L, phase.eta, update_gradient_bound(spec));
        step.after.push_back(
            InverseLsiCap{bounded_domain::mixture_inverse_lsi(Dg, 2.0 * phase.eta * phase.sigma * phase.sigma)});
        // The cap needs the step's start law on the set: theta_0 is a point of C, but a declared
        // c0-LSI or Gaussian start need not lie in C, so the run's first step goes uncapped.
        if (&phase == &a.phases.front() && program.initial_inverse_lsi != kPointMassInverseLsi) {
          ProgramStep first = step;
          first.after.pop_back();
          program.append(std::move(first), 1);
          program.append(std::move(step), phase.steps - 1);
          continue;
        }
        break;
      }
      case LsiKind::SquaredLoss:
        // C21 Cor 2 proof: variance <= 2 sigma^2 / (2 - eta) at all times.
        step.diffusion.lsi = ConstantLsi{(2.0 - phase.eta) / (2.0 * phase.sigma * phase.sigma)};
        break;
      case LsiKind::Function:
        step.diffusion.lsi = lsi.function;
        break;
      case LsiKind::ExactQuadratic:
        break;  // built by quadratic::exact_lsi_program
    }
    program.append(std::move(step), phase.steps);
  }
  attach_events(spec, program);
  return program;
}

PrivacyProgram build_noisy_sgd_program(const RunSpec& spec, std::optional<std::int64_t> release_position) {
  require_pdi_constants(spec);
  // One b for every step (below): a phase with a rate of its own is accounted by the composition
  // accountants of `compare`, not by this program.
  for (const Phase& phase : spec.algorithm.phases)
    if (phase.sampling_rate)
      throw SpecError(phase.origin + ".sampling_rate", format_number(*phase.sampling_rate),
                      "the PDI of noisy-sgd takes one sampling rate for the whole run; `rdpdyn compare` composes runs "
                      "whose rate changes (composition-sgm, composition-pld)");
  // The full-batch program gives the LSI model's schedules and initial law; then each step's
  // source is replaced by the release (or nothing) of its batch.
  RunSpec full = spec;
  full.algorithm.kind = AlgorithmKind::NoisyGd;
  full.events.clear();
  const PrivacyProgram gd = build_noisy_gd_program(full);
  PrivacyProgram program;
  program.initial_inverse_lsi = gd.initial_inverse_lsi;
  // The update is (eta/b) sum_{i in B} grad l: b is the batch size, or for Poisson sampling the
  // expected batch size q n (DP-SGD divides the clipped sum by it, a constant of the algorithm), so
  // the record moves a step by at most eta S_g / b in either case.
  const double b = spec.algorithm.sampling == BatchSampling::Poisson ? spec.algorithm.sampling_rate * spec.algorithm.n
                                                                     : static_cast<double>(spec.algorithm.batch_size);
  const std::int64_t per_epoch =
      release_position ? static_cast<std::int64_t>(spec.algorithm.n) / spec.algorithm.batch_size : 1;
  const std::int64_t position = release_position.value_or(0);
  for (std::size_t i = 0; i < gd.phases().size(); ++i) {
    ProgramStep free = gd.phases()[i].step;
    free.diffusion.sensitivity = 0.0;
    ProgramStep holding = free;
    const double eta = free.diffusion.duration, sigma = free.diffusion.sigma;
    holding.before.push_back(GaussianRelease{eta * spec.algorithm.sensitivity / b, std::sqrt(2.0 * eta) * sigma});
    holding.gamma = GammaChoice::fixed(1.0);  // the step's noise is spent on the release
    if (per_epoch == 1) {                     // every step holds the record
      program.append(std::move(holding), gd.phases()[i].count);
      continue;
    }
    // Step k holds the record when k % per_epoch == position: runs of record-free steps
    // between single holding steps.
    const std::int64_t end = gd.phase_begin(i) + gd.phases()[i].count;
    for (std::int64_t k = gd.phase_begin(i); k < end;) {
      const std::int64_t holder = k + (position - k % per_epoch + per_epoch) % per_epoch;
      program.append(free, std::min(holder, end) - k);
      if (holder >= end) break;
      program.append(holding, 1);
      k = holder + 1;
    }
  }
  attach_events(spec, program);
  return program;
}

TrainingRun training_run_of(const RunSpec& spec) {
  const auto& a = spec.algorithm;
  TrainingRun run;
  run.n = a.n;
  run.batch_size = a.kind == AlgorithmKind::NoisySgd ? a.batch_size : static_cast<std::int64_t>(a.n);
  run.sampling = a.kind == AlgorithmKind::NoisySgd ? a.sampling : BatchSampling::FullBatch;
  run.sampling_rate = a.sampling_rate;
  run.steps = spec.total_steps();
  if (!a.phases.empty()) {
    run.eta = a.phases.front().eta;
    run.sigma = a.phases.front().sigma;
  }
  run.sensitivity = a.sensitivity;
  run.declares_eta = a.declares_eta;
  run.declares_sensitivity = a.declares_sensitivity;
  run.declares_lsi = spec.declares_lsi;
  if (a.noise_multiplier && !(run.sigma > 0.0))  // no C21 units: the accountants' z from the multiplier
    run.noise_multiplier =
        noise_units::effective_from_dpsgd_multiplier(*a.noise_multiplier, one_record_apart(spec.adjacency));
  const bool smooth_model =
      spec.declares_lsi && (spec.lsi.kind == LsiKind::StronglyConvex || spec.lsi.kind == LsiKind::Recursion ||
                            spec.lsi.kind == LsiKind::BoundedDomain);
  run.lambda = a.loss == LossKind::Squared ? 1.0 : smooth_model && !spec.lsi.lipschitz ? spec.lsi.lambda : 0.0;
  run.beta = a.loss == LossKind::Squared ? 1.0 : smooth_model && !spec.lsi.lipschitz ? spec.lsi.beta : 0.0;
  run.nonconvex = a.loss == LossKind::NonConvex || run.lambda < 0.0;
  run.diameter = spec.diameter;
  run.adjacency = spec.adjacency;
  run.gradients_norm_bounded = spec.gradients_norm_bounded;
  run.records_per_user = spec.records_per_user;
  run.orders = spec.orders;
  return run;
}

PrivacyProgram build_pdi_program(const RunSpec& spec) {
  check_model_assumptions(spec);
  const auto& a = spec.algorithm;
  PrivacyProgram program;
  // The initial law is c-LSI under a constant schedule (as for Langevin); a function schedule
  // gives c itself at every time, so the program carries no law of its own (point mass: unused).
  program.initial_inverse_lsi = spec.lsi.kind == LsiKind::Constant ? 1.0 / spec.lsi.c : kPointMassInverseLsi;
  const double dt = a.time / static_cast<double>(a.intervals);
  LsiSchedule schedule =
      spec.lsi.kind == LsiKind::Constant ? LsiSchedule{ConstantLsi{spec.lsi.c}} : LsiSchedule{spec.lsi.function};
  // One phase of identical intervals: the interval's own start time t selects sigma(t), S_v(t).
  auto varying = a.coefficients.varies() ? std::make_shared<const TimeCoefficients>(a.coefficients) : nullptr;
  program.append({{}, {dt, a.sigma, a.sensitivity, std::move(schedule), std::move(varying)}, {}, spec.gamma},
                 a.intervals);
  attach_events(spec, program);
  return program;
}

PrivacyProgram build_langevin_program(const RunSpec& spec) {
  check_model_assumptions(spec);
  const auto& a = spec.algorithm;
  const double Sv = a.sensitivity / a.n;
  PrivacyProgram program;
  const double dt = a.time / static_cast<double>(a.intervals);
  LsiSchedule schedule{spec.lsi.function};
  program.initial_inverse_lsi = kPointMassInverseLsi;
  if (spec.lsi.kind == LsiKind::Constant) {
    schedule = ConstantLsi{spec.lsi.c};
    program.initial_inverse_lsi = 1.0 / spec.lsi.c;
  } else if (spec.lsi.kind == LsiKind::StronglyConvex) {
    // The start N(0, (sigma^2/lambda) I) and every later law are lambda/sigma^2-LSI.
    schedule = ConstantLsi{langevin_strongly_convex::lsi_constant(spec.lsi.lambda, a.sigma)};
    program.initial_inverse_lsi = langevin_strongly_convex::start_variance(spec.lsi.lambda, a.sigma);
  }
  program.append({{}, {dt, a.sigma, Sv, std::move(schedule), nullptr}, {}, spec.gamma}, a.intervals);
  attach_events(spec, program);
  return program;
}

quadratic::QuadraticProblem quadratic_problem_of(const RunSpec& spec) {
  const auto& H = spec.quadratic->hessian;
  quadratic::QuadraticProblem p;
  const auto d = static_cast<Eigen::Index>(H.size());
  p.hessian.resize(d, d);
  for (Eigen::Index i = 0; i < d; ++i)
    for (Eigen::Index j = 0; j < d; ++j) p.hessian(i, j) = H[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)];
  p.n = spec.algorithm.n;
  p.eta = spec.algorithm.phases.front().eta;
  p.sigma = spec.algorithm.phases.front().sigma;
  p.sensitivity = spec.algorithm.sensitivity;
  if (const auto variance = stated_initial_variance(spec))  // the stated shared start N(mu, s^2 I)
    p.initial_covariance = *variance * Eigen::MatrixXd::Identity(d, d);
  return p;
}

bool quadratic_exact_applies(const RunSpec& spec) {
  const auto& a = spec.algorithm;
  if (!spec.quadratic || a.kind != AlgorithmKind::NoisyGd || a.phases.size() != 1 || a.phases[0].sensitivity)
    return false;
  if (!std::holds_alternative<ZeroCurve>(spec.initial) || !spec.events.empty()) return false;
  if (spec.lsi.kind == LsiKind::StronglyConvex) return false;
  return !spec.lsi.c0 || stated_initial_variance(spec).has_value();
}

PrivacyProgram build_program(const RunSpec& spec) {
  if (spec.lsi.kind == LsiKind::ExactQuadratic) {
    // The exact LSI schedule of the Gaussian iterates: 1/lambda_max of their covariance.
    check_model_assumptions(spec);
    PrivacyProgram program = quadratic::exact_lsi_program(quadratic_problem_of(spec), spec.total_steps(), spec.gamma);
    attach_events(spec, program);
    return program;
  }
  switch (spec.algorithm.kind) {
    case AlgorithmKind::Langevin:
      return build_langevin_program(spec);
    case AlgorithmKind::Pdi:
      return build_pdi_program(spec);
    case AlgorithmKind::NoisySgd: {
      // Fresh batches (per-step, Poisson): the record may be in every batch. Otherwise one program:
      // the record in the last batch of every epoch (models/noisy_sgd_worst_case takes the worst
      // position).
      if (spec.algorithm.sampling == BatchSampling::PerStep || spec.algorithm.sampling == BatchSampling::Poisson)
        return build_noisy_sgd_program(spec, std::nullopt);
      const std::int64_t per_epoch = static_cast<std::int64_t>(spec.algorithm.n) / spec.algorithm.batch_size;
      return build_noisy_sgd_program(spec, per_epoch - 1);
    }
    case AlgorithmKind::NoisyGd:
      break;
  }
  return build_noisy_gd_program(spec);
}

std::string lsi_kind_name(LsiKind kind) { return name_of(kLsiKindNames, kind); }

}  // namespace rdpdyn

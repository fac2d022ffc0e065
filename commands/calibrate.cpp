#include "commands/calibrate.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <vector>

#include "analyses/analysis.hpp"
#include "commands/compare.hpp"
#include "models/configured_solve.hpp"
#include "models/privacy_model.hpp"
#include "accounting/epsilon_delta.hpp"
#include "accounting/epsilon_over_orders.hpp"
#include "models/noise_units.hpp"
#include "models/run_limits.hpp"
#include "models/size_limits.hpp"
#include "numerics/spec_error.hpp"

namespace rdpdyn {
namespace {

/// The sigma bracket grows by factors of 2 at most this often: 2^60 ~ 1e18 either way of the
/// configured sigma, far beyond any meaningful noise, so hitting it means "no such sigma".
constexpr int kMaxDoublings = 60;

bool is_steps(const CalibrationRequest& r) { return r.target == CalibrationTarget::Steps; }
bool is_multiplier(const CalibrationRequest& r) { return r.target == CalibrationTarget::NoiseMultiplier; }

double sigma_of(const AlgorithmSpec& a) { return a.kind == AlgorithmKind::Langevin ? a.sigma : a.phases.front().sigma; }

/// The b that divides the clipped gradient sum: the expected batch size q n under Poisson sampling.
double update_batch(const AlgorithmSpec& a) {
  return a.sampling == BatchSampling::Poisson ? a.sampling_rate * a.n : static_cast<double>(a.batch_size);
}

double sensitivity_of(const AlgorithmSpec& a) { return a.phases.front().sensitivity.value_or(a.sensitivity); }

/// C21 sigma <-> DP-SGD noise multiplier of a noisy-sgd run's first phase: the clipping norm is
/// C = S_g under add-remove and zero-out adjacency, S_g / 2 under replace (models/noise_units.hpp).
double multiplier_from_sigma(const RunSpec& spec, double sigma) {
  const AlgorithmSpec& a = spec.algorithm;
  const double eta = a.phases.front().eta, sg = sensitivity_of(a), b = update_batch(a);
  return one_record_apart(spec.adjacency) ? noise_units::dpsgd_multiplier_add_remove_from_c21_sigma(sigma, eta, sg, b)
                                          : noise_units::dpsgd_multiplier_from_c21_sigma(sigma, eta, sg, b);
}
double sigma_from_multiplier(const RunSpec& spec, double m) {
  const AlgorithmSpec& a = spec.algorithm;
  const double eta = a.phases.front().eta, sg = sensitivity_of(a), b = update_batch(a);
  return one_record_apart(spec.adjacency) ? noise_units::c21_sigma_from_dpsgd_multiplier_add_remove(m, eta, sg, b)
                                          : noise_units::c21_sigma_from_dpsgd_multiplier(m, eta, sg, b);
}

/// A noisy-sgd run configured for accounting alone (noise_multiplier without eta or S_g) has no
/// C21 sigma: its phase carries sigma = 0 and the accountants read algorithm.noise_multiplier.
bool accounting_alone(const AlgorithmSpec& a) {
  return a.kind == AlgorithmKind::NoisySgd && !(a.phases.front().sigma > 0.0);
}

/// The configured DP-SGD noise multiplier of a noisy-sgd run (the start of its search).
double multiplier_of(const RunSpec& spec) {
  return accounting_alone(spec.algorithm) ? spec.algorithm.noise_multiplier.value_or(0.0)
                                          : multiplier_from_sigma(spec, spec.algorithm.phases.front().sigma);
}

void validate(const RunConfig& config, const CalibrationRequest& r) {
  if (!(r.epsilon > 0.0) || !std::isfinite(r.epsilon))
    throw SpecError("--epsilon", format_number(r.epsilon), "must be a finite number > 0");
  if (!(r.delta > 0.0 && r.delta < 1.0)) throw SpecError("--delta", format_number(r.delta), "must be in (0, 1)");
  const AlgorithmSpec& a = config.spec.algorithm;
  // A candidate scales one noise level and one rate (candidate() below); phases that set their own
  // rate or multiplier would keep them, and the calibrated value would not be the run's.
  for (const Phase& p : a.phases)
    if (p.sampling_rate || p.noise_multiplier)
      throw SpecError(p.origin + (p.sampling_rate ? ".sampling_rate" : ".noise_multiplier"),
                      format_number(p.sampling_rate ? *p.sampling_rate : *p.noise_multiplier),
                      "calibrate searches one noise level for a run of one rate; this phase sets its own (use "
                      "`rdpdyn compare` on candidate runs)");
  if (a.kind == AlgorithmKind::Pdi)
    throw SpecError("algorithm.kind", "\"pdi\"",
                    "calibrate needs a training run (noisy-gd, noisy-sgd or langevin); a coefficient-level "
                    "PDI run states sigma(t) itself");
  if (is_multiplier(r)) {
    if (a.kind != AlgorithmKind::NoisySgd)
      throw SpecError("--for", "\"noise_multiplier\"",
                      "needs algorithm.kind = \"noisy-sgd\" (the DP-SGD noise multiplier is relative to the clipping "
                      "norm of a gradient sum); use --for sigma");
    if (!accounting_alone(a) && !(sensitivity_of(a) > 0.0))
      throw SpecError("algorithm.sensitivity", format_number(sensitivity_of(a)),
                      "must be > 0 to express the noise as a DP-SGD noise multiplier (--for noise_multiplier)");
    if (accounting_alone(a) && !a.noise_multiplier)
      throw SpecError("algorithm.noise_multiplier", "missing", "the run has no noise to calibrate");
    return;
  }
  if (!is_steps(r)) {
    if (a.kind != AlgorithmKind::Langevin && !(a.phases.front().sigma > 0.0))
      throw SpecError("--for", "\"sigma\"",
                      "needs the noise in C21 units; this run is configured for accounting alone (noise_multiplier "
                      "without algorithm.eta or algorithm.sensitivity): give both, or calibrate --for "
                      "noise_multiplier or --for steps");
    return;
  }
  if (r.max_steps < 2) throw SpecError("--max-steps", std::to_string(r.max_steps), "must be >= 2");
  if (r.max_steps > limits::kMaxSteps)
    throw SpecError("--max-steps", std::to_string(r.max_steps),
                    "must be <= 1099511627776 (2^40), the limit of algorithm.steps (docs/config.md, Limits)");
  if (a.kind == AlgorithmKind::Langevin)
    throw SpecError("algorithm.kind", "\"langevin\"",
                    "steps calibration needs discrete steps (noisy-gd or noisy-sgd); a Langevin run "
                    "has a duration (algorithm.time)");
  if (a.phases.size() != 1)
    throw SpecError("algorithm.schedule", std::to_string(a.phases.size()) + " phases",
                    "steps calibration needs a single phase: which phase would grow is ambiguous");
  for (const auto& e : config.spec.events)
    if (e.after_step > 0)
      throw SpecError("events.after_step", std::to_string(e.after_step),
                      "steps calibration needs a run without events after step 0: events sit at fixed "
                      "step numbers, which the candidate runs may not reach");
}

/// The family of runs indexed by the parameter, evaluated through the analysis registry: only the
/// requested analysis, or for "best" the eligible analyses that apply to the configured run (an
/// analysis that does not apply at the start is not asked again). Each candidate is evaluated
/// once: the search re-reads the bracket ends it has already evaluated.
class Curve {
 public:
  Curve(const RunConfig& config, const CalibrationRequest& request, const EngineRegistry& engines)
      : base_(config), request_(request), engines_(engines) {
    // Only the final R enters epsilon: record nothing in between (cheaper solves).
    base_.spec.record.every = 0;
    base_.spec.record.steps.clear();
    base_.spec.report_delta = request.delta;
    if (request.analysis == "best") {
      for (const Analysis& a : analysis_registry())
        if (eligible_for_best(a.status, config.spec.include_disputed)) chosen_.push_back(&a);
    } else if (const Analysis* a = find_analysis(request.analysis)) {
      chosen_.push_back(a);
    } else {
      throw SpecError("--analysis", "\"" + request.analysis + "\"", unknown_analysis_rule(request.analysis, true));
    }
  }

  /// The configuration at a candidate (RunSpec edited directly; `text` keeps the original).
  RunConfig candidate(double x) const {
    RunConfig c = base_;
    AlgorithmSpec& a = c.spec.algorithm;
    if (is_steps(request_)) {
      a.phases.front().steps = static_cast<std::int64_t>(x);
    } else if (a.kind == AlgorithmKind::Langevin) {
      a.sigma = x;
    } else if (is_multiplier(request_) && accounting_alone(a)) {
      a.noise_multiplier = x;  // what the accountants read (models/privacy_model.cpp, training_run_of)
    } else {
      const double sigma = is_multiplier(request_) ? sigma_from_multiplier(c.spec, x) : x;
      const double scale = sigma / a.phases.front().sigma;  // keeps the schedule's sigma ratios
      for (auto& p : a.phases) p.sigma *= scale;
      a.phases.front().sigma = sigma;  // exactly the candidate
      if (is_multiplier(request_)) a.noise_multiplier = x;
    }
    return c;
  }

  /// The chosen analyses at x: R of the requested one, or the pointwise minimum of those that
  /// apply ("best"); epsilon as `compare` computes it (each analysis minimised over every order it
  /// can be evaluated at, commands/compare.hpp assign_epsilon; "best": the smallest of them) and
  /// the name of the tightest.
  struct Evaluation {
    std::vector<double> R;
    EpsilonAtOrder epsilon{std::numeric_limits<double>::infinity(), std::numeric_limits<double>::quiet_NaN()};
    std::string tightest;
    std::string conversion;  ///< the conversion attaining epsilon (ComparisonEntry::conversion)
    bool amplified = false;  ///< some analysis used amplifies by sampling (AnalysisResult::amplified_by_sampling)
  };

  const Evaluation& at(double x) {
    auto it = memo_.find(x);
    if (it != memo_.end()) return it->second;
    const RunConfig config = candidate(x);
    const TrainingRun run = training_run_of(config.spec);
    const AnalysisInput input{config, run, engines_};
    const auto& orders = config.spec.orders;
    Evaluation e;
    e.R.assign(orders.size(), std::numeric_limits<double>::infinity());
    double tightest = std::numeric_limits<double>::infinity();
    std::vector<const Analysis*> applying;
    for (const Analysis* a : chosen_) {
      const AnalysisResult r = a->assess(input, orders);
      if (!r.applies) {
        if (request_.analysis != "best")
          throw SpecError("--analysis", "\"" + request_.analysis + "\"",
                          "does not apply at " + where(x) + ": " + r.reason);
        continue;
      }
      if (!eligible_for_best(a->status_of(r), config.spec.include_disputed)) {
        // A named analysis that `best` would not trust is refused by name, not skipped: an exact
        // value computed in doubles is not an upper bound, a disputed one needs the user's opt-in.
        if (request_.analysis != "best")
          throw SpecError("--analysis", "\"" + request_.analysis + "\"",
                          "has status " + std::string(status_name(a->status_of(r))) +
                              ": calibrate uses only bounds that best may use (a disputed one with "
                              "report.include_disputed = true; an exact value is not a certified bound; a lower bound "
                              "or a bound for some records only is not a bound on the run)");
        continue;
      }
      applying.push_back(a);
      // A PLD entry refines its grid on the first candidate; later candidates keep that grid (every
      // grid is certified, refining again would only cost time).
      if (r.fdp_grid && !base_.spec.pld.grid) pld_grid_ = r.fdp_grid(request_.delta);
      e.amplified = e.amplified || r.amplified_by_sampling;
      for (std::size_t j = 0; j < orders.size(); ++j) e.R[j] = std::min(e.R[j], r.R[j]);
      ComparisonEntry entry;
      entry.result = r;
      assign_epsilon(entry, *a, input, orders, request_.delta, request_.conversion);
      if (request_.configured_orders_only)
        entry.epsilon = entry.epsilon_recorded_orders, entry.best_order = entry.best_recorded_order,
        entry.conversion = entry.conversion_recorded_orders;
      if (entry.epsilon < tightest) {
        tightest = entry.epsilon;
        e.tightest = a->name;
        e.epsilon = {entry.epsilon, entry.best_order};
        e.conversion = entry.conversion;
      }
    }
    if (applying.empty()) throw SpecError("--analysis", "\"best\"", "no analysis applies at " + where(x));
    if (memo_.empty()) chosen_ = applying;  // the start: later candidates ask only these
    if (pld_grid_ && !base_.spec.pld.grid) base_.spec.pld.grid = pld_grid_;
    for (const Analysis* a : applying)
      if (!a->monotone_in_steps) not_monotone_.insert(a->name);
    const Evaluation& done = memo_.emplace(x, std::move(e)).first->second;
    if (request_.on_evaluation) request_.on_evaluation(evaluations(), where(x), done.epsilon.epsilon);
    return done;
  }

  std::vector<double> R(double x) { return at(x).R; }
  EpsilonAtOrder epsilon(double x) { return at(x).epsilon; }
  bool met(double x) { return epsilon(x).epsilon <= request_.epsilon; }
  std::string name() const {
    return is_steps(request_) ? "steps" : is_multiplier(request_) ? "noise_multiplier" : "sigma";
  }
  std::string where(double x) const { return name() + " = " + format_number(x); }
  int evaluations() const { return static_cast<int>(memo_.size()); }
  const std::set<std::string>& not_monotone() const { return not_monotone_; }

 private:
  RunConfig base_;
  CalibrationRequest request_;
  const EngineRegistry& engines_;
  std::vector<const Analysis*> chosen_;
  std::map<double, Evaluation> memo_;
  std::set<std::string> not_monotone_;
  std::optional<double> pld_grid_;
};

/// Geometric bracket [lo, hi] around the configured noise (sigma or noise multiplier): target met
/// at hi, not at lo.
std::pair<double, double> noise_bracket(Curve& curve, double x0, const CalibrationRequest& r) {
  double lo = x0, hi = x0;
  if (curve.met(x0)) {
    for (int i = 0; curve.met(lo); ++i) {
      if (i == kMaxDoublings)
        throw SpecError("--epsilon", format_number(r.epsilon),
                        "is met even at " + curve.where(lo) + " (2^-60 times the configured " + curve.name() +
                            "): the bound does not need noise, there is no smallest " + curve.name());
      hi = lo;
      lo /= 2.0;
    }
  } else {
    for (int i = 0; !curve.met(hi); ++i) {
      if (i == kMaxDoublings)
        throw SpecError("--epsilon", format_number(r.epsilon),
                        "is not met even at " + curve.where(hi) + " (2^60 times the configured " + curve.name() +
                            "; epsilon = " + format_rounded_up(curve.epsilon(hi).epsilon) + " there)");
      lo = hi;
      hi *= 2.0;
    }
  }
  return {lo, hi};
}

/// Integer bracket [lo, hi] with the target met at lo and not at hi: lo = 1, hi doubled from the
/// configured count (capped at max_steps) until the target fails.
std::pair<std::int64_t, std::int64_t> steps_bracket(Curve& curve, std::int64_t steps0, const CalibrationRequest& r) {
  if (!curve.met(1.0))
    throw SpecError("--epsilon", format_number(r.epsilon),
                    "is not met even by one step (epsilon = " + format_rounded_up(curve.epsilon(1.0).epsilon) +
                        " at steps = 1): raise the noise or epsilon");
  std::int64_t lo = 1, hi = std::clamp<std::int64_t>(steps0, 2, r.max_steps);
  while (curve.met(static_cast<double>(hi))) {
    if (hi == r.max_steps)
      throw SpecError("--max-steps", std::to_string(r.max_steps),
                      "the target is met at every count up to it (epsilon = " +
                          format_rounded_up(curve.epsilon(static_cast<double>(hi)).epsilon) +
                          "): the bound may saturate in the number of steps (e.g. C21 Cor 1); raise it");
    lo = hi;
    hi = hi > r.max_steps / 2 ? r.max_steps : 2 * hi;
  }
  return {lo, hi};
}

}  // namespace

CalibrationOutcome calibrate_run(const RunConfig& config, const CalibrationRequest& request,
                                 const EngineRegistry& engines) {
  validate(config, request);
  // The largest candidate is the memory to plan for: --max-steps when the steps are calibrated.
  require_memory_fits(
      estimate_run_memory(config, configured_engine(config, engines), RunCommand::Calibrate,
                          is_steps(request) ? std::optional<std::int64_t>(request.max_steps) : std::nullopt),
      memory_budget());
  const RunSpec& spec = config.spec;
  Curve curve(config, request, engines);
  const double start = is_steps(request)        ? static_cast<double>(spec.total_steps())
                       : is_multiplier(request) ? multiplier_of(spec)
                                                : sigma_of(spec.algorithm);
  curve.R(start);  // refuses an unknown analysis name, or one that does not apply to the run

  // With R = 0 a conversion may still cost something (the improved one log(1/delta)/(alpha-1) - ...):
  // no parameter beats the smallest conversion of R = 0 (over the configured orders, or over every
  // order up to 10^4 for analyses known at any order). Asoodeh et al.'s conversion gives 0 at R = 0
  // (identical laws), so with the minimum over the conversions this refuses nothing; it stays as
  // the guard of the bracket searches below should a conversion set without it be used.
  const double grid_floor =
      best_epsilon(spec.orders, std::vector<double>(spec.orders.size(), 0.0), request.delta, request.conversion)
          .epsilon;
  const double floor = request.configured_orders_only
                           ? grid_floor
                           : std::min(grid_floor, minimise_epsilon([](double) { return 0.0; }, request.delta,
                                                                   kDefaultMaxOrder, request.conversion)
                                                      .epsilon);
  if (request.epsilon < floor)
    throw SpecError("--epsilon", format_number(request.epsilon),
                    "cannot be met at delta = " + format_number(request.delta) + " with orders up to " +
                        format_number(std::max(request.configured_orders_only ? 0.0 : 1e4,
                                               *std::max_element(spec.orders.begin(), spec.orders.end()))) +
                        ": even R = 0 gives epsilon = " + format_number(floor) +
                        (request.conversion == RdpConversion::Best
                             ? std::string(" (smallest of the conversions)")
                             : std::string(" (") + conversion_name(request.conversion) + " conversion)") +
                        "; raise epsilon or delta");

  const PrivacyTarget target{request.epsilon, request.delta, request.conversion};
  double x = 0.0;
  EpsilonAtOrder achieved{};
  if (is_steps(request)) {
    const auto [lo, hi] = steps_bracket(curve, spec.total_steps(), request);
    const auto r = calibrate_largest_count_epsilon(
        [&](std::int64_t k) { return curve.epsilon(static_cast<double>(k)); }, target, lo, hi);
    x = static_cast<double>(r.count);
    achieved = r.achieved;
  } else {
    const auto [lo, hi] = noise_bracket(curve, start, request);
    const auto r = calibrate_smallest_epsilon([&](double s) { return curve.epsilon(s); }, target, lo, hi);
    x = r.parameter;
    achieved = r.achieved;
  }

  const RunConfig result = curve.candidate(x);
  const AlgorithmSpec& a = result.spec.algorithm;
  CalibrationOutcome out;
  out.target = request.target;
  out.target_epsilon = request.epsilon;
  out.target_delta = request.delta;
  out.sigma = sigma_of(a);
  if (a.kind != AlgorithmKind::Langevin) {
    const Phase& p = a.phases.front();
    out.steps = result.spec.total_steps();
    if (out.sigma > 0.0 && p.eta > 0.0) out.sigma_at = noise_units::at_sigma_from_c21(out.sigma, p.eta);
    // The DP-SGD multiplier is relative to the clipping norm: C = S_g/2 (replace) or S_g (add-remove);
    // the clipped sum is divided by b, the expected batch size q n under Poisson sampling.
    if (is_multiplier(request))
      out.noise_multiplier = x;  // exactly the evaluated candidate
    else if (a.kind == AlgorithmKind::NoisySgd && sensitivity_of(a) > 0.0 && out.sigma > 0.0)
      out.noise_multiplier = multiplier_from_sigma(result.spec, out.sigma);
    else if (a.kind == AlgorithmKind::NoisySgd && a.noise_multiplier && !(out.sigma > 0.0))
      out.noise_multiplier = a.noise_multiplier;  // accounting alone, steps calibrated: as configured
  }
  out.epsilon = achieved.epsilon;
  out.best_order = achieved.order;
  out.conversion = curve.at(x).conversion;
  out.evaluations = curve.evaluations();
  out.analysis_used = request.analysis;
  out.terms = run_terms(result.spec);
  if (request.analysis == "best") {
    out.tightest = curve.at(x).tightest;
    out.include_disputed = spec.include_disputed;
    out.amplification_warning = unamplified_sampling_warning(training_run_of(result.spec), curve.at(x).amplified);
  }
  if (is_steps(request)) out.not_monotone_in_steps.assign(curve.not_monotone().begin(), curve.not_monotone().end());
  return out;
}

CalibrationTarget default_calibration_target(const RunConfig& config) {
  const auto& a = config.spec.algorithm;
  const bool sigma_given = !a.phases.empty() && a.phases.front().sigma > 0.0;
  return a.noise_multiplier && !sigma_given ? CalibrationTarget::NoiseMultiplier : CalibrationTarget::Sigma;
}

}  // namespace rdpdyn

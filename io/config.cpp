#include "io/config.hpp"

#include "accounting/pld/loss_distribution.hpp"
#include "io/config_document.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <toml.hpp>

#include <Eigen/Dense>

#include "io/expression.hpp"
#include "io/step_function.hpp"
#include "io/toml_section.hpp"
#include "numerics/outward_rounding.hpp"
#include "models/engine_request_of.hpp"
#include "solver/engine_registry.hpp"
#include "models/privacy_model.hpp"
#include "models/noise_units.hpp"
#include "models/size_limits.hpp"
#include "numerics/spec_error.hpp"

namespace rdpdyn {
namespace {

// ---- rules -------------------------------------------------------------------------------------

double positive(const Section& s, const std::string& k) {
  const double x = s.number(k);
  if (!(x > 0.0)) throw SpecError(s.key(k), format_number(x), "must be > 0");
  return x;
}
double non_negative(const Section& s, const std::string& k) {
  const double x = s.number(k);
  if (!(x >= 0.0)) throw SpecError(s.key(k), format_number(x), "must be >= 0");
  return x;
}
std::int64_t non_negative_integer(const Section& s, const std::string& k) {
  const std::int64_t x = s.integer(k);
  if (x < 0) throw SpecError(s.key(k), std::to_string(x), "must be >= 0");
  return x;
}
std::string one_of(const Section& s, const std::string& k, const std::set<std::string>& options,
                   const std::string& fallback = "") {
  if (!s.has(k) && !fallback.empty()) return fallback;
  const std::string v = s.string(k);
  if (!options.count(v)) {
    std::string list;
    for (const auto& o : options) list += (list.empty() ? "\"" : ", \"") + o + "\"";
    throw SpecError(s.key(k), "\"" + v + "\"", "must be one of " + list);
  }
  return v;
}

/// A limit of models/size_limits.hpp as the messages print it: "65536 (2^16)".
std::string limit_text(std::int64_t limit) {
  const bool power_of_two = limit > 0 && (limit & (limit - 1)) == 0;
  int k = 0;
  while (power_of_two && (std::int64_t{1} << k) < limit) ++k;
  return std::to_string(limit) + (power_of_two ? " (2^" + std::to_string(k) + ")" : "");
}
/// A size of the configuration against its limit (docs/config.md, "Limits"): `why` says what the
/// limit protects.
void check_size(const std::string& key, const std::string& value, std::int64_t size, std::int64_t limit,
                const std::string& why) {
  if (size > limit)
    throw SpecError(key, value, "must be <= " + limit_text(limit) + ": " + why + " (docs/config.md, Limits)");
}
void check_size(const std::string& key, std::int64_t size, std::int64_t limit, const std::string& why) {
  check_size(key, std::to_string(size), size, limit, why);
}
/// The length of a list against its limit, before its entries are read.
void check_list_size(const Section& s, const std::string& k, std::int64_t limit, const std::string& why) {
  const auto& v = s.at(k);
  if (!v.is_array()) return;  // the typed reader names the type error
  const auto n = static_cast<std::int64_t>(v.as_array().size());
  check_size(s.key(k), std::to_string(n) + " entries", n, limit, why);
}
constexpr const char* kOrdersWhy =
    "the orders sample one smooth curve R(alpha), and every kept row holds one value per order";
constexpr const char* kStepsWhy =
    "the outward rounding margin grows with the steps (4.9e-4 relative at 2^40) and 2^40 steps already take about 18 "
    "hours";

// ---- sections ----------------------------------------------------------------------------------

std::vector<double> parse_orders(const Section& s) {
  s.allow_only({"values", "min", "max", "count"});
  std::vector<double> orders;
  if (s.has("values")) {
    if (s.has("min") || s.has("max") || s.has("count"))
      throw SpecError(s.key("values"), "given with min/max/count", "give either values or min, max, count");
    check_list_size(s, "values", limits::kMaxOrders, kOrdersWhy);
    orders = s.numbers("values");
    if (orders.empty()) throw SpecError(s.key("values"), "[]", "must list at least one order");
    for (std::size_t i = 0; i < orders.size(); ++i) {
      if (!(orders[i] > 1.0))
        throw SpecError(s.key("values") + "[" + std::to_string(i) + "]", format_number(orders[i]),
                        "Renyi orders must be > 1");
      if (i > 0 && !(orders[i] > orders[i - 1]))
        throw SpecError(s.key("values") + "[" + std::to_string(i) + "]", format_number(orders[i]),
                        "orders must be strictly increasing");
    }
    return orders;
  }
  const double lo = s.number("min"), hi = s.number("max");
  const std::int64_t count = s.integer("count");
  if (!(lo > 1.0)) throw SpecError(s.key("min"), format_number(lo), "Renyi orders must be > 1");
  if (!(hi > lo)) throw SpecError(s.key("max"), format_number(hi), "must be > orders.min = " + format_number(lo));
  if (count < 2) throw SpecError(s.key("count"), std::to_string(count), "must be >= 2");
  check_size(s.key("count"), count, limits::kMaxOrders, kOrdersWhy);
  // Log-spaced in alpha - 1 (the characteristic variable y = ln(alpha - 1)).
  const double y0 = std::log(lo - 1.0), y1 = std::log(hi - 1.0);
  for (std::int64_t i = 0; i < count; ++i) {
    const double y = y0 + (y1 - y0) * static_cast<double>(i) / static_cast<double>(count - 1);
    orders.push_back(i == 0 ? lo : i == count - 1 ? hi : 1.0 + std::exp(y));
  }
  return orders;
}

/// The noise in C21 units from whichever convention the configuration uses (docs/math.md section 1.4):
/// `sigma` (C21), `sigma_at` (Altschuler & Talwar) or `noise_multiplier` (DP-SGD: noise std on the
/// clipped sum in units of the clipping norm C, with C = S_g / 2 under replace adjacency and C = S_g
/// under add-remove; the sum is divided by `batch`, the update's b). Exactly one may be given.
/// nullopt when none is given, and for a noisy-sgd run that gives noise_multiplier without eta or
/// without sensitivity (accounting alone: no C21 units; a.noise_multiplier keeps the value).
std::optional<double> c21_sigma(const Section& s, std::optional<double> eta, AlgorithmSpec& a, Adjacency adjacency,
                                double batch) {
  const int given = (s.has("sigma") ? 1 : 0) + (s.has("sigma_at") ? 1 : 0) + (s.has("noise_multiplier") ? 1 : 0);
  if (given > 1)
    throw SpecError(s.key("sigma"), "given with sigma_at or noise_multiplier",
                    "give the noise in one convention only (sigma, sigma_at or noise_multiplier)");
  if (s.has("sigma")) return positive(s, "sigma");
  if (given == 0) return std::nullopt;
  const std::string key = s.has("sigma_at") ? "sigma_at" : "noise_multiplier";
  const bool accounting = key == "noise_multiplier" && a.kind == AlgorithmKind::NoisySgd;
  if (!eta && !accounting)
    throw SpecError(s.key("eta"), "missing", "needed to convert " + s.key(key) + " to C21 units");
  const double value = positive(s, key);
  if (key == "sigma_at") return noise_units::c21_sigma_from_at(value, *eta);
  a.noise_multiplier = value;
  if (!eta || !a.declares_sensitivity) return std::nullopt;
  return adjacency == Adjacency::Replace
             ? noise_units::c21_sigma_from_dpsgd_multiplier(value, *eta, a.sensitivity, batch)
             : noise_units::c21_sigma_from_dpsgd_multiplier_add_remove(value, *eta, a.sensitivity, batch);
}

// ---- kind = "pdi": the PDI by its coefficients ------------------------------------------------

/// A PDI coefficient of [algorithm] kind = "pdi": a number, or an expression in t (muparser). An
/// expression that does not use t is evaluated once and kept as a number (closed forms apply).
/// Returns the number (NaN when it varies) and fills `varying` with the function otherwise.
double pdi_coefficient(const Section& s, const std::string& k, bool strictly_positive, TimeFunction& varying) {
  const char* rule = strictly_positive ? "must be > 0" : "must be >= 0";
  if (!s.at(k).is_string()) {
    const double x = s.number(k);
    if (!(strictly_positive ? x > 0.0 : x >= 0.0)) throw SpecError(s.key(k), format_number(x), rule);
    return x;
  }
  const std::string text = s.string(k);
  auto f = compile_expression(s.key(k), text, {"t"});
  if (!expression_uses(text, "t")) {
    const double x = f({0.0});
    if (!std::isfinite(x) || !(strictly_positive ? x > 0.0 : x >= 0.0))
      throw SpecError(s.key(k), "\"" + text + "\"",
                      std::string(rule) + " and finite; it evaluates to " + format_number(x));
    return x;
  }
  varying = {[f](double t) { return f({t}); }, text, s.key(k)};
  return std::numeric_limits<double>::quiet_NaN();
}

/// [algorithm] kind = "pdi" (docs/config.md): time, sigma, sensitivity (S_v itself), intervals.
/// An expression is checked here at every interval boundary (at most 4097 evenly spaced times) for
/// an early error; the engines check it again at every time they evaluate it.
void parse_pdi_algorithm(const Section& s, AlgorithmSpec& a) {
  s.allow_only({"kind", "time", "sigma", "sensitivity", "intervals"});
  a.kind = AlgorithmKind::Pdi;
  a.n = 1.0;  // S_v is given directly: no dataset size divides it (C21 Lemma 4 is not used)
  a.time = non_negative(s, "time");
  if (s.has("intervals")) {
    a.intervals = s.integer("intervals");
    if (a.intervals < 1) throw SpecError(s.key("intervals"), std::to_string(a.intervals), "must be >= 1");
    check_size(s.key("intervals"), a.intervals, limits::kMaxSteps, kStepsWhy);
  }
  a.sigma = pdi_coefficient(s, "sigma", true, a.coefficients.sigma);
  a.sensitivity = pdi_coefficient(s, "sensitivity", false, a.coefficients.sensitivity);
  const std::int64_t checks = std::min<std::int64_t>(a.intervals, 4096);
  for (const TimeFunction* g : {&a.coefficients.sigma, &a.coefficients.sensitivity}) {
    if (!g->f) continue;
    const bool strictly_positive = g == &a.coefficients.sigma;
    for (std::int64_t i = 0; i <= checks; ++i) {
      const double t = a.time * static_cast<double>(i) / static_cast<double>(checks);
      const double v = g->f(t);
      if (!std::isfinite(v) || !(strictly_positive ? v > 0.0 : v >= 0.0))
        throw SpecError(g->key, "\"" + g->description + "\"",
                        std::string(strictly_positive ? "must be finite and > 0" : "must be finite and >= 0") +
                            " at every t in [0, algorithm.time]; it gives " + format_number(v) +
                            " at t = " + format_number(t));
    }
  }
}

/// The interval boundary of an event of a pdi run, from its `time`: events apply between diffusion
/// intervals, so the time must be k T / intervals for an integer k (within 1e-9 of an interval,
/// the rounding of a decimal time; the event is applied at that boundary).
std::int64_t pdi_event_step(const Section& e, const AlgorithmSpec& a) {
  const double time = e.number("time");
  const double n = static_cast<double>(a.intervals);
  const double k = a.time > 0.0 ? std::round(time / a.time * n) : 0.0;
  const bool on_boundary = a.time > 0.0 ? std::abs(time / a.time * n - k) <= 1e-9 : time == 0.0;
  if (!(time >= 0.0 && time <= a.time) || !on_boundary)
    throw SpecError(e.key("time"), format_number(time),
                    "must be in [0, algorithm.time = " + format_number(a.time) +
                        "] and a multiple of algorithm.time / "
                        "algorithm.intervals = " +
                        format_number(a.time / n) + " (events apply between diffusion intervals)");
  return static_cast<std::int64_t>(k);
}

// ---- [algorithm] -------------------------------------------------------------------------------

/// Whether [algorithm] or one of its [[algorithm.schedule]] phases gives a value that changes with
/// the step (an expression in k and K, or a preset table).
bool has_per_step_values(const Section& s) {
  for (const char* k : {"eta", "sigma", "sigma_at", "noise_multiplier", "sensitivity"})
    if (StepFunction::varies(s, k)) return true;
  if (s.has("schedule") && s.at("schedule").is_array())
    for (const Section& p : s.tables("schedule"))
      for (const char* k : {"eta", "sigma", "gamma", "sensitivity"})
        if (StepFunction::varies(p, k)) return true;
  return false;
}

/// A value at step k checked against its rule: the error names the key, the value, the step.
double checked_at(const StepFunction& f, std::int64_t k, std::int64_t K, bool zero_allowed, double upper = 0.0) {
  const double v = f.at(k, K);
  const bool ok = std::isfinite(v) && (zero_allowed ? v >= 0.0 : v > 0.0) && (upper == 0.0 || v <= upper);
  if (!ok)
    throw SpecError(f.key(),
                    format_number(v) + " at step k = " + std::to_string(k) + " (K = " + std::to_string(K) + ", " +
                        f.key() + " = \"" + f.expression() + "\")",
                    upper != 0.0   ? "must be in (0, " + format_number(upper) + "]"
                    : zero_allowed ? "must be a finite number >= 0"
                                   : "must be a finite number > 0");
  return v;
}

/// Runs of steps with the same parameters, from values given per step (docs/config.md, "Values that
/// change with the step"): every step is evaluated and checked, equal neighbours share one phase.
void expand_per_step_values(const Section& s, AlgorithmSpec& a, Adjacency adjacency, double batch) {
  std::string noise_key;
  for (const char* k : {"sigma", "sigma_at", "noise_multiplier"})
    if (s.has(k)) {
      if (!noise_key.empty())
        throw SpecError(s.key("sigma"), "given with sigma_at or noise_multiplier",
                        "give the noise in one convention only (sigma, sigma_at or noise_multiplier)");
      noise_key = k;
    }
  const auto scalar = [&](const char* k) { return s.has(k) ? std::optional(StepFunction::read(s, k)) : std::nullopt; };
  const std::optional<StepFunction> eta = scalar("eta"), sensitivity = scalar("sensitivity");
  const std::optional<StepFunction> noise = noise_key.empty() ? std::nullopt : scalar(noise_key.c_str());
  if (!sensitivity)
    throw SpecError(s.key("sensitivity"), "missing",
                    "values that change with the step need C21 units (eta, sensitivity)");

  struct Segment {
    std::int64_t steps;
    std::optional<StepFunction> eta, noise, gamma, sensitivity;
    std::string origin;
  };
  std::vector<Segment> segments;
  std::int64_t scheduled = 0;
  if (s.has("schedule")) {
    check_list_size(s, "schedule", limits::kMaxPhases, "each phase is kept in the privacy program");
    for (const Section& p : s.tables("schedule")) {
      p.allow_only({"steps", "eta", "sigma", "gamma", "sensitivity"});
      Segment g{non_negative_integer(p, "steps"), {}, {}, {}, {}, p.path()};
      check_size(p.key("steps"), g.steps, limits::kMaxSteps, kStepsWhy);
      if (p.has("eta")) g.eta = StepFunction::read(p, "eta");
      if (p.has("sigma")) g.noise = StepFunction::read(p, "sigma");
      if (p.has("gamma")) g.gamma = StepFunction::read(p, "gamma");
      if (p.has("sensitivity")) g.sensitivity = StepFunction::read(p, "sensitivity");
      scheduled += g.steps;
      segments.push_back(std::move(g));
    }
  }
  std::int64_t K = scheduled;
  if (s.has("steps")) {
    K = non_negative_integer(s, "steps");
    if (K < scheduled)
      throw SpecError(s.key("steps"), std::to_string(K),
                      "must be >= the " + std::to_string(scheduled) + " steps of algorithm.schedule");
    if (K > scheduled) segments.push_back({K - scheduled, {}, {}, {}, {}, s.path()});
  } else if (segments.empty()) {
    throw SpecError(s.key("steps"), "missing", "give steps or [[algorithm.schedule]] phases");
  }
  check_size(s.key("steps"), "steps evaluated one by one", K, limits::kMaxPhases,
             "values that change with the step are evaluated at every step (a phase each where they differ)");

  a.sensitivity = 0.0;
  std::int64_t k = 0;
  for (const Segment& g : segments) {
    const StepFunction* eta_f = g.eta ? &*g.eta : eta ? &*eta : nullptr;
    const StepFunction* noise_f = g.noise ? &*g.noise : noise ? &*noise : nullptr;
    const StepFunction& sens_f = g.sensitivity ? *g.sensitivity : *sensitivity;
    const std::string origin = g.origin;
    if (!eta_f)
      throw SpecError(g.origin == s.path() ? s.key("eta") : g.origin + ".eta", "missing",
                      "give it here or as algorithm.eta");
    if (!noise_f)
      throw SpecError(g.origin == s.path() ? s.key("sigma") : g.origin + ".sigma", "missing",
                      "give it here or as algorithm.sigma");
    const std::string convention = g.noise ? "sigma" : noise_key;
    for (std::int64_t end = k + g.steps; k < end; ++k) {
      Phase phase;
      phase.steps = 1;
      phase.first_step = k;
      phase.origin = origin;
      phase.eta = checked_at(*eta_f, k, K, false);
      const double S = checked_at(sens_f, k, K, true);
      const double value = checked_at(*noise_f, k, K, false);
      phase.sigma = convention == "sigma"      ? value
                    : convention == "sigma_at" ? noise_units::c21_sigma_from_at(value, phase.eta)
                    : adjacency == Adjacency::Replace
                        ? noise_units::c21_sigma_from_dpsgd_multiplier(value, phase.eta, S, batch)
                        : noise_units::c21_sigma_from_dpsgd_multiplier_add_remove(value, phase.eta, S, batch);
      if (g.gamma) phase.gamma = checked_at(*g.gamma, k, K, false, 1.0);
      if (!sens_f.is_constant()) phase.sensitivity = S;
      a.sensitivity = std::max(a.sensitivity, S);
      Phase* last = a.phases.empty() ? nullptr : &a.phases.back();
      if (last && last->origin == phase.origin && last->eta == phase.eta && last->sigma == phase.sigma &&
          last->gamma == phase.gamma && last->sensitivity == phase.sensitivity) {
        ++last->steps;
      } else {
        a.phases.push_back(std::move(phase));
      }
    }
  }
  a.phases.shrink_to_fit();
  if (noise_key == "noise_multiplier" && noise->is_constant()) a.noise_multiplier = noise->at(0, K);
}

void parse_algorithm(const Section& s, AlgorithmSpec& a, Adjacency adjacency) {
  const std::string kind = one_of(s, "kind", {"noisy-gd", "noisy-sgd", "langevin", "pdi"});
  if (kind == "pdi") return parse_pdi_algorithm(s, a);
  a.n = s.number("n");
  if (!(a.n >= 1.0)) throw SpecError(s.key("n"), format_number(a.n), "the dataset size must be >= 1");
  if (a.n > limits::kMaxDatasetSize)
    throw SpecError(s.key("n"), format_number(a.n),
                    "must be <= 2^53 = 9007199254740992: counts of records beyond it are not exact in a double "
                    "(docs/config.md, Limits)");
  // Accounting alone (docs/config.md): a noisy-sgd run whose noise is a DP-SGD noise multiplier may
  // leave out the sensitivity and the step size; the accountants need neither, the PDI refuses.
  const bool per_step = kind != "langevin" && has_per_step_values(s);
  const bool accounting_only_allowed = kind == "noisy-sgd" && s.has("noise_multiplier") && !per_step;
  // Values per step are read (and S_g checked at every step) by expand_per_step_values below.
  if (!per_step) {
    if (s.has("sensitivity") || !accounting_only_allowed)
      a.sensitivity = non_negative(s, "sensitivity");
    else
      a.declares_sensitivity = false;
  }
  if (kind == "langevin") {
    s.allow_only({"kind", "time", "sigma", "n", "sensitivity", "intervals"});
    a.kind = AlgorithmKind::Langevin;
    a.time = non_negative(s, "time");
    a.sigma = positive(s, "sigma");
    if (s.has("intervals")) {
      a.intervals = s.integer("intervals");
      if (a.intervals < 1) throw SpecError(s.key("intervals"), std::to_string(a.intervals), "must be >= 1");
      check_size(s.key("intervals"), a.intervals, limits::kMaxSteps, kStepsWhy);
    }
    return;
  }
  const bool sgd = kind == "noisy-sgd";
  if (sgd)
    s.allow_only({"kind", "loss", "steps", "eta", "sigma", "sigma_at", "noise_multiplier", "n", "sensitivity",
                  "batch_size", "sampling", "sampling_rate"});
  else
    s.allow_only(
        {"kind", "loss", "steps", "eta", "sigma", "sigma_at", "noise_multiplier", "n", "sensitivity", "schedule"});
  a.kind = sgd ? AlgorithmKind::NoisySgd : AlgorithmKind::NoisyGd;
  const std::string loss = one_of(s, "loss", {"generic", "squared", "quadratic", "linear"}, "generic");
  a.loss = loss == "squared"     ? LossKind::Squared
           : loss == "quadratic" ? LossKind::Quadratic
           : loss == "linear"    ? LossKind::Linear
                                 : LossKind::Generic;
  double batch = a.n;  // the b of the update (eta/b) sum_{i in B}
  if (sgd) {
    const std::string sampling = one_of(s, "sampling", {"partition", "shuffle-once", "shuffle", "per-step", "poisson"});
    a.sampling = sampling == "partition"      ? BatchSampling::Partition
                 : sampling == "shuffle-once" ? BatchSampling::ShuffleOnce
                 : sampling == "shuffle"      ? BatchSampling::Shuffle
                 : sampling == "per-step"     ? BatchSampling::PerStep
                                              : BatchSampling::Poisson;
    if (a.sampling == BatchSampling::Poisson) {
      // Each record independently with probability q at every step; the clipped sum is divided by
      // the expected batch size b = q n, a constant of the algorithm (as DP-SGD libraries do).
      if (s.has("sampling_rate") && s.has("batch_size"))
        throw SpecError(s.key("batch_size"), describe(s.at("batch_size")),
                        "give sampling_rate or batch_size for sampling = \"poisson\", not both (q = batch_size / n)");
      if (s.has("sampling_rate")) {
        a.sampling_rate = s.number("sampling_rate");
        if (!(a.sampling_rate > 0.0 && a.sampling_rate <= 1.0))
          throw SpecError(s.key("sampling_rate"), format_number(a.sampling_rate),
                          "must be in (0, 1] (the probability that a record is in a step's batch)");
      } else if (s.has("batch_size")) {
        const std::int64_t b = s.integer("batch_size");
        if (b < 1 || static_cast<double>(b) > a.n)
          throw SpecError(
              s.key("batch_size"), std::to_string(b),
              "must be in [1, n = " + format_number(a.n) + "] (the expected batch size; q = batch_size / n)");
        a.sampling_rate = static_cast<double>(b) / a.n;
      } else {
        throw SpecError(s.key("sampling_rate"), "missing",
                        "sampling = \"poisson\" needs sampling_rate (q), or batch_size (the expected batch size, q = "
                        "batch_size / n)");
      }
      batch = a.sampling_rate * a.n;
      a.batch_size = std::max<std::int64_t>(1, std::llround(batch));
    } else {
      if (s.has("sampling_rate"))
        throw SpecError(s.key("sampling_rate"), describe(s.at("sampling_rate")),
                        "is used only with sampling = \"poisson\" (fixed-size batches take batch_size)");
      a.batch_size = s.integer("batch_size");
      const auto n_int = static_cast<std::int64_t>(a.n);
      if (a.batch_size < 1 || a.batch_size > n_int || static_cast<double>(n_int) != a.n || n_int % a.batch_size != 0)
        throw SpecError(s.key("batch_size"), std::to_string(a.batch_size),
                        "must divide n = " + format_number(a.n) + " (n/b batches per epoch, Ye & Shokri 2022 Alg. 1)");
      batch = static_cast<double>(a.batch_size);
    }
  } else {
    a.batch_size = static_cast<std::int64_t>(a.n);
  }
  if (per_step) return expand_per_step_values(s, a, adjacency, batch);
  std::optional<double> eta, sigma;
  std::optional<std::int64_t> steps;
  if (s.has("eta"))
    eta = positive(s, "eta");
  else if (accounting_only_allowed)
    a.declares_eta = false;
  sigma = c21_sigma(s, eta, a, adjacency, batch);
  if (s.has("steps")) {
    steps = non_negative_integer(s, "steps");
    check_size(s.key("steps"), *steps, limits::kMaxSteps, kStepsWhy);
  }
  std::int64_t scheduled = 0;
  if (s.has("schedule")) {
    check_list_size(s, "schedule", limits::kMaxPhases, "each phase is kept in the privacy program");
    for (const Section& p : s.tables("schedule")) {
      p.allow_only({"steps", "eta", "sigma", "gamma", "sensitivity"});
      Phase phase;
      phase.origin = p.path();
      phase.steps = non_negative_integer(p, "steps");
      check_size(p.key("steps"), phase.steps, limits::kMaxSteps, kStepsWhy);
      if (!p.has("eta") && !eta) throw SpecError(p.key("eta"), "missing", "give it here or as algorithm.eta");
      if (!p.has("sigma") && !sigma) throw SpecError(p.key("sigma"), "missing", "give it here or as algorithm.sigma");
      phase.eta = p.has("eta") ? positive(p, "eta") : *eta;
      phase.sigma = p.has("sigma") ? positive(p, "sigma") : *sigma;
      if (p.has("gamma")) {
        const double g = p.number("gamma");
        if (!(g > 0.0 && g <= 1.0)) throw SpecError(p.key("gamma"), format_number(g), "must be in (0, 1]");
        phase.gamma = g;
      }
      if (p.has("sensitivity")) phase.sensitivity = non_negative(p, "sensitivity");
      scheduled += phase.steps;  // <= 2^20 phases of <= 2^40 steps: no overflow
      a.phases.push_back(phase);
    }
    check_size(s.key("schedule"), "phases of " + std::to_string(scheduled) + " steps in all", scheduled,
               limits::kMaxSteps, "the total of the phases' steps; " + std::string(kStepsWhy));
  }
  if (!steps && a.phases.empty())
    throw SpecError(s.key("steps"), "missing", "give steps or [[algorithm.schedule]] phases");
  if (steps && *steps < scheduled)
    throw SpecError(s.key("steps"), std::to_string(*steps),
                    "must be >= the " + std::to_string(scheduled) + " steps of algorithm.schedule");
  if (steps && a.noise_multiplier && !sigma && sgd) {
    // Accounting alone: no C21 units (eta or S_g missing). eta = 0 and sigma = 0 mark them unknown;
    // the accountants use the noise multiplier, the PDI refuses (declares_eta/declares_sensitivity).
    a.phases.push_back(Phase::of(*steps, eta.value_or(0.0), 0.0));
    return;
  }
  if (steps && (*steps > scheduled || a.phases.empty())) {  // the scalars cover the steps after the phases
    if (!eta) throw SpecError(s.key("eta"), "missing", "needed for the steps not covered by a schedule");
    if (!sigma) throw SpecError(s.key("sigma"), "missing", "needed for the steps not covered by a schedule");
    a.phases.push_back(Phase::of(*steps - scheduled, *eta, *sigma));
  }
}

/// [lsi] strongly-convex on a Langevin run (models/langevin_strongly_convex.hpp): lambda only. The
/// diffusion has no step size, so its LSI constant lambda/sigma^2 needs no smoothness beta.
void parse_langevin_strongly_convex(const Section& s, LsiSpec& lsi) {
  if (s.has("beta"))
    throw SpecError(s.key("beta"), describe(s.at("beta")),
                    "is not used with algorithm.kind = \"langevin\": the diffusion has no step size, so the LSI "
                    "constant lambda/sigma^2 needs no smoothness (docs/config.md); remove it");
  s.allow_only({"kind", "lambda"});
  lsi.kind = LsiKind::StronglyConvex;
  if (!s.has("lambda")) throw SpecError(s.key("lambda"), "missing", "this key is required");
  lsi.lambda = s.number("lambda");
  if (!(lsi.lambda > 0.0) || !std::isfinite(lsi.lambda))
    throw SpecError(s.key("lambda"), format_number(lsi.lambda),
                    "must be a finite number > 0 (the loss is lambda-strongly convex)");
  lsi.beta = 0.0;  // not declared
}

void parse_lsi(const Section& s, LsiSpec& lsi, const AlgorithmSpec& algorithm) {
  const LossKind loss = algorithm.loss;
  const std::string kind =
      one_of(s, "kind", {"constant", "strongly-convex", "recursion", "squared-loss", "function", "exact-quadratic"});
  if (kind == "strongly-convex" && algorithm.kind == AlgorithmKind::Langevin)
    return parse_langevin_strongly_convex(s, lsi);
  if (kind == "exact-quadratic") {
    s.allow_only({"kind"});
    lsi.kind = LsiKind::ExactQuadratic;
    return;
  }
  if (kind == "constant") {
    s.allow_only({"kind", "c"});
    lsi.kind = LsiKind::Constant;
    lsi.c = positive(s, "c");
  } else if (kind == "strongly-convex" || kind == "recursion") {
    const bool rec = kind == "recursion";
    if (rec)
      s.allow_only({"kind", "lambda", "beta", "c0", "lipschitz"});
    else
      s.allow_only({"kind", "lambda", "beta"});
    lsi.kind = rec ? LsiKind::Recursion : LsiKind::StronglyConvex;
    // The squared loss |theta - x|^2/2 has lambda = beta = 1.
    const double unit = loss == LossKind::Squared ? 1.0 : NAN;
    lsi.lambda = s.has("lambda") ? s.number("lambda") : unit;
    lsi.beta = s.has("beta") ? s.number("beta") : unit;
    if (rec && s.has("lipschitz")) {
      for (const char* unused : {"lambda", "beta"})
        if (s.has(unused))
          throw SpecError(s.key(unused), describe(s.at(unused)),
                          "is not used when lsi.lipschitz is given (the gradient map's Lipschitz "
                          "constant replaces 1 - eta lambda); remove one of them");
      const double L = s.number("lipschitz");
      if (!(L >= 0.0)) throw SpecError(s.key("lipschitz"), format_number(L), "must be >= 0");
      lsi.lipschitz = L;
    } else {
      if (std::isnan(lsi.lambda)) throw SpecError(s.key("lambda"), "missing", "this key is required");
      if (std::isnan(lsi.beta)) throw SpecError(s.key("beta"), "missing", "this key is required");
    }
    if (loss == LossKind::Squared && (lsi.lambda != 1.0 || lsi.beta != 1.0))
      throw SpecError(s.key("lambda"), format_number(lsi.lambda),
                      "the squared loss has lambda = beta = 1; omit lambda and beta");
    if (rec && s.has("c0")) lsi.c0 = positive(s, "c0");
  } else if (kind == "squared-loss") {
    s.allow_only({"kind"});
    lsi.kind = LsiKind::SquaredLoss;
  } else {
    s.allow_only({"kind", "c"});
    lsi.kind = LsiKind::Function;
    const std::string text = s.string("c");
    auto f = compile_expression(s.key("c"), text, {"s", "t", "alpha"});
    lsi.function = FunctionLsi(
        [f](double sv, double tv, double av) {
          return f({sv, tv, av});
        },
        text, expression_uses(text, "alpha"));
  }
}

void parse_analysis(const Section& s, RunConfig& cfg) {
  s.allow_only({"gamma", "engine", "rtol", "pld_accuracy", "pld_grid"});
  if (s.has("gamma")) {
    const auto& v = s.at("gamma");
    if (v.is_string() && v.as_string().str == "optimal") {
      cfg.spec.gamma = GammaChoice::optimal();
    } else if (v.is_string()) {  // a field gamma(alpha, t)
      const std::string text = v.as_string().str;
      auto f = compile_expression(s.key("gamma"), text, {"alpha", "t"});
      cfg.spec.gamma = GammaChoice::of_field([f](double a, double t) { return f({a, t}); }, text);
    } else {
      const double g = s.number("gamma");
      if (!(g > 0.0 && g <= 1.0))
        throw SpecError(s.key("gamma"), format_number(g),
                        "must be in (0, 1] (gamma > 1 flips the sign of the LSI term, C21 Lemma 2)");
      cfg.spec.gamma = GammaChoice::fixed(g);
    }
  }
  if (s.has("engine")) {  // the names of solver/engine_registry.cpp: a new engine needs no edit here
    const auto names = engine_registry(MPI_COMM_SELF).names();
    cfg.engine = one_of(s, "engine", std::set<std::string>(names.begin(), names.end()));
  }
  if (s.has("pld_accuracy")) {
    const double a = s.number("pld_accuracy");
    if (!(a >= 1e-6 && a <= 0.1))
      throw SpecError(s.key("pld_accuracy"), format_number(a), "must be in [1e-6, 0.1] (relative accuracy of epsilon)");
    cfg.spec.pld.accuracy = a;
  }
  if (s.has("pld_grid")) {
    const double h = s.number("pld_grid");
    if (!(h >= 0x1p-20 && h <= 0x1p-4) || !pld::is_exact_grid_spacing(h))
      throw SpecError(s.key("pld_grid"), format_number(h),
                      "must be 2^k or 3 x 2^k in [2^-20, 2^-4] nats (e.g. 0.0001220703125 = 2^-13 or "
                      "0.000091552734375 = 3 x 2^-15; such spacings keep the grid points exact)");
    cfg.spec.pld.grid = h;
  }
  if (s.has("rtol")) {
    cfg.integration_rtol = positive(s, "rtol");
    if (cfg.integration_rtol > 1e-4)
      throw SpecError(s.key("rtol"), format_number(cfg.integration_rtol), "must be <= 1e-4");
  }
}

/// [quadratic]: the Hessian H (rows), optionally the pair difference x - x' and the standard
/// deviation s of a shared start N(mu, s^2 I). H must be symmetric positive definite and
/// |H (x - x')| <= S_g (the sensitivity bounds the pair's gradient difference).
QuadraticLoss parse_quadratic(const Section& s, double sensitivity) {
  s.allow_only({"hessian", "pair", "initial_std"});
  QuadraticLoss q;
  const auto& rows = s.at("hessian");
  if (!rows.is_array() || rows.as_array().empty())
    throw SpecError(s.key("hessian"), describe(rows), "must be a non-empty array of rows");
  check_size(s.key("hessian"), std::to_string(rows.as_array().size()) + " rows",
             static_cast<std::int64_t>(rows.as_array().size()), limits::kMaxQuadraticDimension,
             "every step of the exact model decomposes d x d matrices (O(d^3)) and keeps two of them");
  for (std::size_t i = 0; i < rows.as_array().size(); ++i) {
    const std::string key = s.key("hessian") + "[" + std::to_string(i) + "]";
    const auto& row = rows.as_array()[i];
    if (!row.is_array()) throw SpecError(key, describe(row), "must be an array of numbers");
    std::vector<double> values;
    for (std::size_t j = 0; j < row.as_array().size(); ++j) {
      const auto& v = row.as_array()[j];
      if (!v.is_floating() && !v.is_integer())
        throw SpecError(key + "[" + std::to_string(j) + "]", describe(v), "must be a number");
      values.push_back(v.is_floating() ? v.as_floating() : static_cast<double>(v.as_integer()));
      if (!std::isfinite(values.back()))
        throw SpecError(key + "[" + std::to_string(j) + "]", describe(v), "must be finite");
    }
    q.hessian.push_back(values);
  }
  const std::size_t d = q.hessian.size();
  Eigen::MatrixXd H(static_cast<Eigen::Index>(d), static_cast<Eigen::Index>(d));
  for (std::size_t i = 0; i < d; ++i) {
    if (q.hessian[i].size() != d)
      throw SpecError(s.key("hessian") + "[" + std::to_string(i) + "]",
                      std::to_string(q.hessian[i].size()) + " entries",
                      "the Hessian must be square (" + std::to_string(d) + " x " + std::to_string(d) + ")");
    for (std::size_t j = 0; j < d; ++j) H(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) = q.hessian[i][j];
  }
  if (!H.isApprox(H.transpose(), 1e-12) || H.llt().info() != Eigen::Success)
    throw SpecError(s.key("hessian"), "a " + std::to_string(d) + " x " + std::to_string(d) + " matrix",
                    "must be symmetric positive definite");
  if (s.has("pair")) {
    const std::vector<double> pair = s.numbers("pair");
    if (pair.size() != d)
      throw SpecError(s.key("pair"), std::to_string(pair.size()) + " entries",
                      "must have d = " + std::to_string(d) + " entries");
    const Eigen::VectorXd delta = Eigen::Map<const Eigen::VectorXd>(pair.data(), static_cast<Eigen::Index>(d));
    // The computed norm may be a few units of roundoff below the exact one, and a pair whose
    // exact gradient gap exceeds S_g would be bounded with S_g: the norm is raised by a bound on
    // its rounding error (d products and sums, a square root) before the comparison.
    const double gradient_gap =
        (H * delta).norm() * (1.0 + 4.0 * (static_cast<double>(d) + 2.0) * outward::kUnitRoundoff);
    if (!(gradient_gap <= sensitivity))
      throw SpecError(s.key("pair"), "with |H pair| = " + format_number(gradient_gap) + " (rounded up)",
                      "must satisfy |H (x - x')| <= algorithm.sensitivity = " + format_number(sensitivity));
    q.pair = pair;
  }
  if (s.has("initial_std")) q.initial_std = positive(s, "initial_std");
  return q;
}

void parse_grid(const Section& s, FiniteDifferenceGrid& g) {
  s.allow_only({"alpha_min", "alpha_max", "cells", "cfl", "limiter", "gamma_samples", "gamma_snapshots_per_step"});
  if (s.has("alpha_min")) {
    g.alpha_min = s.number("alpha_min");
    if (!(g.alpha_min > 1.0)) throw SpecError(s.key("alpha_min"), format_number(g.alpha_min), "must be > 1");
  }
  if (s.has("alpha_max")) g.alpha_max = positive(s, "alpha_max");
  if (s.has("cells")) {
    g.cells = s.integer("cells");
    if (g.cells < 8) throw SpecError(s.key("cells"), std::to_string(g.cells), "must be >= 8");
    check_size(s.key("cells"), g.cells, limits::kMaxGridCells,
               "the engine keeps about 16 vectors of this length and its work grows as cells^2");
  }
  if (s.has("cfl")) {
    g.cfl = positive(s, "cfl");
    if (g.cfl > 1.0) throw SpecError(s.key("cfl"), format_number(g.cfl), "must be <= 1 (stability)");
  }
  if (s.has("limiter")) g.limiter = limiter_from_name(one_of(s, "limiter", {"upwind", "minmod", "van-leer", "mc"}));
  if (s.has("gamma_samples")) {
    g.gamma_samples = s.integer("gamma_samples");
    if (g.gamma_samples < 2) throw SpecError(s.key("gamma_samples"), std::to_string(g.gamma_samples), "must be >= 2");
    check_size(s.key("gamma_samples"), g.gamma_samples, limits::kMaxGammaSamples,
               "every optimal-gamma snapshot, kept for every step, holds this many values");
  }
  if (s.has("gamma_snapshots_per_step")) {
    const std::int64_t n = s.integer("gamma_snapshots_per_step");
    if (n < 1 || n > 1000)
      throw SpecError(s.key("gamma_snapshots_per_step"), std::to_string(n), "must be in [1, 1000]");
    g.gamma_snapshots_per_step = static_cast<int>(n);
  }
}

InitialCurve parse_initial(const Section& s) {
  const std::string kind = one_of(s, "kind", {"zero", "linear", "power", "table", "function"});
  if (kind == "zero") {
    s.allow_only({"kind"});
    return ZeroCurve{};
  }
  if (kind == "linear") {
    s.allow_only({"kind", "slope"});
    return LinearCurve{non_negative(s, "slope")};
  }
  if (kind == "power") {
    s.allow_only({"kind", "scale", "exponent"});
    const double e = s.number("exponent");
    if (!(e >= 0.0)) throw SpecError(s.key("exponent"), format_number(e), "must be >= 0");
    return PowerCurve{non_negative(s, "scale"), e};
  }
  if (kind == "table") {
    s.allow_only({"kind", "alpha", "R"});
    for (const char* k : {"alpha", "R"})
      check_list_size(s, k, limits::kMaxTableEntries, "a tabulated curve R(alpha), as the orders");
    TableCurve t{s.numbers("alpha"), s.numbers("R")};
    if (t.alpha.empty()) throw SpecError(s.key("alpha"), "[]", "must list at least one order");
    if (t.alpha.size() != t.values.size())
      throw SpecError(s.key("R"), std::to_string(t.values.size()) + " values",
                      "must have as many entries as initial.alpha (" + std::to_string(t.alpha.size()) + ")");
    for (std::size_t i = 0; i < t.alpha.size(); ++i) {
      const std::string ia = s.key("alpha") + "[" + std::to_string(i) + "]";
      const std::string ir = s.key("R") + "[" + std::to_string(i) + "]";
      if (!(t.alpha[i] > 1.0)) throw SpecError(ia, format_number(t.alpha[i]), "orders must be > 1");
      if (i > 0 && !(t.alpha[i] > t.alpha[i - 1]))
        throw SpecError(ia, format_number(t.alpha[i]), "orders must be strictly increasing");
      if (!(t.values[i] >= 0.0)) throw SpecError(ir, format_number(t.values[i]), "must be >= 0");
      if (i > 0 && !(t.values[i] >= t.values[i - 1]))
        throw SpecError(ir, format_number(t.values[i]),
                        "must be >= the previous value: R_alpha is non-decreasing in alpha");
    }
    return t;
  }
  s.allow_only({"kind", "R"});
  const std::string text = s.string("R");
  auto f = compile_expression(s.key("R"), text, {"alpha"});
  return FunctionCurve{[f](double a) { return f({a}); }, text};
}

/// Events change the iterate law; only the LSI recursion carries that into c (C21 Lemma 8:
/// an L-Lipschitz map takes c to c/L^2). The other kinds fix c at every step: a restart would be
/// ignored, and an expanding map (L > 1) would leave c too large, unless the user vouches for c
/// (constant or function with a generic loss: their c must then account for the maps).
void check_event_against_lsi(const Section& e, const StepEvent& event, const RunSpec& spec) {
  if (!spec.declares_lsi || spec.lsi.kind == LsiKind::Recursion) return;
  const char* kind = spec.lsi.kind == LsiKind::Constant         ? "constant"
                     : spec.lsi.kind == LsiKind::StronglyConvex ? "strongly-convex"
                     : spec.lsi.kind == LsiKind::SquaredLoss    ? "squared-loss"
                     : spec.lsi.kind == LsiKind::Function       ? "function"
                                                                : "exact-quadratic";
  // A Langevin run has no recursion: the user's own c (constant, function) is the way out there.
  const std::string remedy = spec.algorithm.kind == AlgorithmKind::Langevin
                                 ? "; a Langevin run has no recursion: use lsi.kind = \"constant\" with a c you certify"
                                 : "";
  const bool user_vouches = (spec.lsi.kind == LsiKind::Constant || spec.lsi.kind == LsiKind::Function) &&
                            spec.algorithm.loss == LossKind::Generic;
  std::visit(Overloaded{[&](const LsiRestart&) {
                          throw SpecError(e.key("kind"), "\"lsi-restart\"",
                                          std::string("needs lsi.kind = \"recursion\": lsi.kind = \"") + kind +
                                              "\" fixes c at every step, so the restart would be ignored" + remedy);
                        },
                        [&](const LipschitzMap& map) {
                          if (map.lipschitz > 1.0 && !user_vouches)
                            throw SpecError(e.key("lipschitz"), format_number(map.lipschitz),
                                            std::string("an expanding map (L > 1) widens the iterate law (C21 Lemma 8: "
                                                        "c -> c/L^2), which lsi.kind = \"") +
                                                kind + "\" does not account for: use lsi.kind = \"recursion\"" +
                                                remedy);
                        },
                        [](const GaussianRelease&) {}},  // a release leaves the law's LSI constant alone
             event);
}

std::vector<ScheduledEvent> parse_events(const Section& root, const RunSpec& spec) {
  const std::int64_t total_steps = spec.total_steps();
  check_list_size(root, "events", limits::kMaxEvents, "each event splits a phase of the privacy program");
  std::vector<ScheduledEvent> out;
  for (const Section& e : root.tables("events")) {
    const std::string kind = one_of(e, "kind", {"gaussian-release", "lipschitz", "lsi-restart"});
    ScheduledEvent ev;
    // A pdi run places its events by time (kind = "pdi" section above); the others by step.
    const bool by_time = spec.algorithm.kind == AlgorithmKind::Pdi;
    const std::string when = by_time ? "time" : "after_step";
    ev.after_step = by_time ? pdi_event_step(e, spec.algorithm) : non_negative_integer(e, "after_step");
    if (ev.after_step > total_steps)
      throw SpecError(e.key("after_step"), std::to_string(ev.after_step),
                      "must be <= the number of steps (" + std::to_string(total_steps) + ")");
    if (kind == "gaussian-release") {
      e.allow_only({"kind", when, "sensitivity", "noise_std"});
      ev.event = GaussianRelease{non_negative(e, "sensitivity"), positive(e, "noise_std")};
    } else if (kind == "lipschitz") {
      e.allow_only({"kind", when, "lipschitz"});
      ev.event = LipschitzMap{non_negative(e, "lipschitz")};
    } else {
      e.allow_only({"kind", when, "c"});
      ev.event = LsiRestart{positive(e, "c")};
    }
    check_event_against_lsi(e, ev.event, spec);
    out.push_back(ev);
  }
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.after_step < b.after_step; });
  return out;
}

/// The TOML value of VALUE in `--set KEY=VALUE`: any TOML value (number, "string", array, inline
/// table, boolean); a bare word that is not TOML (optimal, finite-difference) is taken as a string.
toml::value override_value(const std::string& key, const std::string& text) {
  check_toml_limits("v = " + text + "\n", "--set " + key);
  try {
    std::istringstream in("v = " + text + "\n");
    const toml::value doc = toml::parse(in, "--set " + key);
    if (doc.as_table().size() == 1 && doc.as_table().count("v")) return doc.as_table().at("v");
  } catch (const toml::exception&) {}
  const bool bare = !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.' || c == '+';
  });
  if (!bare)
    throw SpecError(key, text.empty() ? std::string("(empty)") : text,
                    "--set needs a TOML value: a number, true/false, \"a string\", [an, array] or a bare word");
  return toml::value(text);
}

/// "KEY=VALUE" split and trimmed; SpecError when there is no '='.
std::pair<std::string, std::string> split_assignment(const std::string& assignment) {
  const auto eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0)
    throw SpecError("--set", "\"" + assignment + "\"", "must be KEY=VALUE, e.g. algorithm.sigma=0.1");
  auto trim = [](std::string t) {
    const auto b = t.find_first_not_of(" \t"), e = t.find_last_not_of(" \t");
    return b == std::string::npos ? std::string() : t.substr(b, e - b + 1);
  };
  return {trim(assignment.substr(0, eq)), trim(assignment.substr(eq + 1))};
}

/// Offset of the first byte that does not start a well-formed UTF-8 sequence (RFC 3629: no
/// overlong forms, no surrogates, at most U+10FFFF), or npos when the text is UTF-8. The TOML
/// parser's own check reads out of bounds on a bad byte in a 'literal string' (a heap overflow
/// found by tests/fuzz), so the text is checked before it gets there.
std::size_t invalid_utf8_at(const std::string& text) {
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  const std::size_t n = text.size();
  for (std::size_t i = 0; i < n;) {
    const unsigned char c = p[i];
    if (c < 0x80) {
      ++i;
      continue;
    }
    std::size_t length = 0;
    unsigned char lo = 0x80, hi = 0xBF;  // range of the second byte
    if (c >= 0xC2 && c <= 0xDF) {
      length = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
      length = 3;
      if (c == 0xE0) lo = 0xA0;  // overlong
      if (c == 0xED) hi = 0x9F;  // surrogates
    } else if (c >= 0xF0 && c <= 0xF4) {
      length = 4;
      if (c == 0xF0) lo = 0x90;  // overlong
      if (c == 0xF4) hi = 0x8F;  // above U+10FFFF
    } else {
      return i;
    }
    if (i + length > n || p[i + 1] < lo || p[i + 1] > hi) return i;
    for (std::size_t k = 2; k < length; ++k)
      if (p[i + k] < 0x80 || p[i + k] > 0xBF) return i;
    i += length;
  }
  return std::string::npos;
}

/// Where a TOML text exceeds kMaxTomlNesting or kMaxKeyParts, found by a small scanner of its
/// structure (strings and comments skipped as TOML reads them); empty when within the limits.
/// It runs before the parser, so it must not trust the text to be valid TOML: on malformed text
/// it still only counts brackets and dots, and the parser reports the error.
std::string toml_limit_violation(const std::string& text) {
  std::vector<char> open;           // '[' array, '{' inline table, 'h' table header
  std::vector<std::size_t> commas;  // per open bracket: commas seen directly inside it
  double parse_work = 0.0;          // sum of entries^2 over the arrays (toml11 parses one in O(n^2))
  bool in_key = true;               // at a key: start of a line, header, after '{' or ',' in an inline table
  std::size_t key_parts = 1, line = 1;
  const std::size_t n = text.size();
  auto where = [&] { return " (line " + std::to_string(line) + ")"; };
  for (std::size_t i = 0; i < n; ++i) {
    const char c = text[i];
    if (c == '\n') {
      ++line;
      if (open.empty() || open.back() == 'h') {
        open.clear();  // a header never spans lines; the parser reports an unclosed one
        in_key = true;
        key_parts = 1;
      }
    } else if (c == '#') {
      while (i + 1 < n && text[i + 1] != '\n') ++i;
    } else if (c == '"' || c == '\'') {
      const bool basic = c == '"';
      if (i + 2 < n && text[i + 1] == c && text[i + 2] == c) {  // multi-line string
        i += 3;
        for (; i < n; ++i) {
          if (basic && text[i] == '\\') {
            ++i;
            if (i < n && text[i] == '\n') ++line;
          } else if (text[i] == '\n') {
            ++line;
          } else if (text[i] == c && i + 2 < n && text[i + 1] == c && text[i + 2] == c) {
            while (i + 3 < n && text[i + 3] == c) ++i;  // """" ends with a quote inside
            i += 2;
            break;
          }
        }
      } else {  // one-line string: ends at its quote or (an error for the parser) the line
        for (++i; i < n && text[i] != c && text[i] != '\n'; ++i)
          if (basic && text[i] == '\\' && i + 1 < n && text[i + 1] != '\n') ++i;
        if (i < n && text[i] == '\n') --i;  // let the loop count the line
      }
    } else if (c == '[' || c == '{') {
      const bool header = c == '[' && open.empty() && in_key;
      if (header && i + 1 < n && text[i + 1] == '[') ++i;  // [[array.of.tables]]
      open.push_back(header ? 'h' : c);
      commas.push_back(0);
      if (open.size() > kMaxTomlNesting)
        return "arrays and inline tables nested more than " + std::to_string(kMaxTomlNesting) + " levels deep" +
               where();
      in_key = header || c == '{';
      key_parts = 1;
    } else if (c == ']' || c == '}') {
      if (!open.empty()) {
        if (open.back() == 'h' && i + 1 < n && text[i + 1] == ']') ++i;
        if (open.back() == '[') {
          const double entries = static_cast<double>(commas.back()) + 1.0;
          if (entries > static_cast<double>(limits::kMaxArrayEntries))
            return "an array of more than " + std::to_string(limits::kMaxArrayEntries) + " entries" + where();
          parse_work += entries * entries;
          if (parse_work > limits::kMaxArrayParseWork)
            return "arrays whose entries squared sum to more than " + format_number(limits::kMaxArrayParseWork) +
                   " (the TOML parser's time grows with that sum)" + where();
        }
        open.pop_back();
        commas.pop_back();
      }
      in_key = false;
    } else if (c == ',' && !open.empty() && open.back() == '{') {
      in_key = true;
      key_parts = 1;
    } else if (c == ',' && !open.empty() && open.back() == '[') {
      ++commas.back();
    } else if (c == '=' && in_key) {
      in_key = false;
    } else if (c == '.' && in_key && ++key_parts > kMaxKeyParts) {
      return "a dotted key of more than " + std::to_string(kMaxKeyParts) + " parts" + where();
    }
  }
  return {};
}

}  // namespace

void set_config_key(toml::value& root, const std::string& key, toml::value value) {
  const std::string value_text = describe(value);
  std::vector<std::string> parts;
  for (std::size_t start = 0;;) {
    const auto dot = key.find('.', start);
    parts.push_back(key.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  toml::value* node = &root;
  std::string path;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    std::string name = parts[i];
    std::optional<std::size_t> index;
    if (const auto open = name.find('['); open != std::string::npos && name.back() == ']') {
      const std::string digits = name.substr(open + 1, name.size() - open - 2);
      if (digits.empty() || !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
        throw SpecError(key, value_text, "an index must be a number, e.g. algorithm.schedule[0].eta");
      // stoul would throw std::out_of_range past 2^64; no array has 10^9 entries anyway.
      if (digits.size() > 9) throw SpecError(key, value_text, "index " + digits + " is out of range");
      index = std::stoul(digits);
      name = name.substr(0, open);
    }
    if (name.empty()) throw SpecError(key, value_text, "not a dotted key such as algorithm.sigma");
    path += (path.empty() ? "" : ".") + name;
    if (!node->is_table())
      throw SpecError(path.substr(0, path.rfind('.')), describe(*node), "is not a table; cannot set " + key);
    auto& table = node->as_table();
    const bool last = i + 1 == parts.size();
    if (last && !index) {
      table[name] = std::move(value);
      return;
    }
    if (!table.count(name)) {
      if (index) throw SpecError(path, "missing", "no such array of tables to index in " + key);
      table[name] = toml::table{};
    }
    node = &table[name];
    if (index) {
      if (!node->is_array() || *index >= node->as_array().size())
        throw SpecError(path + "[" + std::to_string(*index) + "]", "missing",
                        node->is_array()
                            ? "index out of range (" + std::to_string(node->as_array().size()) + " entries)"
                            : "is not an array of tables");
      path += "[" + std::to_string(*index) + "]";
      node = &node->as_array()[*index];
      if (last) {
        *node = std::move(value);
        return;
      }
    }
  }
}

void apply_override(toml::value& root, const std::string& assignment) {
  const auto [key, value_text] = split_assignment(assignment);
  set_config_key(root, key, override_value(key, value_text));
}

void check_toml_limits(const std::string& text, const std::string& source_name) {
  if (text.size() > static_cast<std::size_t>(limits::kMaxConfigBytes))
    throw SpecError(source_name, "(file)",
                    "is " + std::to_string(text.size()) + " bytes; a configuration may have at most " +
                        std::to_string(limits::kMaxConfigBytes) + " (64 MiB; docs/config.md, \"Limits\")");
  if (const auto bad = invalid_utf8_at(text); bad != std::string::npos)
    throw SpecError(
        source_name, "(file)",
        "is not UTF-8 at byte " + std::to_string(bad) + " (line " +
            std::to_string(1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(bad), '\n')) +
            "): TOML documents are UTF-8");
  if (const std::string violation = toml_limit_violation(text); !violation.empty())
    throw SpecError(source_name, "(file)",
                    "has " + violation + "; the limits are " + std::to_string(kMaxTomlNesting) + " nested levels, " +
                        std::to_string(kMaxKeyParts) + " key parts and " + std::to_string(limits::kMaxArrayEntries) +
                        " entries an array (docs/config.md, \"Limits\")");
}

toml::value parse_toml_document(const std::string& text, const std::string& source_name) {
  check_toml_limits(text, source_name);
  try {
    std::istringstream in(text);
    return toml::parse(in, source_name);
  } catch (const toml::exception& e) {
    throw SpecError(source_name, "(file)", std::string("is not valid TOML: ") + e.what());
  }
}

RunConfig parse_config_text(const std::string& text, const std::string& source_name,
                            const std::vector<std::string>& overrides) {
  toml::value data = parse_toml_document(text, source_name);
  for (const auto& o : overrides) apply_override(data, o);
  if (data.is_table() && data.as_table().count("sweep"))
    throw SpecError("sweep", "a table", "is read only by `rdpdyn sweep` (this command takes one point)");
  return config_from_document(data, effective_config_text(text, overrides), source_name, overrides);
}

std::vector<double> orders_from_document(const toml::value& data) {
  return parse_orders(Section(data, "").table("orders"));
}

std::string effective_config_text(const std::string& text, const std::vector<std::string>& overrides) {
  if (overrides.empty()) return text;
  // Self-describing outputs: the effective configuration is the text plus these.
  std::string out = text + "\n# Overridden on the command line (--set), applied to the text above:\n";
  for (const auto& o : overrides) out += "# " + o + "\n";
  return out;
}

RunConfig config_from_document(const toml::value& data, std::string text, const std::string& source_name,
                               const std::vector<std::string>& overrides) {
  RunConfig cfg;
  cfg.text = std::move(text);
  cfg.overrides = overrides;
  cfg.path = source_name;
  const Section root(data, "");
  root.allow_only({"orders", "algorithm", "lsi", "analysis", "grid", "initial", "events", "output", "domain", "report",
                   "quadratic"});
  RunSpec& spec = cfg.spec;
  spec.orders = parse_orders(root.table("orders"));
  // [domain] first: the adjacency fixes what a DP-SGD noise multiplier means (docs/config.md).
  if (root.has("domain")) {
    const Section d = root.table("domain");
    d.allow_only({"diameter", "adjacency", "lipschitz_loss"});
    if (d.has("lipschitz_loss")) {
      const auto& v = d.at("lipschitz_loss");
      if (!v.is_boolean()) throw SpecError(d.key("lipschitz_loss"), describe(v), "must be true or false");
      spec.gradients_norm_bounded = v.as_boolean();
    }
    if (d.has("diameter")) spec.diameter = positive(d, "diameter");
    // "remove" is the older spelling of "add-remove" (one record more or less, either direction).
    if (d.has("adjacency"))
      spec.adjacency = one_of(d, "adjacency", {"replace", "add-remove", "remove"}) == "replace" ? Adjacency::Replace
                                                                                                : Adjacency::AddRemove;
  }
  parse_algorithm(root.table("algorithm"), spec.algorithm, spec.adjacency);
  // [lsi] is optional for noisy-sgd: only the PDI and the analyses of the LSI model need it.
  if (root.has("lsi") || spec.algorithm.kind != AlgorithmKind::NoisySgd)
    parse_lsi(root.table("lsi"), spec.lsi, spec.algorithm);
  else
    spec.declares_lsi = false;
  if (spec.algorithm.loss == LossKind::Quadratic) {
    if (!root.has("quadratic"))
      throw SpecError("quadratic", "missing", "algorithm.loss = \"quadratic\" needs the table [quadratic]");
    if (!spec.algorithm.declares_sensitivity)
      throw SpecError("algorithm.sensitivity", "missing",
                      "needed with algorithm.loss = \"quadratic\" (the pair is checked against it)");
    spec.quadratic = parse_quadratic(root.table("quadratic"), spec.algorithm.sensitivity);
  } else if (root.has("quadratic")) {
    throw SpecError("quadratic", "a table", "is used only with algorithm.loss = \"quadratic\"");
  }
  if (root.has("analysis")) parse_analysis(root.table("analysis"), cfg);
  if (root.has("grid")) parse_grid(root.table("grid"), cfg.grid);
  if (root.has("report")) {
    const Section r = root.table("report");
    r.allow_only({"delta", "epsilon", "include_disputed"});
    if (r.has("delta")) {
      const double delta = r.number("delta");
      if (!(delta > 0.0 && delta < 1.0)) throw SpecError(r.key("delta"), format_number(delta), "must be in (0, 1)");
      spec.report_delta = delta;
    }
    if (r.has("epsilon")) {
      const double eps = r.number("epsilon");
      if (!(eps >= 0.0) || !std::isfinite(eps))
        throw SpecError(r.key("epsilon"), format_number(eps), "must be a finite number >= 0");
      spec.report_epsilon = eps;
    }
    if (r.has("include_disputed")) {
      const auto& v = r.at("include_disputed");
      if (!v.is_boolean()) throw SpecError(r.key("include_disputed"), describe(v), "must be true or false");
      spec.include_disputed = v.as_boolean();
    }
  }
  if (root.has("initial")) spec.initial = parse_initial(root.table("initial"));
  if (root.has("events")) spec.events = parse_events(root, spec);
  if (root.has("output")) {
    const Section out = root.table("output");
    out.allow_only({"record_every", "record_steps"});
    if (out.has("record_steps")) {
      spec.record.every = 0;  // only the listed steps (and the first and last)
      const auto& list = out.at("record_steps");
      if (!list.is_array())
        throw SpecError(out.key("record_steps"), "not an array", "must be an array of step numbers");
      check_list_size(out, "record_steps", limits::kMaxRecordSteps, "each listed step is a record of every output");
      for (std::size_t i = 0; i < list.as_array().size(); ++i) {
        const auto& v = list.as_array()[i];
        const std::string key = out.key("record_steps") + "[" + std::to_string(i) + "]";
        if (!v.is_integer()) throw SpecError(key, describe(v), "must be an integer");
        if (v.as_integer() < 0 || v.as_integer() > spec.total_steps())
          throw SpecError(key, std::to_string(v.as_integer()),
                          "must be in [0, " + std::to_string(spec.total_steps()) + "] (the number of steps)");
        spec.record.steps.push_back(v.as_integer());
      }
      std::sort(spec.record.steps.begin(), spec.record.steps.end());
    }
    if (out.has("record_every")) {
      spec.record.every = out.integer("record_every");
      if (spec.record.every < 1)
        throw SpecError(out.key("record_every"), std::to_string(spec.record.every), "must be >= 1");
    }
  }
  if (const auto* t = std::get_if<TableCurve>(&spec.initial); t && spec.orders.back() > t->alpha.back())
    throw SpecError("orders", "max " + format_number(spec.orders.back()),
                    "must not exceed the largest tabulated order initial.alpha = " + format_number(t->alpha.back()) +
                        " (no sound extrapolation above the table)");
  const EngineRegistry engines = engine_registry(MPI_COMM_SELF);
  const Engine& engine = *engines.find(cfg.engine);  // a registered name (read above)
  if (!root.has("analysis") || !root.table("analysis").has("gamma")) {
    // The default gamma: the best certified choice the engine supports (Engine::optimal_gamma_by_default).
    spec.gamma_by_default = true;
    spec.gamma = engine.optimal_gamma_by_default(spec.initial) ? GammaChoice::optimal() : GammaChoice::fixed(0.5);
  }
  // The engine's dry run: whether it can solve this run, and the defaults of its own settings.
  EngineRequest request = engine_request_of(cfg);
  if (const auto refusal = engine.admit(request)) throw SpecError(refusal->key, refusal->value, refusal->rule);
  cfg.grid = request.grid;
  check_model_assumptions(spec);
  return cfg;
}

std::string read_config_file(const std::filesystem::path& path) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (ec) throw SpecError("CONFIG", "\"" + path.string() + "\"", "cannot be read: " + ec.message());
  if (std::filesystem::is_directory(status))
    throw SpecError("CONFIG", "\"" + path.string() + "\"", "is a directory, not a configuration file");
  if (!std::filesystem::is_regular_file(status))
    throw SpecError("CONFIG", "\"" + path.string() + "\"", "is not a regular file");
  if (const auto size = std::filesystem::file_size(path, ec);
      !ec && size > static_cast<std::uintmax_t>(limits::kMaxConfigBytes))
    throw SpecError("CONFIG", "\"" + path.string() + "\"",
                    "is " + std::to_string(size) +
                        " bytes; a configuration must be <= " + limit_text(limits::kMaxConfigBytes) +
                        " bytes (the largest legitimate one, a 1024 x 1024 "
                        "quadratic.hessian, is about 20 MB; docs/config.md, Limits)");
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw SpecError("CONFIG", "\"" + path.string() + "\"",
                    "cannot be opened for reading: " + std::string(std::strerror(errno)));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

RunConfig load_config(const std::filesystem::path& path, const std::vector<std::string>& overrides) {
  return parse_config_text(read_config_file(path), path.string(), overrides);
}

}  // namespace rdpdyn

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "io/config/section_rules.hpp"
#include "io/config/sections.hpp"
#include "io/expression.hpp"
#include "models/size_limits.hpp"
#include "numerics/format_number.hpp"
#include "numerics/spec_error.hpp"

namespace rdpdyn::config_reader {

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

}  // namespace rdpdyn::config_reader

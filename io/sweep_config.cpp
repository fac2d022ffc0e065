#include "io/sweep_config.hpp"

#include "solver/engine_registry.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include "io/config_document.hpp"
#include "io/toml_section.hpp"
#include "models/size_limits.hpp"
#include "numerics/spec_error.hpp"

namespace rdpdyn {

/// Values held at once (points x orders x analyses), as a double for the products it bounds.
constexpr auto kMaxSweepValuesD = static_cast<double>(limits::kMaxSweepValues);
constexpr double kMaxExactInteger = 9007199254740992.0;  // 2^53

struct SweepConfiguration::State {
  toml::value base;  ///< the file with the overrides applied and [sweep] removed
  std::string text, source;
  std::vector<std::string> overrides;
  SweepSpec spec;
  std::vector<double> orders;
};

namespace {

SweepAxis parse_axis(const Section& s, const std::set<std::string>& earlier) {
  s.allow_only({"key", "values", "range"});
  SweepAxis axis;
  axis.key = s.string("key");
  if (axis.key.empty()) throw SpecError(s.key("key"), "\"\"", "must name a key, e.g. \"algorithm.sigma\"");
  const std::string head = axis.key.substr(0, axis.key.find_first_of(".["));
  if (head == "orders")
    throw SpecError(s.key("key"), "\"" + axis.key + "\"",
                    "the orders are the last dimension of every surface: list them in [orders]");
  if (head == "sweep") throw SpecError(s.key("key"), "\"" + axis.key + "\"", "a sweep cannot sweep itself");
  if (earlier.count(axis.key)) throw SpecError(s.key("key"), "\"" + axis.key + "\"", "is already an axis");
  if (s.has("values") == s.has("range"))
    throw SpecError(s.path(), s.has("values") ? "values and range" : "neither values nor range",
                    "give exactly one of values = [...] or range = { start, stop, count, scale }");
  if (s.has("values")) {
    const auto& list = s.at("values");
    axis.values = s.numbers("values");
    if (axis.values.empty()) throw SpecError(s.key("values"), "[]", "must list at least one value");
    axis.integer = std::all_of(list.as_array().begin(), list.as_array().end(),
                               [](const toml::value& v) { return v.is_integer(); });
    axis.description = std::to_string(axis.values.size()) + " listed values";
  } else {
    const Section r = s.table("range");
    r.allow_only({"start", "stop", "count", "scale"});
    const double start = r.number("start"), stop = r.number("stop");
    const std::int64_t count = r.integer("count");
    const std::string scale = r.has("scale") ? r.string("scale") : "linear";
    if (scale != "linear" && scale != "log")
      throw SpecError(r.key("scale"), "\"" + scale + "\"", "must be one of \"linear\", \"log\"");
    if (count < 2) throw SpecError(r.key("count"), std::to_string(count), "must be >= 2 (one value: values = [x])");
    if (static_cast<double>(count) > kMaxSweepValuesD)  // before the values are made
      throw SpecError(r.key("count"), std::to_string(count),
                      "must be <= " + format_number(kMaxSweepValuesD) +
                          " (2^28): points x orders x analyses is limited to 2^28 values (docs/config.md, Limits)");
    if (!(stop != start)) throw SpecError(r.key("stop"), format_number(stop), "must differ from start");
    if (scale == "log" && !(start > 0.0 && stop > 0.0))
      throw SpecError(r.key(start > 0.0 ? "stop" : "start"), format_number(start > 0.0 ? stop : start),
                      "must be > 0 on a log scale");
    axis.values = sweep_range(start, stop, count, scale == "log");
    // Integer ends (steps, n, batch_size): the values are rounded and kept once each.
    axis.integer = r.at("start").is_integer() && r.at("stop").is_integer();
    if (axis.integer) {
      for (double& v : axis.values) v = std::round(v);
      axis.values.erase(std::unique(axis.values.begin(), axis.values.end()), axis.values.end());
    }
    axis.description =
        "range " + format_number(start) + " to " + format_number(stop) + ", count " + std::to_string(count) + ", " +
        scale + " scale" +
        (axis.integer ? ", rounded to integers (" + std::to_string(axis.values.size()) + " distinct)" : "");
  }
  // Integer values are written as TOML integers: beyond 2^53 the doubles are no longer exact and
  // 2^63 does not fit int64 (an undefined conversion, as n = 1e52 was in config.cpp).
  if (axis.integer)
    for (const double v : axis.values)
      if (!(std::abs(v) <= kMaxExactInteger))
        throw SpecError(s.key(s.has("values") ? "values" : "range"), format_number(v),
                        "integer values must lie within +-2^53 = " + format_number(kMaxExactInteger));
  std::vector<double> sorted = axis.values;
  std::sort(sorted.begin(), sorted.end());
  if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end())
    throw SpecError(s.key("values"), "a repeated value", "each value of an axis must appear once (it is a coordinate)");
  return axis;
}

SweepSpec parse_sweep(const Section& s) {
  s.allow_only({"analyses", "axis"});
  SweepSpec spec;
  if (s.has("analyses")) {
    const auto& v = s.at("analyses");
    if (!v.is_array()) throw SpecError(s.key("analyses"), describe(v), "must be an array of analysis names");
    spec.analyses.clear();
    for (std::size_t i = 0; i < v.as_array().size(); ++i) {
      const auto& name = v.as_array()[i];
      if (!name.is_string())
        throw SpecError(s.key("analyses") + "[" + std::to_string(i) + "]", describe(name), "must be a string");
      spec.analyses.push_back(name.as_string().str);
    }
  }
  check_sweep_analyses(spec);
  if (!s.has("axis")) throw SpecError(s.key("axis"), "missing", "a sweep needs at least one [[sweep.axis]]");
  std::set<std::string> keys;
  double points = 1.0;  // in double: a product of large axes must not wrap around
  for (const Section& a : s.tables("axis")) {
    spec.axes.push_back(parse_axis(a, keys));
    keys.insert(spec.axes.back().key);
    points *= static_cast<double>(spec.axes.back().values.size());
    if (points > kMaxSweepValuesD)
      throw SpecError(s.key("axis"), format_number(points) + " points",
                      "the number of points exceeds " + format_number(kMaxSweepValuesD) +
                          " (2^28), the limit of points x orders x analyses: split the sweep (docs/config.md, Limits)");
  }
  if (spec.axes.empty()) throw SpecError(s.key("axis"), "[]", "a sweep needs at least one [[sweep.axis]]");
  return spec;
}

}  // namespace

std::vector<double> sweep_range(double start, double stop, std::int64_t count, bool log_scale) {
  std::vector<double> v;
  const double a = log_scale ? std::log(start) : start, b = log_scale ? std::log(stop) : stop;
  for (std::int64_t i = 0; i < count; ++i) {
    const double x = a + (b - a) * static_cast<double>(i) / static_cast<double>(count - 1);
    v.push_back(i == 0 ? start : i == count - 1 ? stop : log_scale ? std::exp(x) : x);
  }
  return v;
}

SweepConfiguration::SweepConfiguration(std::unique_ptr<State> state) : state_(std::move(state)) {}
SweepConfiguration::~SweepConfiguration() = default;
SweepConfiguration::SweepConfiguration(SweepConfiguration&&) noexcept = default;
SweepConfiguration& SweepConfiguration::operator=(SweepConfiguration&&) noexcept = default;

SweepConfiguration SweepConfiguration::parse(const std::string& text, const std::string& source_name,
                                             const std::vector<std::string>& overrides) {
  auto state = std::make_unique<State>();
  state->base = parse_toml_document(text, source_name);
  for (const auto& o : overrides) apply_override(state->base, o);
  if (!state->base.is_table() || !state->base.as_table().count("sweep"))
    throw SpecError("sweep", "missing", "`rdpdyn sweep` needs a [sweep] table with at least one [[sweep.axis]]");
  state->spec = parse_sweep(Section(state->base, "").table("sweep"));
  state->base.as_table().erase("sweep");
  state->orders = orders_from_document(state->base);
  const double values = static_cast<double>(state->spec.point_count()) * static_cast<double>(state->orders.size()) *
                        static_cast<double>(state->spec.analyses.size());
  if (values > kMaxSweepValuesD)
    throw SpecError("sweep.axis", format_number(static_cast<double>(state->spec.point_count())) + " points",
                    "points x orders x analyses = " + format_number(values) + " values exceeds " +
                        format_number(kMaxSweepValuesD) + ": split the sweep");
  state->text = effective_config_text(text, overrides);
  state->source = source_name;
  state->overrides = overrides;
  return SweepConfiguration(std::move(state));
}

SweepConfiguration SweepConfiguration::load(const std::filesystem::path& path,
                                            const std::vector<std::string>& overrides) {
  return parse(read_config_file(path), path.string(), overrides);
}

const SweepSpec& SweepConfiguration::spec() const { return state_->spec; }
const std::vector<double>& SweepConfiguration::orders() const { return state_->orders; }
const std::string& SweepConfiguration::text() const { return state_->text; }
const std::string& SweepConfiguration::source_name() const { return state_->source; }

RunConfig SweepConfiguration::point(std::span<const double> axis_values) const {
  toml::value doc = state_->base;
  std::string note = "\n# Sweep point:";
  for (std::size_t i = 0; i < state_->spec.axes.size(); ++i) {
    const SweepAxis& axis = state_->spec.axes[i];
    const double v = axis_values[i];
    set_config_key(doc, axis.key, axis.integer ? toml::value(static_cast<std::int64_t>(v)) : toml::value(v));
    note += " " + axis.key + " = " + format_number(v);
  }
  return config_from_document(doc, state_->text + note + "\n", state_->source, state_->overrides);
}

double SweepConfiguration::estimated_cost(std::span<const double> axis_values) const {
  const auto& root = state_->base.as_table();
  auto base_number = [&](const char* table, const char* key, double fallback) {
    const auto t = root.find(table);
    if (t == root.end() || !t->second.is_table()) return fallback;
    const auto v = t->second.as_table().find(key);
    if (v == t->second.as_table().end()) return fallback;
    if (v->second.is_integer()) return static_cast<double>(v->second.as_integer());
    return v->second.is_floating() ? v->second.as_floating() : fallback;
  };
  double steps = std::max(base_number("algorithm", "steps", 0.0), base_number("algorithm", "intervals", 100.0));
  for (std::size_t i = 0; i < state_->spec.axes.size(); ++i)
    if (state_->spec.axes[i].key == "algorithm.steps" || state_->spec.axes[i].key == "algorithm.intervals")
      steps = axis_values[i];
  // The engine's work per step and order relative to the characteristics engine's.
  double relative_cost = 1.0;
  if (const auto a = root.find("analysis"); a != root.end() && a->second.is_table())
    if (const auto e = a->second.as_table().find("engine"); e != a->second.as_table().end() && e->second.is_string())
      if (const EngineRegistry engines = engine_registry(MPI_COMM_SELF);
          const Engine* engine = engines.find(e->second.as_string().str))
        relative_cost = engine->relative_cost();
  const double orders = static_cast<double>(state_->orders.size());
  return (std::max(steps, 0.0) + 1.0) * orders * relative_cost + 50.0 * orders;
}

}  // namespace rdpdyn

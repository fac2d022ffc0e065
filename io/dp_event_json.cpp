#include "io/dp_event_json.hpp"

#include <cmath>
#include <map>
#include <fstream>
#include <sstream>
#include <vector>

#include "models/size_limits.hpp"
#include "io/config_text.hpp"
#include "numerics/format_number.hpp"
#include "numerics/spec_error.hpp"

namespace rdpdyn {
namespace {

constexpr const char* kModule = "dp_accounting.dp_event";
constexpr const char* kSupported =
    "supported: GaussianDpEvent, PoissonSampledDpEvent of a GaussianDpEvent, SampledWithoutReplacementDpEvent of a "
    "GaussianDpEvent, SelfComposedDpEvent, ComposedDpEvent, NoOpDpEvent";

std::int64_t integer_at(const nlohmann::json& j, const std::string& key, const std::string& where) {
  if (!j.contains(key) || !j.at(key).is_number_integer() || j.at(key).get<std::int64_t>() < 1)
    throw SpecError(where + "." + key, j.contains(key) ? j.at(key).dump() : "missing", "must be an integer >= 1");
  return j.at(key).get<std::int64_t>();
}

double number_at(const nlohmann::json& j, const std::string& key, const std::string& where) {
  if (!j.contains(key) || !j.at(key).is_number())
    throw SpecError(where + "." + key, j.contains(key) ? j.at(key).dump() : "missing", "must be a number");
  return j.at(key).get<double>();
}

void append(std::vector<AccountingPhase>& phases, const AccountingPhase& p) {
  if (p.steps == 0) return;
  if (!phases.empty() && phases.back().sampling_rate == p.sampling_rate &&
      phases.back().noise_multiplier == p.noise_multiplier && phases.back().dataset_size == p.dataset_size &&
      phases.back().sample_size == p.sample_size)
    phases.back().steps += p.steps;
  else
    phases.push_back(p);
  if (static_cast<std::int64_t>(phases.size()) > limits::kMaxPhases)
    throw SpecError("DpEvent", std::to_string(phases.size()) + " phases",
                    "must have <= " + std::to_string(limits::kMaxPhases) + " phases (docs/config.md, Limits)");
}

std::vector<AccountingPhase> phases_of(const nlohmann::json& e, const std::string& where) {
  if (!e.is_object() || !e.contains("class_name") || !e.at("class_name").is_string())
    throw SpecError(where, e.is_object() ? "an object without class_name" : e.dump().substr(0, 60),
                    "must be a DpEvent: an object with class_name (dp_accounting's to_named_tuple() as JSON)");
  const std::string cls = e.at("class_name").get<std::string>();
  std::vector<AccountingPhase> out;
  if (cls == "NoOpDpEvent") return out;
  if (cls == "GaussianDpEvent") {
    const double m = number_at(e, "noise_multiplier", where);
    if (!(m > 0.0) || !std::isfinite(m))
      throw SpecError(where + ".noise_multiplier", format_number(m), "must be a finite number > 0");
    append(out, {1.0, m, 1});
    return out;
  }
  if (cls == "PoissonSampledDpEvent") {
    const double q = number_at(e, "sampling_probability", where);
    if (!(q > 0.0 && q <= 1.0)) throw SpecError(where + ".sampling_probability", format_number(q), "must be in (0, 1]");
    // One sample for the inner event: only a single Gaussian step is a sampled DP-SGD step.
    const std::vector<AccountingPhase> inner = phases_of(e.at("event"), where + ".event");
    const bool one_gaussian = inner.size() == 1 && inner.front().steps == 1 && inner.front().sampling_rate == 1.0;
    if (!one_gaussian || e.at("event").at("class_name") != "GaussianDpEvent")
      throw SpecError(where + ".event.class_name", e.at("event").value("class_name", std::string("?")),
                      "a PoissonSampledDpEvent is read around one GaussianDpEvent (a DP-SGD step)");
    append(out, {q, inner.front().noise_multiplier, 1});
    return out;
  }
  if (cls == "SampledWithoutReplacementDpEvent") {
    // dp_accounting accounts it under REPLACE_ONE only (Wang, Balle & Kasiviswanathan 2019,
    // arXiv:1808.00087): its Gaussian's noise_multiplier is the noise std over the replace-one
    // sensitivity, i.e. half the DP-SGD multiplier m of a clipped sum (models/noise_units.hpp).
    const std::int64_t n = integer_at(e, "source_dataset_size", where);
    const std::int64_t m = integer_at(e, "sample_size", where);
    if (m > n)
      throw SpecError(where + ".sample_size", std::to_string(m),
                      "must be <= source_dataset_size = " + std::to_string(n));
    const std::vector<AccountingPhase> inner = phases_of(e.at("event"), where + ".event");
    const bool one_gaussian = inner.size() == 1 && inner.front().steps == 1 && inner.front().sampling_rate == 1.0;
    if (!one_gaussian || e.at("event").at("class_name") != "GaussianDpEvent")
      throw SpecError(where + ".event.class_name", e.at("event").value("class_name", std::string("?")),
                      "a SampledWithoutReplacementDpEvent is read around one GaussianDpEvent (a DP-SGD step)");
    append(out, {static_cast<double>(m) / static_cast<double>(n), 2.0 * inner.front().noise_multiplier, 1, n, m});
    return out;
  }
  if (cls == "SelfComposedDpEvent") {
    if (!e.contains("count") || !e.at("count").is_number_integer() || e.at("count").get<std::int64_t>() < 0)
      throw SpecError(where + ".count", e.contains("count") ? e.at("count").dump() : "missing",
                      "must be an integer >= 0");
    const std::int64_t count = e.at("count").get<std::int64_t>();
    const std::vector<AccountingPhase> inner = phases_of(e.at("event"), where + ".event");
    if (inner.size() == 1) {
      if (count > limits::kMaxSteps / std::max<std::int64_t>(1, inner.front().steps))
        throw SpecError(where + ".count", std::to_string(count), "gives more than 2^40 steps (docs/config.md, Limits)");
      AccountingPhase p = inner.front();
      p.steps *= count;
      append(out, p);
      return out;
    }
    for (std::int64_t i = 0; i < count; ++i)
      for (const auto& p : inner) append(out, p);
    return out;
  }
  if (cls == "ComposedDpEvent") {
    if (!e.contains("events") || !e.at("events").is_array())
      throw SpecError(where + ".events", "missing", "must be an array of DpEvents");
    for (std::size_t i = 0; i < e.at("events").size(); ++i)
      for (const auto& p : phases_of(e.at("events")[i], where + ".events[" + std::to_string(i) + "]")) append(out, p);
    return out;
  }
  throw SpecError(where + ".class_name", "\"" + cls + "\"", std::string("is not supported; ") + kSupported);
}

}  // namespace

namespace {

/// json.dumps(event.to_named_tuple()) writes each named tuple as an array of its values:
/// [module_name, class_name, field...] in the order of the class's attrs fields (dp_accounting's
/// dp_event.py). The field names of the classes read here, and of the others whose names a message
/// may need; an unknown class keeps its values unnamed (and is refused by its class_name).
const std::map<std::string, std::vector<std::string>>& named_tuple_fields() {
  static const std::map<std::string, std::vector<std::string>> fields = {
      {"NoOpDpEvent", {}},
      {"NonPrivateDpEvent", {}},
      {"UnsupportedDpEvent", {}},
      {"GaussianDpEvent", {"noise_multiplier"}},
      {"LaplaceDpEvent", {"noise_multiplier"}},
      {"SelfComposedDpEvent", {"event", "count"}},
      {"ComposedDpEvent", {"events"}},
      {"PoissonSampledDpEvent", {"sampling_probability", "event"}},
      {"SampledWithReplacementDpEvent", {"source_dataset_size", "sample_size", "event"}},
      {"SampledWithoutReplacementDpEvent", {"source_dataset_size", "sample_size", "event"}}};
  return fields;
}

/// The object form of an event written as named tuples (arrays), recursively; objects pass through.
nlohmann::json event_object(const nlohmann::json& e) {
  if (e.is_object()) {
    nlohmann::json out = nlohmann::json::object();
    for (const auto& [k, v] : e.items()) out[k] = event_object(v);
    return out;
  }
  if (!e.is_array()) return e;
  const bool named_tuple = e.size() >= 2 && e[0].is_string() && e[1].is_string() &&
                           e[0].get<std::string>().find("dp_event") != std::string::npos;
  if (!named_tuple) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& v : e) out.push_back(event_object(v));
    return out;
  }
  nlohmann::json out = {{"module_name", e[0]}, {"class_name", e[1]}};
  const auto it = named_tuple_fields().find(e[1].get<std::string>());
  if (it == named_tuple_fields().end()) return out;  // refused by its class name below
  for (std::size_t i = 0; i < it->second.size() && i + 2 < e.size(); ++i) out[it->second[i]] = event_object(e[i + 2]);
  return out;
}

}  // namespace

AccountingRun accounting_run_from_dp_event(const nlohmann::json& written) {
  // Either form of to_named_tuple() as JSON: its _asdict() (objects) or json.dumps of the tuple itself.
  const nlohmann::json event = event_object(written);
  AccountingRun run;
  run.phases = phases_of(event, "DpEvent");
  if (run.phases.empty()) throw SpecError("DpEvent", "no Gaussian step", "has nothing to account for");
  // Batches without replacement are one run of fixed-size batches under replace-one neighbours: every
  // phase the same dataset, batch size and noise (the other events are add/remove steps).
  const AccountingPhase& first = run.phases.front();
  if (first.without_replacement()) {
    for (const auto& p : run.phases)
      if (p.dataset_size != first.dataset_size || p.sample_size != first.sample_size ||
          p.noise_multiplier != first.noise_multiplier)
        throw SpecError("DpEvent", "sampled-without-replacement events with other steps",
                        "is read only as one run of SampledWithoutReplacementDpEvent steps of one dataset size, "
                        "sample size and noise (replace-one neighbours; the other events are add/remove steps)");
    run.add_remove = false;
  } else {
    for (const auto& p : run.phases)
      if (p.without_replacement())
        throw SpecError("DpEvent", "sampled-without-replacement events with other steps",
                        "is read only as one run of SampledWithoutReplacementDpEvent steps of one dataset size, "
                        "sample size and noise (replace-one neighbours; the other events are add/remove steps)");
  }
  return run;
}

AccountingRun accounting_run_from_opacus_history(const nlohmann::json& history) {
  if (!history.is_array() || history.empty())
    throw SpecError("history", history.dump().substr(0, 60),
                    "must be a non-empty array of [noise_multiplier, sample_rate, steps] (opacus accountant.history)");
  AccountingRun run;
  for (std::size_t i = 0; i < history.size(); ++i) {
    const auto& h = history[i];
    const std::string where = "history[" + std::to_string(i) + "]";
    if (!h.is_array() || h.size() != 3 || !h[0].is_number() || !h[1].is_number() || !h[2].is_number_integer())
      throw SpecError(where, h.dump().substr(0, 60), "must be [noise_multiplier, sample_rate, steps]");
    const double m = h[0].get<double>(), q = h[1].get<double>();
    const auto steps = h[2].get<std::int64_t>();
    if (!(m > 0.0) || !std::isfinite(m))
      throw SpecError(where + "[0]", format_number(m), "must be a finite number > 0");
    if (!(q > 0.0 && q <= 1.0)) throw SpecError(where + "[1]", format_number(q), "must be in (0, 1]");
    if (steps < 0) throw SpecError(where + "[2]", std::to_string(steps), "must be >= 0");
    append(run.phases, {q, m, steps});
  }
  if (run.phases.empty()) throw SpecError("history", "no steps", "has nothing to account for");
  return run;
}

std::string accounting_run_toml(const AccountingRun& run, const std::string& source) {
  std::string orders;
  for (int x = 1; x < 100; ++x) orders += toml_float(1.0 + x / 10.0) + ", ";  // opacus' DEFAULT_ALPHAS
  for (int a = 12; a < 64; ++a) orders += toml_float(a) + (a < 63 ? ", " : "");
  const AccountingPhase& first = run.phases.front();
  if (first.without_replacement()) {
    std::int64_t steps = 0;
    for (const auto& p : run.phases) steps += p.steps;
    return "# The run of " + source +
           ", as rdpdyn reads it (compare --from-dp-event): batches of sample_size drawn without replacement at "
           "every step, replace-one neighbours; noise_multiplier is the DP-SGD multiplier, twice the "
           "GaussianDpEvent's (std over the replace-one sensitivity).\n[orders]\nvalues = [" +
           orders + "]\n\n[algorithm]\nkind = \"noisy-sgd\"\nsampling = \"per-step\"\nn = " +
           std::to_string(first.dataset_size) + "\nbatch_size = " + std::to_string(first.sample_size) +
           "\nnoise_multiplier = " + toml_float(first.noise_multiplier) + "\nsteps = " + std::to_string(steps) +
           "\n\n[domain]\nadjacency = \"replace\"\n\n[report]\ndelta = 1e-5\n";
  }
  std::string text = "# The run of " + source +
                     ", as rdpdyn reads it (compare --from-opacus / --from-dp-event).\n"
                     "[orders]\nvalues = [" +
                     orders +
                     "]\n\n[algorithm]\nkind = \"noisy-sgd\"\nsampling = \"poisson\"\n"
                     "# n is not part of the source: Poisson accounting of add/remove neighbours does not read it.\n"
                     "n = 1000000\nsampling_rate = " +
                     toml_float(first.sampling_rate) + "\nnoise_multiplier = " + toml_float(first.noise_multiplier) +
                     "\n";
  if (run.phases.size() == 1) {
    text += "steps = " + std::to_string(first.steps) + "\n";
  } else {
    for (const auto& p : run.phases)
      text += "\n[[algorithm.schedule]]\nsteps = " + std::to_string(p.steps) +
              "\nsampling_rate = " + toml_float(p.sampling_rate) +
              "\nnoise_multiplier = " + toml_float(p.noise_multiplier) + "\n";
  }
  text += std::string("\n[domain]\nadjacency = \"") + (run.add_remove ? "add-remove" : "replace") +
          "\"\n\n[report]\ndelta = 1e-5\n";
  return text;
}

nlohmann::json dp_event_json(const AccountingRun& run) {
  const auto event = [](const std::string& cls) {
    return nlohmann::json{{"module_name", kModule}, {"class_name", cls}};
  };
  nlohmann::json events = nlohmann::json::array();
  for (const auto& p : run.phases) {
    nlohmann::json step = event("GaussianDpEvent");
    step["noise_multiplier"] = p.without_replacement() ? p.noise_multiplier / 2.0 : p.noise_multiplier;
    if (p.without_replacement()) {
      nlohmann::json sampled = event("SampledWithoutReplacementDpEvent");
      sampled["source_dataset_size"] = p.dataset_size;
      sampled["sample_size"] = p.sample_size;
      sampled["event"] = step;
      step = sampled;
    } else if (p.sampling_rate < 1.0) {
      nlohmann::json sampled = event("PoissonSampledDpEvent");
      sampled["sampling_probability"] = p.sampling_rate;
      sampled["event"] = step;
      step = sampled;
    }
    nlohmann::json composed = event("SelfComposedDpEvent");
    composed["event"] = step;
    composed["count"] = p.steps;
    events.push_back(composed);
  }
  if (events.size() == 1) return events.front();
  nlohmann::json all = event("ComposedDpEvent");
  all["events"] = events;
  return all;
}

nlohmann::json read_json_file(const std::string& path, const std::string& option) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw SpecError(option, "\"" + path + "\"", "cannot be opened for reading");
  std::ostringstream text;
  text << in.rdbuf();
  try {
    return nlohmann::json::parse(text.str());
  } catch (const nlohmann::json::exception& e) {
    throw SpecError(option, "\"" + path + "\"", std::string("is not valid JSON: ") + e.what());
  }
}

}  // namespace rdpdyn

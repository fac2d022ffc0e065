// The compiled half of the Python package `rdpdyn` (python/rdpdyn/__init__.py wraps it; README,
// "From Python"): the commands of the command line called in process. Each function reads its
// Python arguments, releases the GIL while the C++ code of commands/ computes, and returns plain
// dicts whose arrays are numpy arrays owning the C++ vectors (no copy). SpecError becomes
// rdpdyn.ConfigError with the key, value and rule of the command line's message.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "io/dp_event_json.hpp"
#include "commands/calibrate.hpp"
#include "commands/compare.hpp"
#include "commands/solve.hpp"
#include "commands/sweep.hpp"
#include "io/comparison_output.hpp"
#include "io/sweep_config.hpp"
#include "numerics/spec_error.hpp"
#include "python/config_source.hpp"
#include "python/dpsgd_accounting.hpp"
#include "python/solve_records.hpp"
#include "rdpdyn_version.hpp"
#include "solver/engine_registry.hpp"
#include "solver/petsc_session.hpp"

namespace py = pybind11;
using namespace rdpdyn;

namespace {

/// A numpy array that owns `values` (moved to the heap, freed with the array): no copy.
template <class T>
py::array_t<T> numpy(std::vector<T>&& values, std::vector<py::ssize_t> shape) {
  auto* heap = new std::vector<T>(std::move(values));
  py::capsule owner(heap, [](void* p) { delete static_cast<std::vector<T>*>(p); });
  return py::array_t<T>(shape, heap->data(), owner);
}
template <class T>
py::array_t<T> numpy(std::vector<T>&& values) {
  const auto n = static_cast<py::ssize_t>(values.size());
  return numpy(std::move(values), {n});
}

/// PETSc (and MPI) start only when a run needs the finite-difference engine, once per process;
/// finalised at exit.
PetscSession& petsc() {
  static PetscSession session("rdpdyn-python", {});
  return session;
}

EngineRegistry engines_of(const RunConfig& config) { return engines_for(config.engine, petsc()); }

py::object number_or_none(double x) { return std::isnan(x) ? py::object(py::none()) : py::object(py::float_(x)); }

/// The terms a run's numbers are for (commands/run_terms.hpp), as the JSON writes them; None for a
/// "pdi" run.
py::object terms_dict(const RunTerms& t) {
  if (t.adjacency.empty()) return py::none();
  py::dict d;
  d["adjacency"] = t.adjacency;
  d["adjacency_default"] = t.adjacency_by_default;
  d["sampling"] = t.sampling;
  d["records_per_user"] = t.records_per_user;
  d["records_per_user_default"] = t.records_per_user_by_default;
  d["line"] = run_terms_line(t);
  d["ecosystem_hint"] = t.ecosystem_hint.empty() ? py::object(py::none()) : py::object(py::str(t.ecosystem_hint));
  return d;
}

py::dict solve(const py::object& config, const py::dict& overrides) {
  const python::ConfigSource source = python::config_source(config, overrides);
  python::SolveRecords records;
  RunReport report;
  RunConfig run;
  {
    py::gil_scoped_release release;
    run = python::run_config(source);
    report = solve_run(run, engines_of(run), &records);
  }
  const auto n_records = static_cast<py::ssize_t>(records.steps.size());
  const auto n_orders = static_cast<py::ssize_t>(records.orders.size());
  py::dict out;
  out["orders"] = numpy(std::move(records.orders));
  out["steps"] = numpy(std::move(records.steps));
  out["t"] = numpy(std::move(records.times));
  out["lsi_constant"] = numpy(std::move(records.lsi_constant));
  out["R"] = numpy(std::move(records.R), {n_records, n_orders});
  py::dict closed_forms, roles, citations;
  for (std::size_t i = 0; i < records.closed_form_labels.size(); ++i) {
    const auto& label = records.closed_form_labels[i];
    closed_forms[py::str(label.name)] = numpy(std::move(records.closed_forms[i]), {n_records, n_orders});
    roles[py::str(label.name)] = label.role;
    citations[py::str(label.name)] = label.citation;
  }
  out["closed_forms"] = closed_forms;
  out["closed_form_roles"] = roles;
  out["closed_form_citations"] = citations;
  py::dict extras;
  for (std::size_t i = 0; i < records.row_series_specs.size(); ++i)
    extras[py::str(records.row_series_specs[i].name)] = numpy(std::move(records.row_series[i]), {n_records, n_orders});
  for (auto& v : report.per_order) extras[py::str(v.name)] = numpy(std::move(v.values));
  out["extras"] = extras;
  // [report] delta: epsilon at the final time, as `solve --json` prints it.
  const auto& a = report.extra_attributes;
  out["delta"] = a.count("delta") ? py::object(py::float_(std::stod(a.at("delta")))) : py::object(py::none());
  out["epsilon"] = a.count("epsilon") ? py::object(py::float_(std::stod(a.at("epsilon")))) : py::object(py::none());
  out["best_order"] =
      a.count("best_order") ? py::object(py::float_(std::stod(a.at("best_order")))) : py::object(py::none());
  out["conversion"] = a.count("conversion") ? py::object(py::str(a.at("conversion"))) : py::object(py::none());
  // [report] epsilon: delta there at the final time, as `solve --json` prints it.
  const auto number_of = [&](const char* key) {
    return a.count(key) ? number_or_none(std::stod(a.at(key))) : py::object(py::none());
  };
  out["report_epsilon"] = number_of("report_epsilon");
  out["delta_at_epsilon"] = number_of("delta_at_epsilon");
  out["delta_at_epsilon_order"] = number_of("delta_at_epsilon_order");
  const RunMetadata& m = report.metadata;
  py::dict meta;
  meta["version"] = m.program_version;
  meta["engine"] = m.engine;
  meta["gamma_mode"] = m.gamma_mode;
  meta["algorithm"] = m.algorithm;
  meta["lsi_model"] = m.lsi_model;
  meta["initial_curve"] = m.initial_curve;
  meta["method"] = m.method;
  meta["config_text"] = m.config_text;
  meta["config_path"] = m.config_path;
  meta["declared_constants"] = m.declared_constants;
  meta["derived_constants"] = m.derived_constants;
  meta["terms"] = terms_dict(m.terms);
  meta["quantity"] = m.quantity.empty() ? py::object(py::none()) : py::object(py::str(m.quantity));
  meta["attributes"] = report.extra_attributes;
  meta["units"] = py::dict(py::arg("R") = kUnitsRdp, py::arg("t") = kUnitsTime, py::arg("orders") = kUnitsOrder);
  out["metadata"] = meta;
  return out;
}

py::dict compare(const py::object& config, const py::dict& overrides) {
  const python::ConfigSource source = python::config_source(config, overrides);
  Comparison c;
  {
    py::gil_scoped_release release;
    const RunConfig run = python::run_config(source);
    c = run_comparison(run, engines_of(run));
  }
  py::list analyses;
  for (auto& e : c.entries) {
    py::dict d;
    d["name"] = e.result.name;
    d["status"] = status_name(e.status);
    d["status_note"] = e.status_note;
    d["applies"] = e.result.applies;
    d["reason"] = e.result.reason;
    d["citation"] = e.result.citation;
    d["R"] = e.result.applies ? py::object(numpy(std::move(e.result.R))) : py::object(py::none());
    d["epsilon"] = number_or_none(e.epsilon);
    // Gaussian-DP entries: their mu (epsilon is then the exact mu-GDP profile, no order).
    d["mu"] = e.result.mu ? py::object(py::float_(*e.result.mu)) : py::object(py::none());
    d["best_order"] = number_or_none(e.best_order);
    d["epsilon_recorded_orders"] = number_or_none(e.epsilon_recorded_orders);
    d["best_recorded_order"] = number_or_none(e.best_recorded_order);
    d["epsilon_orders"] = e.epsilon_orders;
    // The conversion attaining epsilon (an RDP one, "gdp", pdi's "gdp-mixture", "pld"); None without delta.
    d["conversion"] = e.conversion.empty() ? py::object(py::none()) : py::object(py::str(e.conversion));
    d["delta_at_epsilon"] = number_or_none(e.delta_at_epsilon);
    // The PLD entries' privacy profile and trade-off curve, as the JSON's "profile" and "tradeoff".
    if (e.curves) {
      py::dict profile, tradeoff;
      profile["epsilon"] = numpy(std::move(e.curves->epsilon));
      profile["delta"] = numpy(std::move(e.curves->delta));
      profile["units"] = py::dict(py::arg("epsilon") = kUnitsProfileEpsilon, py::arg("delta") = kUnitsProbability);
      profile["meaning"] = kProfileMeaning;
      tradeoff["alpha"] = numpy(std::move(e.curves->alpha));
      tradeoff["beta"] = numpy(std::move(e.curves->beta));
      tradeoff["meaning"] = kTradeoffMeaning;
      d["profile"] = profile;
      d["tradeoff"] = tradeoff;
    } else {
      d["profile"] = py::none();
      d["tradeoff"] = py::none();
    }
    analyses.append(d);
  }
  py::dict out;
  out["orders"] = numpy(std::move(c.orders));
  out["delta"] = c.delta ? py::object(py::float_(*c.delta)) : py::object(py::none());
  out["epsilon"] = c.epsilon ? py::object(py::float_(*c.epsilon)) : py::object(py::none());
  out["analyses"] = analyses;
  out["include_disputed"] = c.include_disputed;
  py::dict best;
  best["name"] = c.best_name.empty() ? py::object(py::none()) : py::object(py::str(c.best_name));
  best["status"] = c.best_name.empty() ? py::object(py::none()) : py::object(py::str(status_name(c.best_status)));
  best["R"] = numpy(std::move(c.best_R));
  best["epsilon"] = number_or_none(c.best_epsilon);
  best["mu"] = c.best_mu ? py::object(py::float_(*c.best_mu)) : py::object(py::none());
  best["best_order"] = number_or_none(c.best_order);
  best["conversion"] = c.best_conversion.empty() ? py::object(py::none()) : py::object(py::str(c.best_conversion));
  best["delta_at_epsilon"] = number_or_none(c.best_delta);
  best["delta_at_epsilon_analysis"] =
      c.best_delta_name.empty() ? py::object(py::none()) : py::object(py::str(c.best_delta_name));
  out["best"] = best;
  out["amplification_warning"] =
      c.amplification_warning.empty() ? py::object(py::none()) : py::object(py::str(c.amplification_warning));
  out["exact_R"] = c.exact_R.empty() ? py::object(py::none()) : py::object(numpy(std::move(c.exact_R)));
  out["declared_constants"] = c.constants.declared;
  out["derived_constants"] = c.constants.derived;
  out["terms"] = terms_dict(c.terms);
  return out;
}

py::dict calibrate(const py::object& config, const py::dict& overrides, double epsilon, double delta,
                   const std::string& target, const std::string& analysis, std::optional<std::int64_t> max_steps) {
  const python::ConfigSource source = python::config_source(config, overrides);
  CalibrationRequest request;
  request.epsilon = epsilon;
  request.delta = delta;
  request.analysis = analysis;
  if (max_steps) request.max_steps = *max_steps;
  if (target == "sigma")
    request.target = CalibrationTarget::Sigma;
  else if (target == "noise_multiplier")
    request.target = CalibrationTarget::NoiseMultiplier;
  else if (target == "steps")
    request.target = CalibrationTarget::Steps;
  else if (!target.empty())  // empty: the configuration's noise key, once it is read (below)
    throw SpecError("for_", "\"" + target + "\"", "must be sigma, noise_multiplier or steps");
  CalibrationOutcome o;
  try {
    py::gil_scoped_release release;
    const RunConfig run = python::run_config(source);
    if (target.empty()) request.target = default_calibration_target(run);
    o = calibrate_run(run, request, engines_of(run));
  } catch (const SpecError& e) {  // the command line's options are this function's arguments
    static const std::map<std::string, std::string> argument = {{"--epsilon", "epsilon"},
                                                                {"--delta", "delta"},
                                                                {"--for", "for_"},
                                                                {"--analysis", "analysis"},
                                                                {"--max-steps", "max_steps"}};
    const auto it = argument.find(e.key());
    if (it == argument.end()) throw;
    throw SpecError(it->second, e.value(), e.rule());
  }
  py::dict out;
  out["target"] = request.target == CalibrationTarget::Steps             ? "steps"
                  : request.target == CalibrationTarget::NoiseMultiplier ? "noise_multiplier"
                                                                         : "sigma";
  out["epsilon_target"] = o.target_epsilon;
  out["delta"] = o.target_delta;
  out["analysis"] = o.analysis_used;
  out["tightest"] = o.tightest.empty() ? py::object(py::none()) : py::object(py::str(o.tightest));
  out["sigma"] = o.sigma > 0.0 ? py::object(py::float_(o.sigma)) : py::object(py::none());
  out["sigma_at"] = o.sigma_at ? py::object(py::float_(*o.sigma_at)) : py::object(py::none());
  out["noise_multiplier"] = o.noise_multiplier ? py::object(py::float_(*o.noise_multiplier)) : py::object(py::none());
  out["steps"] = o.steps;
  out["epsilon"] = o.epsilon;
  out["best_order"] = o.best_order;
  out["conversion"] = o.conversion;
  out["evaluations"] = o.evaluations;
  out["include_disputed"] = o.include_disputed;
  out["not_monotone_in_steps"] = o.not_monotone_in_steps;
  out["amplification_warning"] =
      o.amplification_warning.empty() ? py::object(py::none()) : py::object(py::str(o.amplification_warning));
  out["terms"] = terms_dict(o.terms);
  return out;
}

py::dict sweep(const py::object& config, const py::dict& overrides) {
  const python::ConfigSource source = python::config_source(config, overrides);
  std::optional<SweepConfiguration> sweep;
  SweepResult result;
  {
    py::gil_scoped_release release;
    sweep.emplace(python::sweep_configuration(source));
    const SweepSpec& spec = sweep->spec();
    // As `rdpdyn sweep` on one process: every point, each engine on MPI_COMM_SELF.
    const EngineRegistry engines = engine_registry(MPI_COMM_SELF);
    const PointConfiguration configure = [&](std::span<const double> values) {
      RunConfig c = sweep->point(values);
      start_backend_of(c.engine, petsc());
      return c;
    };
    std::vector<std::size_t> points(spec.point_count());
    for (std::size_t p = 0; p < points.size(); ++p) points[p] = p;
    result = run_sweep(spec, sweep->orders(), configure, engines, points);
    if (result.valid_points() == 0)
      throw SpecError("sweep.axis", "every point",
                      "no point of the sweep is valid; the first says: " + result.first_invalid());
  }
  std::vector<py::ssize_t> shape;
  py::list axes;
  for (const auto& axis : result.spec.axes) {
    shape.push_back(static_cast<py::ssize_t>(axis.values.size()));
    py::dict d;
    d["key"] = axis.key;
    d["values"] = numpy(std::vector<double>(axis.values));
    d["integer"] = axis.integer;
    d["description"] = axis.description;
    axes.append(d);
  }
  std::vector<py::ssize_t> shape_orders = shape;
  shape_orders.push_back(static_cast<py::ssize_t>(result.orders.size()));
  py::dict surfaces;
  for (auto& s : result.surfaces) {
    py::dict d;
    d["citation"] = s.citation;
    d["status"] = s.status;
    d["status_note"] = s.status_note;
    d["R"] = numpy(std::move(s.R), shape_orders);
    d["epsilon"] = numpy(std::move(s.epsilon), shape);
    d["best_order"] = numpy(std::move(s.best_order), shape);
    d["conversion"] = s.conversion;
    d["reason"] = s.reason;
    d["chosen"] = s.chosen;
    surfaces[py::str(s.name)] = d;
  }
  py::dict out;
  out["axes"] = axes;
  out["shape"] = shape;
  out["orders"] = numpy(std::move(result.orders));
  out["delta"] = numpy(std::move(result.delta), shape);
  out["invalid"] = result.invalid;
  out["surfaces"] = surfaces;
  out["config_text"] = sweep->text();
  out["version"] = kVersion;
  return out;
}

py::tuple dpsgd_epsilon(double q, double z, std::int64_t steps, double delta,
                        std::optional<std::vector<double>> orders) {
  EpsilonAtOrder e{};
  {
    py::gil_scoped_release release;
    e = python::dpsgd_epsilon(q, z, steps, delta, orders ? *orders : python::library_default_orders());
  }
  return py::make_tuple(e.epsilon, e.order);
}

py::tuple dpsgd_noise_multiplier(double q, std::int64_t steps, double epsilon, double delta,
                                 std::optional<std::vector<double>> orders) {
  python::NoiseMultiplier m{};
  {
    py::gil_scoped_release release;
    m = python::dpsgd_noise_multiplier(q, steps, epsilon, delta, orders ? *orders : python::library_default_orders());
  }
  return py::make_tuple(m.noise_multiplier, m.achieved.epsilon, m.achieved.order);
}

python::DpsgdAdjacency dpsgd_adjacency(const std::string& name) {
  if (name == "add-remove") return python::DpsgdAdjacency::AddRemove;
  if (name == "replace") return python::DpsgdAdjacency::Replace;
  throw SpecError("adjacency", "\"" + name + "\"",
                  "must be \"add-remove\" (a record added or removed) or \"replace\" (one replaced; clipped "
                  "gradients)");
}

double dpsgd_pld_epsilon(double q, double z, std::int64_t steps, double delta, const std::string& adjacency) {
  const python::DpsgdAdjacency a = dpsgd_adjacency(adjacency);
  py::gil_scoped_release release;
  return python::dpsgd_pld_epsilon(q, z, steps, delta, a);
}

double dpsgd_pld_delta(double q, double z, std::int64_t steps, double epsilon, const std::string& adjacency) {
  const python::DpsgdAdjacency a = dpsgd_adjacency(adjacency);
  py::gil_scoped_release release;
  return python::dpsgd_pld_delta(q, z, steps, epsilon, a);
}

py::tuple dpsgd_pld_noise_multiplier(double q, std::int64_t steps, double epsilon, double delta,
                                     const std::string& adjacency) {
  const python::DpsgdAdjacency a = dpsgd_adjacency(adjacency);
  python::NoiseMultiplier m{};
  {
    py::gil_scoped_release release;
    m = python::dpsgd_pld_noise_multiplier(q, steps, epsilon, delta, a);
  }
  return py::make_tuple(m.noise_multiplier, m.achieved.epsilon);
}

/// SpecError -> rdpdyn.ConfigError(message, key, value, rule); the other errors the command line
/// reports as bad input (exit 2) -> ConfigError without a key.
void translate_errors(std::exception_ptr p) {
  const auto raise = [](const std::string& message, py::object key, py::object value, py::object rule) {
    const py::object cls = py::module_::import("rdpdyn").attr("ConfigError");
    const py::object error = cls(message, key, value, rule);
    PyErr_SetObject(cls.ptr(), error.ptr());
  };
  try {
    if (p) std::rethrow_exception(p);
  } catch (const SpecError& e) {
    raise(e.what(), py::str(e.key()), py::str(e.value()), py::str(e.rule()));
  } catch (const std::domain_error& e) {  // a user function left its domain
    raise(e.what(), py::none(), py::none(), py::str(e.what()));
  }
}

}  // namespace

PYBIND11_MODULE(_rdpdyn, m) {
  m.doc() = "rdpdyn's commands in process (use the package rdpdyn, not this module)";
  m.attr("__version__") = kVersion;
  py::register_exception_translator(&translate_errors);
  m.def("solve", &solve, py::arg("config"), py::arg("overrides"));
  m.def("compare", &compare, py::arg("config"), py::arg("overrides"));
  m.def("calibrate", &calibrate, py::arg("config"), py::arg("overrides"), py::arg("epsilon"), py::arg("delta"),
        py::arg("target"), py::arg("analysis"), py::arg("max_steps"));
  m.def("sweep", &sweep, py::arg("config"), py::arg("overrides"));
  m.def("dpsgd_epsilon", &dpsgd_epsilon, py::arg("sampling_rate"), py::arg("noise_multiplier"), py::arg("steps"),
        py::arg("delta"), py::arg("orders"));
  m.def("dpsgd_noise_multiplier", &dpsgd_noise_multiplier, py::arg("sampling_rate"), py::arg("steps"),
        py::arg("epsilon"), py::arg("delta"), py::arg("orders"));
  m.def("dpsgd_pld_epsilon", &dpsgd_pld_epsilon, py::arg("sampling_rate"), py::arg("noise_multiplier"),
        py::arg("steps"), py::arg("delta"), py::arg("adjacency"));
  m.def("dpsgd_pld_delta", &dpsgd_pld_delta, py::arg("sampling_rate"), py::arg("noise_multiplier"), py::arg("steps"),
        py::arg("epsilon"), py::arg("adjacency"));
  m.def("dpsgd_pld_noise_multiplier", &dpsgd_pld_noise_multiplier, py::arg("sampling_rate"), py::arg("steps"),
        py::arg("epsilon"), py::arg("delta"), py::arg("adjacency"));
  m.def("default_orders", &python::library_default_orders);
  m.def("analyses_json", &analysis_registry_json);
  // The configuration text of an opacus history or a DpEvent given as JSON (io/dp_event_json.hpp).
  m.def(
      "accounting_run_toml",
      [](const std::string& kind, const std::string& json_text) {
        nlohmann::json doc;
        try {
          doc = nlohmann::json::parse(json_text);
        } catch (const nlohmann::json::exception& e) {
          throw SpecError(kind, "(JSON)", std::string("is not valid JSON: ") + e.what());
        }
        const bool opacus = kind == "opacus_history";
        return accounting_run_toml(opacus ? accounting_run_from_opacus_history(doc) : accounting_run_from_dp_event(doc),
                                   opacus ? "an opacus history (Python)" : "a DpEvent (Python)");
      },
      py::arg("kind"), py::arg("json_text"));
}

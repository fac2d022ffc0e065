#include "python/config_source.hpp"

#include "io/config.hpp"
#include "io/config_text.hpp"
#include "numerics/spec_error.hpp"

namespace py = pybind11;

namespace rdpdyn::python {

ConfigValue config_value(const py::handle& value, const std::string& key) {
  if (py::isinstance<py::bool_>(value)) return {value.cast<bool>()};
  if (py::isinstance<py::str>(value)) return {value.cast<std::string>()};
  if (py::isinstance<py::float_>(value)) return {value.cast<double>()};
  if (py::isinstance<py::int_>(value) || (py::hasattr(value, "__index__") && !py::hasattr(value, "tolist"))) {
    const py::int_ integer(py::reinterpret_borrow<py::object>(value));
    try {
      return {integer.cast<std::int64_t>()};
    } catch (const py::cast_error&) {
      const std::string text = py::repr(integer).cast<std::string>();
      throw SpecError(key, text, "must fit a 64-bit integer (TOML's integers)");
    }
  }
  if (py::hasattr(value, "tolist") && !py::isinstance<py::list>(value))  // numpy arrays and scalars
    return config_value(value.attr("tolist")(), key);
  if (py::isinstance<py::dict>(value)) {
    ConfigTable table;
    for (const auto& [k, v] : value.cast<py::dict>()) {
      const std::string name = py::str(k).cast<std::string>();
      table.push_back({name, config_value(v, key.empty() ? name : key + "." + name)});
    }
    return {std::move(table)};
  }
  if (py::isinstance<py::list>(value) || py::isinstance<py::tuple>(value)) {
    ConfigList list;
    for (const auto& v : value) list.push_back(config_value(v, key + "[" + std::to_string(list.size()) + "]"));
    return {std::move(list)};
  }
  throw SpecError(key, py::repr(value).cast<std::string>(),
                  "must be a bool, number, string, list or dict (a TOML value)");
}

ConfigSource config_source(const py::handle& config, const py::dict& overrides) {
  ConfigSource source;
  if (py::isinstance<py::dict>(config)) {
    source.text = toml_document(std::get<ConfigTable>(config_value(config, "").value));
    source.source_name = "<dict>";
  } else if (py::isinstance<py::str>(config)) {
    const std::string s = config.cast<std::string>();
    if (s.find('\n') != std::string::npos || s.find('=') != std::string::npos) {
      source.text = s;
      source.source_name = "<string>";
    } else {
      source.path = s;
    }
  } else if (py::hasattr(config, "__fspath__")) {
    source.path = py::str(config.attr("__fspath__")()).cast<std::string>();
  } else {
    throw py::type_error("config must be a path, TOML text or a dict, not " +
                         py::str(py::type::of(config).attr("__name__")).cast<std::string>());
  }
  for (const auto& [k, v] : overrides) {
    const std::string key = py::str(k).cast<std::string>();
    source.overrides.push_back(key + "=" + toml_literal(config_value(v, key)));
  }
  return source;
}

RunConfig run_config(const ConfigSource& source) {
  return source.path ? load_config(*source.path, source.overrides)
                     : parse_config_text(source.text, source.source_name, source.overrides);
}

SweepConfiguration sweep_configuration(const ConfigSource& source) {
  return source.path ? SweepConfiguration::load(*source.path, source.overrides)
                     : SweepConfiguration::parse(source.text, source.source_name, source.overrides);
}

}  // namespace rdpdyn::python

#include "python/config_source.hpp"

#include <cctype>
#include <cstdio>

#include "io/config.hpp"
#include "numerics/spec_error.hpp"
#include "numerics/format_number.hpp"

namespace py = pybind11;

namespace rdpdyn::python {
namespace {

/// TOML basic string: quotes, backslashes and control characters escaped (TOML 1.0, "String").
std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (const unsigned char c : s) {
    if (c == '"' || c == '\\')
      out += '\\', out += static_cast<char>(c);
    else if (c == '\n')
      out += "\\n";
    else if (c == '\t')
      out += "\\t";
    else if (c < 0x20 || c == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else
      out += static_cast<char>(c);
  }
  return out + "\"";
}

/// A bare key when TOML allows one (A-Za-z0-9_-), else quoted.
std::string key_text(const std::string& k) {
  bool bare = !k.empty();
  for (const unsigned char c : k) bare = bare && (std::isalnum(c) || c == '_' || c == '-');
  return bare ? k : quoted(k);
}

std::string float_text(double x) {
  std::string s = format_number(x);  // shortest round trip; "inf", "nan" are TOML too
  if (s.find_first_of(".eEni") == std::string::npos) s += ".0";
  return s;
}

}  // namespace

std::string toml_literal(const py::handle& value, const std::string& key) {
  if (py::isinstance<py::bool_>(value)) return value.cast<bool>() ? "true" : "false";
  if (py::isinstance<py::str>(value)) return quoted(value.cast<std::string>());
  if (py::isinstance<py::float_>(value)) return float_text(value.cast<double>());
  if (py::isinstance<py::int_>(value) || (py::hasattr(value, "__index__") && !py::hasattr(value, "tolist")))
    return py::str(py::int_(py::reinterpret_borrow<py::object>(value))).cast<std::string>();
  if (py::hasattr(value, "tolist") && !py::isinstance<py::list>(value)) {  // numpy arrays and scalars
    const py::object plain = value.attr("tolist")();
    return toml_literal(plain, key);
  }
  if (py::isinstance<py::dict>(value)) {
    std::string out = "{";
    for (const auto& [k, v] : value.cast<py::dict>()) {
      const std::string name = py::str(k).cast<std::string>();
      out += (out.size() > 1 ? ", " : "") + key_text(name) + " = " + toml_literal(v, key + "." + name);
    }
    return out + "}";
  }
  if (py::isinstance<py::list>(value) || py::isinstance<py::tuple>(value)) {
    std::string out = "[";
    std::size_t i = 0;
    for (const auto& v : value) out += (i ? ", " : "") + toml_literal(v, key + "[" + std::to_string(i) + "]"), ++i;
    return out + "]";
  }
  throw SpecError(key, py::repr(value).cast<std::string>(),
                  "must be a bool, number, string, list or dict (a TOML value)");
}

std::string toml_document(const py::dict& tables) {
  std::string top, sections;
  for (const auto& [k, v] : tables) {
    const std::string name = py::str(k).cast<std::string>();
    if (!py::isinstance<py::dict>(v)) {  // top-level values come before the first table
      top += key_text(name) + " = " + toml_literal(v, name) + "\n";
      continue;
    }
    sections += "\n[" + key_text(name) + "]\n";
    for (const auto& [k2, v2] : v.cast<py::dict>()) {
      const std::string inner = py::str(k2).cast<std::string>();
      sections += key_text(inner) + " = " + toml_literal(v2, name + "." + inner) + "\n";
    }
  }
  return top + sections;
}

ConfigSource config_source(const py::handle& config, const py::dict& overrides) {
  ConfigSource source;
  if (py::isinstance<py::dict>(config)) {
    source.text = toml_document(config.cast<py::dict>());
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
    source.overrides.push_back(key + "=" + toml_literal(v, key));
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

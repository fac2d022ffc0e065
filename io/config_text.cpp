#include "io/config_text.hpp"

#include <cctype>
#include <cstdio>

#include "numerics/format_number.hpp"

namespace rdpdyn {
namespace {

/// A TOML basic string (TOML 1.0, "String"): quotes and backslashes escaped, newline and tab by
/// their short escapes, other control characters as \uXXXX.
std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (const unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c < 0x20 || c == 0x7f) {
      char escape[8];
      std::snprintf(escape, sizeof escape, "\\u%04x", static_cast<unsigned>(c));
      out += escape;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

struct LiteralOf {
  std::string operator()(bool b) const { return b ? "true" : "false"; }
  std::string operator()(std::int64_t i) const { return std::to_string(i); }
  std::string operator()(double x) const { return toml_float(x); }
  std::string operator()(const std::string& s) const { return quoted(s); }
  std::string operator()(const ConfigList& list) const {
    std::string out = "[";
    for (std::size_t i = 0; i < list.size(); ++i) out += (i ? ", " : "") + toml_literal(list[i]);
    return out + "]";
  }
  std::string operator()(const ConfigTable& table) const {
    std::string out = "{";
    for (std::size_t i = 0; i < table.size(); ++i)
      out += (i ? ", " : "") + toml_key(table[i].first) + " = " + toml_literal(table[i].second);
    return out + "}";
  }
  std::string operator()(const VerbatimToml& v) const { return v.text; }
};

}  // namespace

std::string toml_float(double x) {
  std::string text = format_number(x);
  if (text.find_first_of(".eEni") == std::string::npos) text += ".0";
  return text;
}

std::string toml_key(const std::string& key) {
  bool bare = !key.empty();
  for (const unsigned char c : key) bare = bare && (std::isalnum(c) || c == '_' || c == '-');
  return bare ? key : quoted(key);
}

std::string toml_literal(const ConfigValue& value) { return std::visit(LiteralOf{}, value.value); }

std::string toml_document(const ConfigTable& document) {
  std::string top, sections;
  for (const auto& [key, value] : document) {
    const auto* table = std::get_if<ConfigTable>(&value.value);
    if (table == nullptr) {
      top += toml_key(key) + " = " + toml_literal(value) + "\n";
      continue;
    }
    sections += (top.empty() && sections.empty() ? "[" : "\n[") + toml_key(key) + "]\n";
    for (const auto& [inner, v] : *table) sections += toml_key(inner) + " = " + toml_literal(v) + "\n";
  }
  return top + sections;
}

}  // namespace rdpdyn

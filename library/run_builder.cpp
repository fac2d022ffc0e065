#include "library/run_builder.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>

#include "io/config.hpp"
#include "numerics/spec_error.hpp"
#include "numerics/format_number.hpp"

namespace rdpdyn {
namespace {

/// A double as a TOML float that reads back to the same double: format_number's shortest text,
/// with ".0" where it would read as an integer ("10" -> "10.0"); inf and nan are TOML words too.
std::string float_literal(double x) {
  std::string text = format_number(x);
  if (text.find_first_of(".eEni") == std::string::npos) text += ".0";
  return text;
}

/// A TOML basic string: quotes, backslashes and control characters escaped.
std::string string_literal(const std::string& s) {
  std::string out = "\"";
  for (const char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      char escape[8];
      std::snprintf(escape, sizeof escape, "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(c)));
      out += escape;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

}  // namespace

RunBuilder& RunBuilder::set(const std::string& key, double value) { return set_toml(key, float_literal(value)); }
RunBuilder& RunBuilder::set(const std::string& key, std::int64_t value) { return set_toml(key, std::to_string(value)); }
RunBuilder& RunBuilder::set(const std::string& key, bool value) { return set_toml(key, value ? "true" : "false"); }
RunBuilder& RunBuilder::set(const std::string& key, const std::string& value) {
  return set_toml(key, string_literal(value));
}

RunBuilder& RunBuilder::set(const std::string& key, const std::vector<double>& values) {
  std::string list = "[";
  for (std::size_t i = 0; i < values.size(); ++i) list += (i ? ", " : "") + float_literal(values[i]);
  return set_toml(key, list + "]");
}

RunBuilder& RunBuilder::set_toml(const std::string& key, const std::string& toml_value) {
  // The loader knows no top-level values: every key lives in a table (docs/config.md).
  // Bare TOML keys only, so that the rendered line is KEY = VALUE as written (an array element
  // such as algorithm.schedule[0] is set as the whole array).
  const auto dot = key.find('.');
  const bool bare = std::all_of(key.begin(), key.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
  });
  if (!bare || dot == std::string::npos || dot == 0 || dot + 1 == key.size() || key.find("..") != std::string::npos ||
      key.back() == '.')
    throw SpecError(key, toml_value, "must be TABLE.KEY of bare keys, e.g. algorithm.sigma (docs/config.md)");
  Entry entry{key.substr(0, dot), key.substr(dot + 1), toml_value};
  const auto same = std::find_if(entries_.begin(), entries_.end(),
                                 [&](const Entry& e) { return e.table == entry.table && e.key == entry.key; });
  if (same != entries_.end())
    same->value = std::move(entry.value);
  else
    entries_.push_back(std::move(entry));
  return *this;
}

std::string RunBuilder::toml() const {
  std::vector<std::string> tables;
  for (const auto& e : entries_)
    if (std::find(tables.begin(), tables.end(), e.table) == tables.end()) tables.push_back(e.table);
  std::string text;
  for (const auto& table : tables) {
    text += (text.empty() ? "[" : "\n[") + table + "]\n";
    for (const auto& e : entries_)
      if (e.table == table) text += e.key + " = " + e.value + "\n";
  }
  return text;
}

RunConfig RunBuilder::build(const std::string& source_name) const { return parse_config_text(toml(), source_name); }

}  // namespace rdpdyn

#include "library/run_builder.hpp"

#include <algorithm>
#include <cctype>
#include <iterator>

#include "io/config.hpp"
#include "io/config_text.hpp"
#include "numerics/spec_error.hpp"

namespace rdpdyn {

RunBuilder& RunBuilder::set(const std::string& key, double value) { return put(key, {value}); }
RunBuilder& RunBuilder::set(const std::string& key, std::int64_t value) { return put(key, {value}); }
RunBuilder& RunBuilder::set(const std::string& key, bool value) { return put(key, {value}); }
RunBuilder& RunBuilder::set(const std::string& key, const std::string& value) { return put(key, {value}); }

RunBuilder& RunBuilder::set(const std::string& key, const std::vector<double>& values) {
  ConfigList list;
  for (const double x : values) list.push_back({x});
  return put(key, {std::move(list)});
}

RunBuilder& RunBuilder::set_toml(const std::string& key, const std::string& toml_value) {
  return put(key, {VerbatimToml{toml_value}});
}

RunBuilder& RunBuilder::put(const std::string& key, ConfigValue value) {
  // The loader knows no top-level values: every key lives in a table (docs/config.md).
  // Bare TOML keys only, so that the rendered line is KEY = VALUE as written (an array element
  // such as algorithm.schedule[0] is set as the whole array).
  const auto dot = key.find('.');
  const bool bare = std::all_of(key.begin(), key.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
  });
  if (!bare || dot == std::string::npos || dot == 0 || dot + 1 == key.size() || key.find("..") != std::string::npos ||
      key.back() == '.')
    throw SpecError(key, toml_literal(value), "must be TABLE.KEY of bare keys, e.g. algorithm.sigma (docs/config.md)");
  const std::string table = key.substr(0, dot), inner = key.substr(dot + 1);
  auto section = std::find_if(document_.begin(), document_.end(), [&](const auto& e) { return e.first == table; });
  if (section == document_.end()) {
    document_.push_back({table, ConfigValue{ConfigTable{}}});
    section = std::prev(document_.end());
  }
  // TABLE.A.B: B in the table A within TABLE (TOML's dotted keys), rendered inline
  ConfigTable* entries = &std::get<ConfigTable>(section->second.value);
  std::string rest = inner;
  for (auto next = rest.find('.'); next != std::string::npos; next = rest.find('.')) {
    const std::string part = rest.substr(0, next);
    rest = rest.substr(next + 1);
    auto it = std::find_if(entries->begin(), entries->end(), [&](const auto& e) { return e.first == part; });
    if (it == entries->end() || !std::holds_alternative<ConfigTable>(it->second.value)) {
      if (it == entries->end()) it = entries->insert(entries->end(), {part, ConfigValue{ConfigTable{}}});
      it->second = ConfigValue{ConfigTable{}};
    }
    entries = &std::get<ConfigTable>(it->second.value);
  }
  const auto same = std::find_if(entries->begin(), entries->end(), [&](const auto& e) { return e.first == rest; });
  if (same != entries->end())
    same->second = std::move(value);
  else
    entries->push_back({rest, std::move(value)});
  return *this;
}

std::string RunBuilder::toml() const { return toml_document(document_); }

RunConfig RunBuilder::build(const std::string& source_name) const { return parse_config_text(toml(), source_name); }

}  // namespace rdpdyn

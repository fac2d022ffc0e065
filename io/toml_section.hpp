#pragma once
// A TOML table seen through the configuration's rules: typed getters whose errors name the dotted
// key, the value found and the rule (SpecError), and a check that every key present is known.
// Shared by the readers of io/ (config.cpp, sweep_config.cpp).
#include <cmath>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <toml.hpp>
#include <vector>

#include "numerics/spec_error.hpp"
#include "numerics/format_number.hpp"
#include "numerics/near_miss.hpp"

namespace rdpdyn {

/// A value as the messages show it: "1.0" stays distinguishable from the integer 1.
inline std::string describe(const toml::value& v) {
  if (v.is_floating()) {  // keep "1.0" distinguishable from the integer 1
    const std::string text = format_number(v.as_floating());
    return text.find_first_of(".eEn") == std::string::npos ? text + ".0" : text;
  }
  if (v.is_integer()) return std::to_string(v.as_integer());
  if (v.is_string()) return "\"" + v.as_string().str + "\"";
  if (v.is_boolean()) return v.as_boolean() ? "true" : "false";
  if (v.is_array()) return "an array";
  if (v.is_table()) return "a table";
  return "a value of another type";
}

/// A TOML table with the dotted path used in error messages.
class Section {
 public:
  Section(const toml::value& value, std::string path) : path_(std::move(path)) {
    if (!value.is_table()) throw SpecError(path_, describe(value), "must be a table");
    table_ = &value.as_table();
  }

  std::string key(const std::string& k) const { return path_.empty() ? k : path_ + "." + k; }
  const std::string& path() const { return path_; }
  bool has(const std::string& k) const { return table_->count(k) != 0; }
  const toml::value& at(const std::string& k) const {
    const auto it = table_->find(k);
    if (it == table_->end()) throw SpecError(key(k), "missing", "this key is required");
    return it->second;
  }

  double number(const std::string& k) const { return as_number(at(k), key(k)); }
  std::optional<double> optional_number(const std::string& k) const {
    return has(k) ? std::optional<double>(number(k)) : std::nullopt;
  }
  std::int64_t integer(const std::string& k) const {
    const auto& v = at(k);
    if (!v.is_integer()) throw SpecError(key(k), describe(v), "must be an integer");
    return v.as_integer();
  }
  std::string string(const std::string& k) const {
    const auto& v = at(k);
    if (!v.is_string()) throw SpecError(key(k), describe(v), "must be a string");
    return v.as_string().str;
  }
  std::vector<double> numbers(const std::string& k) const {
    const auto& v = at(k);
    if (!v.is_array()) throw SpecError(key(k), describe(v), "must be an array of numbers");
    std::vector<double> out;
    for (std::size_t i = 0; i < v.as_array().size(); ++i)
      out.push_back(as_number(v.as_array()[i], key(k) + "[" + std::to_string(i) + "]"));
    return out;
  }
  Section table(const std::string& k) const { return Section(at(k), key(k)); }
  std::vector<Section> tables(const std::string& k) const {
    const auto& v = at(k);
    if (!v.is_array()) throw SpecError(key(k), describe(v), "must be an array of tables ([[" + key(k) + "]])");
    std::vector<Section> out;
    for (std::size_t i = 0; i < v.as_array().size(); ++i)
      out.emplace_back(v.as_array()[i], key(k) + "[" + std::to_string(i) + "]");
    return out;
  }
  void allow_only(const std::set<std::string>& allowed) const {
    for (const auto& [k, v] : *table_)
      if (!allowed.count(k)) {
        std::string list;
        for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
        const std::string near = closest_name(k, std::vector<std::string>(allowed.begin(), allowed.end()));
        throw SpecError(key(k), describe(v),
                        "unknown key" + (near.empty() ? std::string() : " (did you mean '" + key(near) + "'?)") +
                            "; allowed here: " + list);
      }
  }

 private:
  static double as_number(const toml::value& v, const std::string& key) {
    double x = 0.0;
    if (v.is_floating())
      x = v.as_floating();
    else if (v.is_integer())
      x = static_cast<double>(v.as_integer());
    else
      throw SpecError(key, describe(v), "must be a number");
    if (!std::isfinite(x)) throw SpecError(key, describe(v), "must be a finite number");
    return x;
  }

  const toml::table* table_;
  std::string path_;
};

}  // namespace rdpdyn

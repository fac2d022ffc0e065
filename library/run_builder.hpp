#pragma once
// A run described in code (docs/library.md): the keys of docs/config.md set one by one with typed
// values, rendered as a TOML document by io/config_text.hpp and read by the configuration loader
// (io/config.hpp), so a run built here passes exactly the checks, defaults and messages of a file,
// and its RunConfig::text is the configuration that `rdpdyn solve` would take for the same run.
#include <cstdint>
#include <string>
#include <vector>

#include "io/config_text.hpp"
#include "models/run_config.hpp"

namespace rdpdyn {

class RunBuilder {
 public:
  /// KEY is the dotted path of docs/config.md ("algorithm.sigma", "lsi.kind", "report.delta"): its
  /// first part names the table, the rest a key in it. Setting a key again replaces its value.
  RunBuilder& set(const std::string& key, double value);
  RunBuilder& set(const std::string& key, std::int64_t value);
  RunBuilder& set(const std::string& key, int value) { return set(key, static_cast<std::int64_t>(value)); }
  RunBuilder& set(const std::string& key, bool value);
  RunBuilder& set(const std::string& key, const std::string& value);
  RunBuilder& set(const std::string& key, const char* value) { return set(key, std::string(value)); }
  RunBuilder& set(const std::string& key, const std::vector<double>& values);
  /// Any other TOML value, verbatim: an inline table, an array of inline tables (a schedule).
  RunBuilder& set_toml(const std::string& key, const std::string& toml_value);

  /// The TOML document of the keys set so far, one table per first part, in the order first set.
  std::string toml() const;
  /// The checked run (io/config.hpp parse_config_text, `source_name` naming it in messages).
  /// Throws SpecError (key, value, rule) as for a file.
  RunConfig build(const std::string& source_name = "<code>") const;

 private:
  RunBuilder& put(const std::string& key, ConfigValue value);
  ConfigTable document_;  ///< one table per first part of a key, in the order first set
};

}  // namespace rdpdyn

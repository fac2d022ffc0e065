#pragma once
// A configuration as typed values, rendered as TOML text here and nowhere else: Python's keyword
// arguments and dicts (python/config_source.cpp), RunBuilder (library/run_builder.cpp) and the
// DP-SGD one-liners (python/dpsgd_accounting.cpp) hand their values to this file, and the text it
// renders is read by the one configuration loader (io/config.hpp), so every route passes the same
// checks, and RunConfig::text is the configuration `rdpdyn solve` would take for the same run.
#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace rdpdyn {

struct ConfigValue;
struct ConfigEntry;
using ConfigList = std::vector<ConfigValue>;
/// Keys and values in the order written (an entry, not a std::pair: the pair of an incomplete
/// type cannot stand in the variant below).
using ConfigTable = std::vector<ConfigEntry>;
/// A value the caller wrote as TOML itself (RunBuilder::set_toml), kept as written.
struct VerbatimToml {
  std::string text;
};

struct ConfigValue {
  std::variant<bool, std::int64_t, double, std::string, ConfigList, ConfigTable, VerbatimToml> value;
};

struct ConfigEntry {
  std::string first;   ///< the key
  ConfigValue second;  ///< its value
};

/// A double as a TOML float that reads back to the same double (the shortest text, ".0" where it
/// would read as an integer; inf and nan are TOML words too).
std::string toml_float(double x);

/// A key as TOML writes it: bare when it may be (A-Za-z0-9_-), else a quoted string.
std::string toml_key(const std::string& key);

/// One value as TOML text: tables inline ({a = 1}), strings quoted with TOML's escapes.
std::string toml_literal(const ConfigValue& value);

/// A document: the top-level entries that are not tables first (KEY = VALUE lines), then each table
/// entry as a [TABLE] section of KEY = VALUE lines (tables within it inline), sections separated by
/// a blank line.
std::string toml_document(const ConfigTable& document);

}  // namespace rdpdyn

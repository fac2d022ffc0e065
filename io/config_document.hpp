#pragma once
// The configuration as a parsed TOML document, for readers that build many configurations from
// one file (io/sweep_config.cpp: one per point of a sweep). io/config.hpp is the usual entry.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <toml.hpp>
#include <vector>

#include "models/run_config.hpp"

namespace rdpdyn {

/// Limits of a configuration text (docs/config.md, "Limits"), checked before the TOML parser runs:
/// its parser recurses once per nested array or inline table (a deep text overflows the stack) and
/// is quadratic in the parts of a dotted key and in the entries of an array. The file size and
/// the entries of an array are limited in models/size_limits.hpp.
inline constexpr std::size_t kMaxTomlNesting = 64;  // arrays and inline tables, one in another
inline constexpr std::size_t kMaxKeyParts = 64;     // a.b.c: 3 parts

/// SpecError naming `source_name` when `text` exceeds one of the limits above.
void check_toml_limits(const std::string& text, const std::string& source_name);

/// The text of a configuration file; SpecError naming CONFIG when the path does not exist, is a
/// directory or another non-regular file, or cannot be read (with the system's reason).
std::string read_config_file(const std::filesystem::path& path);

/// Parses TOML text; SpecError naming `source_name` when it is not valid TOML or exceeds the limits.
toml::value parse_toml_document(const std::string& text, const std::string& source_name);

/// Sets a dotted KEY (algorithm.sigma; a phase: algorithm.schedule[0].eta) to `value`, creating
/// missing tables, so that the usual checks decide. SpecError for a malformed key.
void set_config_key(toml::value& root, const std::string& key, toml::value value);

/// Applies one `--set KEY=VALUE` (VALUE a TOML value, or a bare word taken as a string).
void apply_override(toml::value& root, const std::string& assignment);

/// The orders of [orders] (docs/config.md), checked as for a whole configuration.
std::vector<double> orders_from_document(const toml::value& data);

/// The configuration text followed by a comment block listing the overrides.
std::string effective_config_text(const std::string& text, const std::vector<std::string>& overrides);

/// Validates a parsed document (every rule of docs/config.md) into a RunConfig; `text` becomes
/// RunConfig::text. Throws SpecError (key, value, rule).
RunConfig config_from_document(const toml::value& data, std::string text, const std::string& source_name,
                               const std::vector<std::string>& overrides);

}  // namespace rdpdyn

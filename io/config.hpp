#pragma once
// The TOML configuration of a run (documented key by key in docs/config.md).
#include <filesystem>
#include <string>
#include <vector>

#include "models/run_config.hpp"

namespace rdpdyn {

/// Parses and validates a configuration. Throws SpecError (key, value, rule) on any unknown key,
/// wrong type, out-of-range or non-finite value, and on violated model assumptions.
/// `overrides` are `--set KEY=VALUE` assignments (KEY a dotted path such as algorithm.sigma or
/// algorithm.schedule[0].eta; VALUE a TOML value, or a bare word taken as a string), applied to the
/// parsed file before the checks, which therefore name the key as for the file. RunConfig::text is the
/// file followed by a comment block listing the overrides (the effective configuration).
RunConfig parse_config_text(const std::string& text, const std::string& source_name,
                            const std::vector<std::string>& overrides = {});
RunConfig load_config(const std::filesystem::path& path, const std::vector<std::string>& overrides = {});

}  // namespace rdpdyn

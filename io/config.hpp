#pragma once
// The TOML configuration of a run (documented key by key in docs/config.md).
#include <filesystem>
#include <string>

#include "models/run_config.hpp"

namespace rdpdyn {


/// Parses and validates a configuration. Throws SpecError (key, value, rule) on any unknown key,
/// wrong type, out-of-range or non-finite value, and on violated model assumptions.
RunConfig parse_config_text(const std::string& text, const std::string& source_name);
RunConfig load_config(const std::filesystem::path& path);

}  // namespace rdpdyn

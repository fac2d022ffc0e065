#pragma once
// The TOML configuration of a run (documented key by key in docs/config.md).
#include <filesystem>
#include <string>

#include "models/run_spec.hpp"
#include "solver/finite_difference_grid.hpp"

namespace rdpdyn {

/// A parsed configuration: the run and the engine settings, plus the text for the metadata.
struct RunConfig {
  RunSpec spec;
  std::string engine = "characteristics";
  double integration_rtol = 1e-10;
  FiniteDifferenceGrid grid;  ///< used by engine = "finite-difference"
  std::string text;  ///< the configuration, verbatim
  std::string path;
};

/// Parses and validates a configuration. Throws SpecError (key, value, rule) on any unknown key,
/// wrong type, out-of-range or non-finite value, and on violated model assumptions.
RunConfig parse_config_text(const std::string& text, const std::string& source_name);
RunConfig load_config(const std::filesystem::path& path);

}  // namespace rdpdyn

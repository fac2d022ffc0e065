#pragma once
// A configured run: the run itself (RunSpec) and how to solve it (engine, tolerance, grid), with the
// configuration text for the metadata. io/config.cpp fills it from TOML (docs/config.md) and
// models/run_validation.hpp checks it once. The text stays beside the run because every output
// carries the configuration that reproduces it (RunBuilder and the Python dict render theirs).
#include <string>
#include <vector>

#include "models/run_spec.hpp"
#include "solver/finite_difference_grid.hpp"

namespace rdpdyn {

struct RunConfig {
  RunSpec spec;
  std::string engine = "characteristics";  ///< a name of the EngineRegistry
  double integration_rtol = 1e-10;
  FiniteDifferenceGrid grid;           ///< used by engine = "finite-difference"
  std::string text;                    ///< the configuration, verbatim (then a comment block listing the overrides)
  std::vector<std::string> overrides;  ///< `--set KEY=VALUE` assignments applied to the file, in order
  std::string path;
};

}  // namespace rdpdyn

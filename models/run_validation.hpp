#pragma once
// The rules of a run that relate its parts (docs/config.md): events against the LSI model and the
// number of steps, the quadratic pair against the sensitivity, a tabulated start against the
// orders, the engine's dry run, and every assumption of the models (check_model_assumptions).
// The configuration reader (io/config.hpp) calls validate_run once, after reading every table, for
// every way a run arrives: a TOML file, `--set`, RunBuilder and the Python dict all pass through it,
// so the same bad run gets the same message on each path (tests/io/test_error_paths.cpp).
#include "models/run_config.hpp"
#include "solver/engine.hpp"

namespace rdpdyn {

/// Checks `cfg` and completes the defaults that depend on the whole run: gamma when the
/// configuration did not choose it (spec.gamma_by_default: the best certified choice `engine`
/// supports) and the engine's grid. Throws SpecError (key, value, rule).
void validate_run(RunConfig& cfg, const Engine& engine);

}  // namespace rdpdyn

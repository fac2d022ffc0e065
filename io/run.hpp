#pragma once
// One solve, end to end: configuration -> privacy program -> engine -> closed forms -> report.
#include "io/config.hpp"
#include "io/run_report.hpp"

namespace rdpdyn {

/// Solves the configured run and gathers the report (solution, applicable closed forms,
/// metadata). Throws SpecError for input that the models refuse.
RunReport solve_run(const RunConfig& config);

}  // namespace rdpdyn

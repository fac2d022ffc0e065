#pragma once
// The `--json` summary of a run: one JSON object on stdout.
#include <string>

#include "commands/run_report.hpp"

namespace rdpdyn {

/// {"orders": [...], "R": [... at the final time], "t": final time, "step": final step,
///  "closed_forms": {name: [... at the final time]}, "closed_form_roles": {name: role},
///  "engine", "gamma_mode", "version", "units": {...},
///  "declared_constants": [...], "derived_constants": [...]}
std::string report_to_json(const RunReport& report);

}  // namespace rdpdyn

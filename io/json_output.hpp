#pragma once
// The `--json` summary of a run: one JSON object on stdout.
#include <nlohmann/json.hpp>
#include <string>

#include "commands/run_report.hpp"
#include "commands/run_terms.hpp"

namespace rdpdyn {

/// {"orders": [...], "R": [... at the final time], "t": final time, "step": final step,
///  "closed_forms": {name: [... at the final time]}, "closed_form_roles": {name: role},
///  "engine", "gamma_mode", "version", "units": {...},
///  "declared_constants": [...], "derived_constants": [...]}; with [report] delta also "delta", "epsilon",
///  "best_order", "conversion"; with [report] epsilon "report_epsilon", "delta_at_epsilon",
///  "delta_at_epsilon_order".
std::string report_to_json(const RunReport& report);

/// {"adjacency", "adjacency_default", "sampling", "records_per_user", "records_per_user_default",
///  "line", "ecosystem_hint"} (null hint when none); null for a "pdi" run, which has no relation.
nlohmann::json run_terms_json(const RunTerms& terms);

}  // namespace rdpdyn

#pragma once
// "pdi": this tool's own bound, the PDI of C21 eq. (13) solved for the configured run by the
// configured engine (docs/math.md section 2; status derived: docs/analyses.md, "pdi").
#include <span>

#include "analyses/analysis.hpp"

namespace rdpdyn {

/// Solves the configured run at `orders` and returns the final row.
AnalysisResult pdi_analysis(const AnalysisInput& input, std::span<const double> orders);

}  // namespace rdpdyn

#pragma once
// The formats of `rdpdyn compare`: JSON, a table for people, HDF5 (docs/hdf5.md).
#include <filesystem>
#include <string>

#include "commands/compare.hpp"

namespace rdpdyn {

/// {"orders": [...], "delta": d, "analyses": [{"name", "applies", "reason", "citation", "R", "epsilon",
/// "best_order"}...], "best": {"name", "R", "epsilon", "best_order"}, and for a quadratic loss
/// "exact": {"name": "quadratic-exact", "R"}}
std::string comparison_to_json(const Comparison& comparison);

/// A table: analysis, applies / reason, R at each order, epsilon; the tightest valid one marked.
std::string comparison_table(const Comparison& comparison);

/// HDF5 (atomically): /orders, /analyses/<name> (R per order; attributes applies, reason,
/// citation, epsilon, best_order), /best/R (attributes name, epsilon, best_order), root
/// attributes as for `solve` plus delta.
void write_comparison_hdf5(const std::filesystem::path& path, const Comparison& comparison,
                           const RunConfig& config);

/// The analysis registry as JSON: [{"name", "citation", "status", "status_note", "any_order"}...].
std::string analysis_registry_json();
/// The analysis registry as a table for people, with what each status means.
std::string analysis_registry_table();

}  // namespace rdpdyn

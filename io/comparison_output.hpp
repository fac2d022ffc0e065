#pragma once
// The formats of `rdpdyn compare`: JSON, a table for people, HDF5 (docs/hdf5.md).
#include <filesystem>
#include <string>

#include "commands/compare.hpp"

namespace rdpdyn {

/// Units and meanings of the curves of the entries that know their profile (ComparisonEntry::curves),
/// the same in JSON, HDF5 and Python.
inline constexpr const char* kUnitsProfileEpsilon = "nats";
inline constexpr const char* kUnitsProbability = "probability";
inline constexpr const char* kProfileMeaning =
    "delta(epsilon): certified upper bound of the privacy profile (hockey-stick divergence at e^epsilon) at each "
    "epsilon";
inline constexpr const char* kTradeoffMeaning =
    "beta(alpha): certified lower bound of the type II error at type I error alpha";

/// {"orders": [...], "delta": d, "epsilon": e, "analyses": [{"name", "applies", "reason", "citation", "R",
/// "epsilon", "best_order", "delta_at_epsilon", "profile", "tradeoff"}...], "best": {"name", "R", "epsilon",
/// "best_order", "delta_at_epsilon"}, "amplification_warning", and for a quadratic loss
/// "exact": {"name": "quadratic-exact", "R"}}; "profile" = {"epsilon", "delta", "units", "meaning"} and
/// "tradeoff" = {"alpha", "beta", "meaning"} for the entries with curves, else null.
std::string comparison_to_json(const Comparison& comparison);

/// A table for people: analysis, status, applies / reason, epsilon with its order and conversion,
/// delta at [report] epsilon, mu, and R at four of the orders spread over them (every order with
/// `wide`), five significant digits; the upper bounds on the run first, tightest first (the best
/// marked), then the exact values, lower bounds and heuristics in their own group, then a count of
/// the analyses that do not apply (`all`: each with its reason, wrapped); the amplification warning
/// when there is one.
std::string comparison_table(const Comparison& comparison, bool wide = false, bool all = false);

/// HDF5 (atomically): /orders, /analyses/<name> (R per order; attributes applies, reason,
/// citation, epsilon, best_order, delta_at_epsilon), /curves/<name> (profile_epsilon, profile_delta,
/// tradeoff_alpha, tradeoff_beta of the entries with curves), /best/R (attributes name, epsilon,
/// best_order, delta_at_epsilon), root attributes as for `solve` plus delta and epsilon (docs/hdf5.md).
void write_comparison_hdf5(const std::filesystem::path& path, const Comparison& comparison, const RunConfig& config);

/// The analysis registry as JSON: [{"name", "citation", "status", "status_note", "any_order"}...].
std::string analysis_registry_json();
/// The analysis registry as a table for people, with what each status means.
std::string analysis_registry_table();

}  // namespace rdpdyn

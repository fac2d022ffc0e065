#pragma once
// Runs from and to the other accounting libraries' formats: dp_accounting's DpEvent (its
// to_named_tuple() written as JSON) and opacus' accountant history (a list of (noise_multiplier,
// sample_rate, steps)), through the exchange form of commands/accounting_run.hpp, and that form as a
// configuration text, so that every analysis of `compare` evaluates the same run.
#include <string>

#include <nlohmann/json.hpp>

#include "commands/accounting_run.hpp"

namespace rdpdyn {

/// The phases of a DpEvent: GaussianDpEvent, PoissonSampledDpEvent of a GaussianDpEvent,
/// SelfComposedDpEvent, ComposedDpEvent and NoOpDpEvent, under add/remove adjacency (dp_accounting's
/// default relation); or SampledWithoutReplacementDpEvent of a GaussianDpEvent (composed, of one
/// dataset size, sample size and noise), under replace-one (the only relation dp_accounting accounts
/// it under). Any other class is refused by name (SpecError naming its place in the tree).
AccountingRun accounting_run_from_dp_event(const nlohmann::json& event);

/// The phases of an opacus accountant history: [[noise_multiplier, sample_rate, steps], ...], add/remove
/// adjacency (opacus' relation).
AccountingRun accounting_run_from_opacus_history(const nlohmann::json& history);

/// The run as a configuration (docs/config.md): a Poisson-sampled noisy-sgd run configured for
/// accounting alone, one phase per phase, opacus' default orders, delta = 1e-5 (override with --set),
/// a comment naming `source`.
std::string accounting_run_toml(const AccountingRun& run, const std::string& source);

/// The run as a DpEvent (to_named_tuple() as JSON): SelfComposedDpEvent(PoissonSampledDpEvent(q,
/// GaussianDpEvent(m)), steps) per phase (GaussianDpEvent alone where q = 1;
/// SampledWithoutReplacementDpEvent(n, b, GaussianDpEvent(m / 2)) for per-step batches), composed.
nlohmann::json dp_event_json(const AccountingRun& run);

/// The JSON document in `path` (SpecError naming `option` when it cannot be read or parsed).
nlohmann::json read_json_file(const std::string& path, const std::string& option);

}  // namespace rdpdyn

#pragma once
// One configured run solved end to end below the commands: the privacy program of the model,
// the engine chosen by name from the registry, the records streamed to an observer. `rdpdyn
// solve` adds the outputs on top; the `pdi` analysis keeps the final row.
#include <optional>
#include <span>

#include "accounting/epsilon_delta.hpp"
#include "models/run_config.hpp"
#include "solver/engine.hpp"

namespace rdpdyn {

/// The engine the configuration names. Throws SpecError ('analysis.engine') for an unknown name.
const Engine& configured_engine(const RunConfig& config, const EngineRegistry& engines);

/// Solves the configured run: noisy GD and Langevin diffusion through the configured engine,
/// noisy mini-batch GD through the worst case over the differing record's batch
/// (models/noisy_sgd_worst_case.hpp, characteristics engine). Throws SpecError for input the
/// models or engines refuse (remove-one adjacency, a user function leaving its domain).
/// Every R the observer receives, and final_R, is rounded outward: raised by
/// outward::recursion_margin(steps of the record) (numerics/outward_rounding.hpp).
/// `progress` (may be empty) follows the steps of the engine's solve.
EngineSummary solve_configured_run(const RunConfig& config, const EngineRegistry& engines, RecordObserver& observer,
                                   const StepProgress& progress = {});

/// When the configured solve's bound is R(alpha) = alpha w with one w at every order, w, bounded
/// from above from a row `R` of solve_configured_run at `orders`; else nullopt. That is the case
/// on an engine that keeps linear data exact (Engine::keeps_linear_data_exact: the characteristics
/// engine, which the noisy-SGD worst case also uses) when the initial data are linear in alpha: the
/// coefficients do not depend on the order, so w is constant in y (docs/math.md section 2.3; events
/// add constants to w, section 2.6). Each outward-rounded R_j bounds alpha_j w from above, so
/// w <= R_j / alpha_j for every j: the smallest quotient, rounded up, is returned. The other
/// engines' values are not exactly linear: nullopt.
std::optional<double> linear_rdp_slope(const RunConfig& config, const Engine& engine, std::span<const double> orders,
                                       std::span<const double> R);

/// alpha * slope rounded up (one correctly rounded product, then one double towards +infinity):
/// the bound at any order alpha > 1 of a run with linear_rdp_slope.
double linear_rdp_at(double alpha, double slope);

/// epsilon at `delta` of one row `R` of solve_configured_run at the configured orders, as `rdpdyn
/// solve` reports it for the final row: the smallest valid RDP conversion (accounting/epsilon_delta.hpp,
/// RdpConversion::Best) minimised over the recorded orders and, when the row has a
/// linear_rdp_slope (R known at every order), over alpha in [1.001, 1e4] and by the zCDP route as
/// well (accounting/epsilon_over_orders.hpp, accounting/zcdp.hpp). `over_continuum` (may be null) tells which was done.
EpsilonAtOrder row_epsilon(const RunConfig& config, const Engine& engine, std::span<const double> R, double delta,
                           bool* over_continuum = nullptr);

}  // namespace rdpdyn

#include "python/dpsgd_accounting.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>

#include "accounting/peer_orders.hpp"
#include "analyses/analysis.hpp"
#include "commands/calibrate.hpp"
#include "commands/compare.hpp"
#include "io/config.hpp"
#include "io/config_text.hpp"
#include "models/privacy_model.hpp"
#include "numerics/spec_error.hpp"
#include "numerics/format_number.hpp"
#include "solver/engine_registry.hpp"

namespace rdpdyn::python {
namespace {

/// The dataset size only sets the expected batch size q n, which accounting does not read.
constexpr double kDatasetSize = 1e6;

/// The accounting-only run of examples/dpsgd_accounting.toml with these values.
std::string dpsgd_config_text(double q, double z, std::int64_t steps, double delta, const std::vector<double>& orders,
                              DpsgdAdjacency adjacency = DpsgdAdjacency::AddRemove) {
  ConfigList values;
  for (double a : orders) values.push_back({a});
  ConfigTable domain{{"adjacency", {std::string(adjacency == DpsgdAdjacency::AddRemove ? "add-remove" : "replace")}}};
  if (adjacency == DpsgdAdjacency::Replace) domain.push_back({"lipschitz_loss", ConfigValue{true}});  // |g| <= C
  const ConfigTable document{{"orders", {ConfigTable{{"values", {std::move(values)}}}}},
                             {"algorithm",
                              {ConfigTable{{"kind", {std::string("noisy-sgd")}},
                                           {"sampling", {std::string("poisson")}},
                                           {"sampling_rate", {q}},
                                           {"steps", {steps}},
                                           {"noise_multiplier", {z}},
                                           {"n", {kDatasetSize}}}}},
                             {"domain", {std::move(domain)}},
                             {"report", {ConfigTable{{"delta", {delta}}}}}};
  return toml_document(document);
}

/// The configuration's checks name its keys; the caller gave arguments.
[[noreturn]] void rethrow_with_argument_names(const SpecError& e) {
  static const std::map<std::string, std::string> argument = {{"algorithm.sampling_rate", "sampling_rate"},
                                                              {"algorithm.noise_multiplier", "noise_multiplier"},
                                                              {"algorithm.steps", "steps"},
                                                              {"report.delta", "delta"},
                                                              {"--delta", "delta"},
                                                              {"--epsilon", "epsilon"},
                                                              {"orders.values", "orders"}};
  std::string key = e.key();
  if (const auto it = argument.find(key); it != argument.end())
    key = it->second;
  else if (key.rfind("orders.values[", 0) == 0)
    key = "orders" + key.substr(13);
  throw SpecError(key, e.value(), e.rule());
}

RunConfig dpsgd_config(double q, double z, std::int64_t steps, double delta, const std::vector<double>& orders,
                       DpsgdAdjacency adjacency = DpsgdAdjacency::AddRemove) {
  if (orders.empty()) throw SpecError("orders", "[]", "must hold at least one order > 1");
  try {
    return parse_config_text(dpsgd_config_text(q, z, steps, delta, orders, adjacency), "<dpsgd>");
  } catch (const SpecError& e) {
    rethrow_with_argument_names(e);
  }
}

/// The PLD route reads no order; R at one order is all composition-pld computes beside it.
const std::vector<double> kPldOrders{2.0};

/// composition-pld's assessment of the run (its PLD accountant, composed when first asked).
AnalysisResult pld_assessment(const RunConfig& config, double q) {
  const EngineRegistry engines = engine_registry(MPI_COMM_SELF);  // accounting solves nothing
  const TrainingRun run = training_run_of(config.spec);
  const AnalysisInput input{config, run, engines};
  AnalysisResult result = find_analysis("composition-pld")->assess(input, config.spec.orders);
  if (!result.applies) throw SpecError("sampling_rate", format_number(q), result.reason);
  if (!result.fdp_epsilon || !result.fdp_delta)
    throw SpecError("sampling_rate", format_number(q),
                    "composition-pld gives no privacy profile here: " + result.reason);
  return result;
}

}  // namespace

double dpsgd_pld_epsilon(double q, double z, std::int64_t steps, double delta, DpsgdAdjacency adjacency) {
  const RunConfig config = dpsgd_config(q, z, steps, delta, kPldOrders, adjacency);
  return pld_assessment(config, q).fdp_epsilon(delta);
}

double dpsgd_pld_delta(double q, double z, std::int64_t steps, double epsilon, DpsgdAdjacency adjacency) {
  if (!(epsilon >= 0.0) || !std::isfinite(epsilon))
    throw SpecError("epsilon", format_number(epsilon), "must be a finite number >= 0");
  // The grid is refined, and the truncation budgets set, for a reference delta (PldAccountant::delta):
  // the DP-SGD libraries' 1e-5 first, then the answer's own order of magnitude if it is far from it,
  // so that the grid is fine where the answer lies (each pass is a certified upper bound).
  double reference = 1e-5;
  double answer = 0.0;
  for (int pass = 0; pass < 2; ++pass) {
    const RunConfig config = dpsgd_config(q, z, steps, reference, kPldOrders, adjacency);
    answer = std::min(answer > 0.0 ? answer : 1.0, pld_assessment(config, q).fdp_delta(epsilon));
    if (!(answer > 0.0) || (answer > 0.1 * reference && answer < 10.0 * reference)) break;
    reference = std::clamp(answer, 1e-300, 0.5);
  }
  return answer;
}

NoiseMultiplier dpsgd_pld_noise_multiplier(double q, std::int64_t steps, double epsilon, double delta,
                                           DpsgdAdjacency adjacency) {
  const RunConfig config = dpsgd_config(q, 1.0, steps, delta, kPldOrders, adjacency);  // the search starts at z = 1
  CalibrationRequest request;
  request.epsilon = epsilon;
  request.delta = delta;
  request.target = CalibrationTarget::NoiseMultiplier;
  request.analysis = "composition-pld";
  try {
    const CalibrationOutcome out = calibrate_run(config, request, engine_registry(MPI_COMM_SELF));
    return {*out.noise_multiplier, {out.epsilon, out.best_order}};
  } catch (const SpecError& e) {
    rethrow_with_argument_names(e);
  }
}

std::vector<double> library_default_orders() { return peer_default_orders(); }

EpsilonAtOrder dpsgd_epsilon(double q, double z, std::int64_t steps, double delta, const std::vector<double>& orders) {
  const RunConfig config = dpsgd_config(q, z, steps, delta, orders);
  const EngineRegistry engines = engine_registry(MPI_COMM_SELF);  // accounting solves nothing
  const TrainingRun run = training_run_of(config.spec);
  const AnalysisInput input{config, run, engines};
  const Analysis& sgm = *find_analysis("composition-sgm");
  ComparisonEntry entry;  // as `compare` evaluates its entry
  entry.result = sgm.assess(input, config.spec.orders);
  if (!entry.result.applies) throw SpecError("sampling_rate", format_number(q), entry.result.reason);
  // The libraries' conversion: the improved one (opacus' get_privacy_spent, dp_accounting's
  // compute_epsilon), not the smallest of rdpdyn's (compare's epsilon may be lower, e.g. by
  // Asoodeh et al.'s conversion at small R; docs/analyses.md section 4).
  assign_epsilon(entry, sgm, input, config.spec.orders, delta, RdpConversion::Improved);
  return {entry.epsilon_recorded_orders, entry.best_recorded_order};
}

NoiseMultiplier dpsgd_noise_multiplier(double q, std::int64_t steps, double epsilon, double delta,
                                       const std::vector<double>& orders) {
  const RunConfig config = dpsgd_config(q, 1.0, steps, delta, orders);  // the search starts at z = 1
  CalibrationRequest request;
  request.epsilon = epsilon;
  request.delta = delta;
  request.target = CalibrationTarget::NoiseMultiplier;
  request.analysis = "composition-sgm";
  request.configured_orders_only = true;
  request.conversion = RdpConversion::Improved;  // as opacus' get_noise_multiplier
  try {
    const CalibrationOutcome out = calibrate_run(config, request, engine_registry(MPI_COMM_SELF));
    return {*out.noise_multiplier, {out.epsilon, out.best_order}};
  } catch (const SpecError& e) {
    rethrow_with_argument_names(e);
  }
}

}  // namespace rdpdyn::python

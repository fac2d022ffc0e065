#include "python/dpsgd_accounting.hpp"

#include <map>
#include <string>

#include "analyses/analysis.hpp"
#include "commands/calibrate.hpp"
#include "commands/compare.hpp"
#include "io/config.hpp"
#include "models/privacy_model.hpp"
#include "numerics/spec_error.hpp"
#include "numerics/format_number.hpp"
#include "solver/engine_registry.hpp"

namespace rdpdyn::python {
namespace {

/// The dataset size only sets the expected batch size q n, which accounting does not read.
constexpr double kDatasetSize = 1e6;

std::string number(double x) {
  std::string s = format_number(x);
  if (s.find_first_of(".eEni") == std::string::npos) s += ".0";  // a TOML float
  return s;
}

/// The accounting-only run of examples/dpsgd_accounting.toml with these values.
std::string dpsgd_config_text(double q, double z, std::int64_t steps, double delta, const std::vector<double>& orders) {
  std::string values;
  for (double a : orders) values += (values.empty() ? "" : ", ") + number(a);
  return "[orders]\nvalues = [" + values +
         "]\n\n[algorithm]\nkind = \"noisy-sgd\"\nsampling = \"poisson\"\n"
         "sampling_rate = " +
         number(q) + "\nsteps = " + std::to_string(steps) + "\nnoise_multiplier = " + number(z) +
         "\nn = " + number(kDatasetSize) +
         "\n\n[domain]\nadjacency = \"add-remove\"\n\n[report]\ndelta = " + number(delta) + "\n";
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

RunConfig dpsgd_config(double q, double z, std::int64_t steps, double delta, const std::vector<double>& orders) {
  if (orders.empty()) throw SpecError("orders", "[]", "must hold at least one order > 1");
  try {
    return parse_config_text(dpsgd_config_text(q, z, steps, delta, orders), "<dpsgd>");
  } catch (const SpecError& e) {
    rethrow_with_argument_names(e);
  }
}

}  // namespace

std::vector<double> library_default_orders() {
  std::vector<double> orders;
  for (int x = 1; x < 100; ++x) orders.push_back(1.0 + x / 10.0);
  for (int a = 12; a < 64; ++a) orders.push_back(a);
  return orders;
}

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

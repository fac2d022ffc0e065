// Calibration benchmarks (Google Benchmark): `calibrate --for noise_multiplier` in process against a
// plain loop of the same search.
//   build/rdpdyn_bench_calibrate
//   build/rdpdyn_bench_calibrate --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
// Both find the smallest DP-SGD noise multiplier z with epsilon <= 2 at delta = 1e-5 for
// examples/dpsgd_accounting.toml (Poisson q = 0.01, 10^4 steps, add-remove) under composition-sgm,
// on the example's 8 orders (argument 8) or on opacus' 151 RDPAccountant.DEFAULT_ALPHAS (argument
// 151; opacus' get_noise_multiplier evaluates those, 11 times for this target).
//  - BM_Calibrate_Registry: calibrate_run, the configuration loaded once outside the loop; each
//    candidate copies the RunSpec, builds the TrainingRun and asks the registry's composition-sgm.
//  - BM_Calibrate_PlainLoop: the same bracket (doubling from the configured z) and the same
//    Boost.Math TOMS 748 with the same tolerance (relative 1e-9), calling sampled_gaussian_rdp_upper
//    and best_epsilon directly on the same orders. The ratio of the two is the registry's overhead.
// Before timing, each checks that both searches return the same z (to the bit) with the same number
// of evaluations. Counter "evaluations": distinct candidates evaluated per search.
#include <benchmark/benchmark.h>

#include <boost/math/tools/toms748_solve.hpp>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "accounting/epsilon_delta.hpp"
#include "accounting/epsilon_over_orders.hpp"
#include "accounting/sampled_gaussian.hpp"
#include "commands/calibrate.hpp"
#include "io/config.hpp"
#include "numerics/outward_rounding.hpp"
#include "solver/characteristics_engine.hpp"

namespace {

using namespace rdpdyn;

constexpr double kTargetEpsilon = 2.0, kDelta = 1e-5;

/// opacus' RDPAccountant.DEFAULT_ALPHAS: 1.1, 1.2, ..., 10.9, then 12, ..., 63.
std::vector<double> opacus_default_alphas() {
  std::vector<double> a;
  for (int x = 1; x < 100; ++x) a.push_back(1 + x / 10.0);
  for (int k = 12; k < 64; ++k) a.push_back(k);
  return a;
}

RunConfig accounting_example(std::int64_t orders) {
  RunConfig cfg = load_config(RDPDYN_SOURCE_DIR "/examples/dpsgd_accounting.toml");
  if (orders == 151) cfg.spec.orders = opacus_default_alphas();
  return cfg;
}

const CalibrationRequest kRequest{kTargetEpsilon, kDelta, CalibrationTarget::NoiseMultiplier, "composition-sgm"};

struct PlainResult {
  double z;
  double epsilon;
  int evaluations;
};

/// The search of calibrate_run written out: epsilon(z) = the smaller of best_epsilon over the orders
/// and the continuous minimum over [1.001, 10^4] (compare's assign_epsilon) of steps * S_alpha(q, z),
/// outward rounded as composition-sgm through the registry, the bracket doubled or halved from z0,
/// then TOMS 748 on epsilon - target keeping the nearest evaluated feasible point.
PlainResult plain_calibrate(double q, std::int64_t steps, std::span<const double> orders, double z0) {
  int evaluations = 0;
  std::vector<double> R(orders.size());
  auto eps = [&](double z) {
    ++evaluations;
    for (std::size_t j = 0; j < orders.size(); ++j)
      R[j] = static_cast<double>(steps) * sampled_gaussian_rdp_upper(q, z, orders[j]);
    outward::round_up(R, outward::recursion_margin(steps));  // the registry's margin (analyses/registry.cpp)
    const double grid = best_epsilon(orders, R, kDelta).epsilon;
    const double continuous = minimise_epsilon_batched(
                                  [&](std::span<const double> alphas) {
                                    std::vector<double> r;
                                    for (double a : alphas)
                                      r.push_back(static_cast<double>(steps) * sampled_gaussian_rdp_upper(q, z, a));
                                    outward::round_up(r, outward::recursion_margin(steps));
                                    return r;
                                  },
                                  kDelta)
                                  .epsilon;
    return std::min(grid, continuous);
  };
  double lo = z0, hi = z0, e_lo = eps(z0), e_hi = e_lo;
  if (e_hi <= kTargetEpsilon) {
    do hi = lo, e_hi = e_lo, lo /= 2, e_lo = eps(lo);
    while (e_lo <= kTargetEpsilon);
  } else {
    do lo = hi, e_lo = e_hi, hi *= 2, e_hi = eps(hi);
    while (e_hi > kTargetEpsilon);
  }
  auto finite = [](double d) { return std::isfinite(d) ? d : std::numeric_limits<double>::max() / 4; };
  double good = hi, bad = lo, good_eps = e_hi;
  auto f = [&](double z) {
    const double e = eps(z);
    const bool met = e <= kTargetEpsilon;
    if (met && std::abs(z - bad) < std::abs(good - bad)) good = z, good_eps = e;
    if (!met && std::abs(z - good) < std::abs(good - bad)) bad = z;
    return finite(e - kTargetEpsilon);
  };
  auto close_enough = [](double a, double b) { return std::abs(b - a) <= 1e-9 * std::max(std::abs(a), std::abs(b)); };
  std::uintmax_t iterations = 400;
  try {
    boost::math::tools::toms748_solve(f, lo, hi, finite(e_lo - kTargetEpsilon), finite(e_hi - kTargetEpsilon),
                                      close_enough, iterations);
  } catch (const boost::math::evaluation_error&) {}
  return {good, good_eps, evaluations};
}

/// Both searches once, untimed: the same answer with the same evaluations, or an error.
bool same_search(benchmark::State& state, const RunConfig& cfg, const EngineRegistry& engines, int& evaluations) {
  const CalibrationOutcome o = calibrate_run(cfg, kRequest, engines);
  const auto& a = cfg.spec.algorithm;
  const PlainResult p = plain_calibrate(a.sampling_rate, cfg.spec.total_steps(), cfg.spec.orders, *a.noise_multiplier);
  evaluations = o.evaluations;
  if (p.z != *o.noise_multiplier || p.evaluations != o.evaluations || p.epsilon != o.epsilon) {
    char buf[256];
    std::snprintf(buf, sizeof buf,
                  "the searches differ: calibrate_run z = %.17g, epsilon %.17g (%d evaluations); plain loop z = "
                  "%.17g, epsilon %.17g (%d)",
                  *o.noise_multiplier, o.epsilon, o.evaluations, p.z, p.epsilon, p.evaluations);
    state.SkipWithError(buf);
    return false;
  }
  return true;
}

void BM_Calibrate_Registry(benchmark::State& state) {
  const RunConfig cfg = accounting_example(state.range(0));
  EngineRegistry engines;
  engines.add(make_characteristics_engine());
  int evaluations = 0;
  if (!same_search(state, cfg, engines, evaluations)) return;
  for (auto _ : state) {
    const CalibrationOutcome o = calibrate_run(cfg, kRequest, engines);
    benchmark::DoNotOptimize(o.noise_multiplier);
  }
  state.counters["evaluations"] = evaluations;
}

void BM_Calibrate_PlainLoop(benchmark::State& state) {
  const RunConfig cfg = accounting_example(state.range(0));
  EngineRegistry engines;
  engines.add(make_characteristics_engine());
  int evaluations = 0;
  if (!same_search(state, cfg, engines, evaluations)) return;
  const auto& a = cfg.spec.algorithm;
  const std::vector<double> orders = cfg.spec.orders;
  for (auto _ : state) {
    const PlainResult p = plain_calibrate(a.sampling_rate, cfg.spec.total_steps(), orders, *a.noise_multiplier);
    benchmark::DoNotOptimize(p.z);
  }
  state.counters["evaluations"] = evaluations;
}

BENCHMARK(BM_Calibrate_Registry)->ArgName("orders")->Arg(8)->Arg(151)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Calibrate_PlainLoop)->ArgName("orders")->Arg(8)->Arg(151)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();

// The PLD accountant on the DP-SGD example of examples/dpsgd_accounting.toml (Poisson q = 0.01,
// noise multiplier 1.1, 10^4 steps, add/remove, delta = 1e-5): epsilon from scratch (pairs,
// discretisation, both directions composed, epsilon), at fixed grids and at the default accuracy.
// bench/pld_vs_dp_accounting.py times dp_accounting's PLDAccountant on the same run in the same
// session (docs/performance.md).
#include <benchmark/benchmark.h>

#include <cmath>
#include <memory>

#include "accounting/pld/gaussian_mixture_pair.hpp"
#include "accounting/pld/pld_accountant.hpp"

namespace {

using rdpdyn::pld::GaussianMixturePair;

double epsilon(double grid, double accuracy) {
  using Dir = GaussianMixturePair::Direction;
  rdpdyn::pld::AccountantOptions o;
  o.grid = grid;
  o.accuracy = accuracy;
  rdpdyn::pld::PldAccountant acc(
      {{{std::make_shared<GaussianMixturePair>(rdpdyn::pld::subsampled_gaussian_pair(0.01, 1.0 / 1.1, Dir::Forward)),
         10000}},
       {{std::make_shared<GaussianMixturePair>(rdpdyn::pld::subsampled_gaussian_pair(0.01, 1.0 / 1.1, Dir::Reverse)),
         10000}}},
      o);
  return acc.epsilon(1e-5).upper;
}

// grid spacing m 2^-k from the arguments (k, m): 2^-12, 2^-13, 2^-14 and 3 x 2^-15 (about 0.92e-4,
// just below dp_accounting's default 1e-4)
void BM_PldEpsilon_Grid(benchmark::State& state) {
  const double grid = static_cast<double>(state.range(1)) * std::ldexp(1.0, -static_cast<int>(state.range(0)));
  double e = 0.0;
  for (auto _ : state) benchmark::DoNotOptimize(e = epsilon(grid, 1e-4));
  state.counters["epsilon"] = e;
  state.counters["grid"] = grid;
}
BENCHMARK(BM_PldEpsilon_Grid)
    ->Args({12, 1})
    ->Args({13, 1})
    ->Args({14, 1})
    ->Args({15, 3})
    ->Unit(benchmark::kMillisecond);

void BM_PldEpsilon_DefaultAccuracy(benchmark::State& state) {
  double e = 0.0;
  for (auto _ : state) benchmark::DoNotOptimize(e = epsilon(0.0, 1e-4));
  state.counters["epsilon"] = e;
}
BENCHMARK(BM_PldEpsilon_DefaultAccuracy)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();

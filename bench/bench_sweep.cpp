// Throughput of `rdpdyn sweep` in process (Google Benchmark): examples/sweep_surface.toml, 100
// sigmas x 100 step counts (1 to 1000) x 100 orders = 10^6 (sigma, K, alpha) values, squared loss,
// LSI recursion, optimal gamma, epsilon at delta = 1e-5 per point.
//   build/rdpdyn_bench_sweep
// Counters: "points/s" (configurations checked, solved and converted per second) and
// "values/s" (points x orders x analyses).
#include <benchmark/benchmark.h>

#include <fstream>
#include <numeric>
#include <sstream>

#include "commands/sweep.hpp"
#include "io/sweep_config.hpp"
#include "solver/engine_registry.hpp"

namespace {

using namespace rdpdyn;

std::string example_text(bool with_delta) {
  std::ifstream in(RDPDYN_SOURCE_DIR "/examples/sweep_surface.toml");
  std::stringstream text;
  text << in.rdbuf();
  std::string s = text.str();
  if (!with_delta) s.erase(s.find("[report]"), std::string("[report]\ndelta = 1e-5\n").size());
  return s;
}

void run_surface(benchmark::State& state, bool with_delta, const std::vector<std::string>& overrides) {
  const SweepConfiguration sweep = SweepConfiguration::parse(example_text(with_delta), "sweep_surface.toml", overrides);
  const EngineRegistry engines = engine_registry(MPI_COMM_SELF);
  std::vector<std::size_t> all(sweep.spec().point_count());
  std::iota(all.begin(), all.end(), std::size_t{0});
  for (auto _ : state) {
    SweepResult r = run_sweep(
        sweep.spec(), sweep.orders(), [&](std::span<const double> v) { return sweep.point(v); }, engines, all);
    benchmark::DoNotOptimize(r.surfaces.front().R.data());
  }
  const double points = static_cast<double>(all.size());
  state.counters["points/s"] = benchmark::Counter(points, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["values/s"] =
      benchmark::Counter(points * static_cast<double>(sweep.orders().size() * sweep.spec().analyses.size()),
                         benchmark::Counter::kIsIterationInvariantRate);
}

/// The example as written: pdi and chourasia-cor2 with epsilon per point.
void BM_SweepSurface_PdiAndCor2(benchmark::State& s) { run_surface(s, true, {}); }
/// The pdi alone, R only (no delta): the 10^6-value surface of the issue.
void BM_SweepSurface_PdiOnly_NoEpsilon(benchmark::State& s) { run_surface(s, false, {"sweep.analyses=[\"pdi\"]"}); }
/// One configuration checked per point, no analysis: the cost of building the points.
void BM_SweepPointConfigurations(benchmark::State& state) {
  const SweepConfiguration sweep = SweepConfiguration::load(RDPDYN_SOURCE_DIR "/examples/sweep_surface.toml");
  const std::size_t n = sweep.spec().point_count();
  for (auto _ : state)
    for (std::size_t p = 0; p < n; ++p) benchmark::DoNotOptimize(sweep.point(sweep.spec().point(p)).spec.orders.data());
  state.counters["points/s"] =
      benchmark::Counter(static_cast<double>(n), benchmark::Counter::kIsIterationInvariantRate);
}

BENCHMARK(BM_SweepSurface_PdiAndCor2)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SweepSurface_PdiOnly_NoEpsilon)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SweepPointConfigurations)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();

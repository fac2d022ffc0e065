// Benchmarks of the characteristics engine (Google Benchmark).
//   build/rdpdyn_bench                       all benchmarks
//   build/rdpdyn_bench --benchmark_filter=Figure1
// Counters: "step_orders/s" = steps x orders processed per second; for BM_FinalRowOnly, the
// time per step and the process's peak resident set size so far.
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <cmath>
#include <string>

#include "io/config.hpp"
#include "commands/solve.hpp"
#include "models/privacy_model.hpp"
#include "solver/characteristics_engine.hpp"

namespace {

using namespace rdpdyn;

/// A 10^5-step noisy-GD schedule (two phases) on 256 log-spaced orders, with the LSI recursion
/// (C21 Lemmas 8, 9: the Gaussian-convolution closed form) or a constant LSI constant, and
/// nonlinear initial data R_0 = 1e-4 alpha^2 so that every record evaluates the transport.
RunSpec long_schedule(GammaChoice gamma, LsiKind lsi) {
  RunSpec spec;
  spec.algorithm.phases = {Phase::of(50000, 0.02, 0.02), Phase::of(50000, 0.01, 0.03)};
  spec.algorithm.n = 5000;
  spec.algorithm.sensitivity = 4.0;
  // Gaussian initialisation (finite c0): the initial curve stays in play through every step.
  spec.lsi = lsi == LsiKind::Recursion ? LsiSpec::recursion(1.0, 4.0, 1000.0) : LsiSpec::constant(1000.0);
  spec.gamma = gamma;
  for (int i = 0; i < 256; ++i) spec.orders.push_back(1.0 + std::pow(10.0, -2.0 + 6.0 * i / 255.0));
  spec.initial = PowerCurve{1e-4, 2.0};  // nonlinear: every record evaluates the transport
  if (gamma.is_optimal()) spec.initial = ZeroCurve{};
  return spec;
}

void run_long(benchmark::State& state, GammaChoice gamma, LsiKind lsi) {
  RunSpec spec = long_schedule(gamma, lsi);
  spec.record.every = state.range(0);
  const PrivacyProgram program = build_program(spec);
  for (auto _ : state) {
    double checksum = 0.0;
    solve_by_characteristics(program, spec.initial, spec.orders, {spec.record, {}},
                             [&](std::int64_t, double, double, std::span<const double> R) { checksum += R[255]; });
    benchmark::DoNotOptimize(checksum);
  }
  const double work = 1e5 * 256.0;
  state.counters["step_orders/s"] = benchmark::Counter(work, benchmark::Counter::kIsIterationInvariantRate);
}

void BM_LongSchedule_Recursion_FixedGamma(benchmark::State& s) {
  run_long(s, GammaChoice::fixed(0.5), LsiKind::Recursion);
}
void BM_LongSchedule_Recursion_OptimalGamma(benchmark::State& s) {
  run_long(s, GammaChoice::optimal(), LsiKind::Recursion);
}
void BM_LongSchedule_Constant_FixedGamma(benchmark::State& s) {
  run_long(s, GammaChoice::fixed(0.5), LsiKind::Constant);
}

// Argument: record every N steps (1 = every step: 10^5 records x 256 orders evaluated).
BENCHMARK(BM_LongSchedule_Recursion_FixedGamma)->Arg(1)->Arg(1000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_LongSchedule_Recursion_OptimalGamma)->Arg(1)->Arg(1000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_LongSchedule_Constant_FixedGamma)->Arg(1)->Arg(1000)->Unit(benchmark::kMillisecond);

/// The Figure 1 example end to end (parse, build, solve, closed forms), without file output.
void BM_Figure1Example(benchmark::State& state) {
  const RunConfig cfg = load_config(RDPDYN_SOURCE_DIR "/examples/figure1_lambda1.toml");
  EngineRegistry engines;
  engines.add(make_characteristics_engine());
  for (auto _ : state) {
    RunReport report = solve_run(cfg, engines);
    benchmark::DoNotOptimize(report.solution.R.data());
  }
}
BENCHMARK(BM_Figure1Example)->Unit(benchmark::kMillisecond);

/// `rdpdyn solve` in process on the README's memory run (noisy GD, LSI recursion, gamma = 1/2,
/// 4096 orders) recording only the final row, at 10^3 .. 10^7 steps: the program is one phase
/// and the closed forms are evaluated per record, so the time per step and the memory should not
/// grow with the number of steps.
void BM_FinalRowOnly(benchmark::State& state) {
  const std::int64_t steps = state.range(0);
  const std::string text =
      "[orders]\nmin = 1.01\nmax = 1000\ncount = 4096\n"
      "[algorithm]\nkind = \"noisy-gd\"\nsteps = " +
      std::to_string(steps) +
      "\neta = 0.02\nsigma = 0.05\nn = 5000\nsensitivity = 4.0\n"
      "[lsi]\nkind = \"recursion\"\nlambda = 1\nbeta = 4\n"
      "[analysis]\ngamma = 0.5\n"
      "[output]\nrecord_steps = [" +
      std::to_string(steps) + "]\n";
  const RunConfig cfg = parse_config_text(text, "bench");
  EngineRegistry engines;
  engines.add(make_characteristics_engine());
  for (auto _ : state) {
    RunReport report = solve_run(cfg, engines);
    benchmark::DoNotOptimize(report.solution.R.data());
  }
  state.counters["time/step"] = benchmark::Counter(
      static_cast<double>(steps), benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
  state.counters["steps/s"] =
      benchmark::Counter(static_cast<double>(steps), benchmark::Counter::kIsIterationInvariantRate);
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  state.counters["peak_rss_MiB"] = static_cast<double>(usage.ru_maxrss) / 1024.0;  // Linux: kB
}
BENCHMARK(BM_FinalRowOnly)->RangeMultiplier(10)->Range(1000, 10000000)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();

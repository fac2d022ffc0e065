// Benchmarks of the finite-difference engine (Google Benchmark; PETSc initialised in main).
//   build/rdpdyn_bench_fd
// Counters: "cell_stage/s" = cells x SSP stages x time steps per second (one process).
// BM_Petsc runs the engine (DMDA + TS, certification off); BM_HandLoop runs the same kernel,
// the same coefficients and the same SSP-RK(4,3) method in a plain loop over std::vector: their
// ratio is the PETSc overhead.
// BM_Certify runs examples/fd_optimal_nonlinear.toml's program (optimal gamma, tabulated data)
// with 400 steps, recording every step, certification on, for each certification method; the
// counter "certify_share" is not measured here (run `rdpdyn solve ... -- -log_view`: FDCertify
// against TSStep); the times compare the methods end to end.
#include <benchmark/benchmark.h>
#include <petscsys.h>

#include <cmath>
#include <vector>

#include "dynamics/pdi.hpp"
#include "models/privacy_model.hpp"
#include "solver/finite_difference_engine.hpp"
#include "solver/lsi_evaluation.hpp"

namespace {

using namespace rdpdyn;

constexpr std::int64_t kCells = 4096;
constexpr int kStages = 4;

/// A constant-LSI program whose steps each take 10 time steps on the 4096-cell grid, 1000 steps.
struct Setup {
  RunSpec spec;
  PrivacyProgram program;
  FiniteDifferenceOptions options;
};

Setup make_setup() {
  Setup s;
  s.spec.algorithm.phases = {Phase::of(1000, 0.02, 0.02)};
  s.spec.algorithm.n = 5000;
  s.spec.algorithm.sensitivity = 4.0;
  s.spec.orders = {2.0, 10.0, 30.0};
  s.spec.initial = PowerCurve{1e-4, 2.0};
  s.options.grid.cells = kCells;
  s.options.grid.alpha_min = 1.0 + 1e-6;
  s.options.grid.alpha_max = 1000.0;
  s.options.record.every = 0;
  s.options.certify = false;
  // Q (1 + 1/dy) eta / cfl = 10 time steps per program step.
  const double dy = (std::log(999.0) - std::log(1e-6)) / kCells;
  const double Q = 10.0 * s.options.grid.cfl / (0.02 * (1.0 + 1.0 / dy)) * (1.0 - 1e-9);
  s.spec.lsi = LsiSpec::constant(Q / (2.0 * 0.02 * 0.02));
  s.program = build_program(s.spec);
  return s;
}

void BM_Petsc(benchmark::State& state) {
  const Setup s = make_setup();
  std::int64_t steps = 0;
  for (auto _ : state) {
    const auto summary = solve_by_finite_differences(PETSC_COMM_WORLD, s.program, s.spec.initial, s.spec.orders,
                                                     s.options, [](auto...) {});
    steps = summary.time_steps;
  }
  state.counters["time_steps"] = static_cast<double>(steps);
  state.counters["cell_stage/s"] =
      benchmark::Counter(static_cast<double>(steps * kCells * kStages), benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_Petsc)->Unit(benchmark::kMillisecond)->Iterations(3);

void BM_HandLoop(benchmark::State& state) {
  const Setup s = make_setup();
  const double y_min = std::log(1e-6), dy = (std::log(999.0) - y_min) / kCells;
  const std::size_t n = static_cast<std::size_t>(kCells);
  // Arrays with 2 ghost cells on the left and 1 on the right, indexed from cell 0 at offset 2.
  std::vector<double> u(n + 3), u1(n + 3), u2(n + 3), u3(n + 3), f(n + 3), alpha(n);
  for (std::size_t i = 0; i < n; ++i) alpha[i] = 1.0 + std::exp(y_min + (static_cast<double>(i) + 0.5) * dy);
  const DiffusionInterval& iv = s.program.step(0).diffusion;
  const double gamma = 0.5;
  auto rhs = [&](std::vector<double>& w, double t) {
    w[1] = w[2] * alpha[0] / (1.0 + std::exp(y_min - 0.5 * dy));  // inflow closure, as the engine
    w[0] = w[2] * alpha[0] / (1.0 + std::exp(y_min - 1.5 * dy));
    w[n + 2] = w[n + 1];
    const double Q = pdi::decay_scale(iv.sigma, lsi_constant_at(iv, 0.0, t, t, alpha[0]));
    linear_pdi_rhs_uniform(w.data() + 2, (1.0 - gamma) * Q, pdi::source_rate(gamma, iv.sigma, iv.sensitivity), 0,
                           kCells, dy, Limiter::MonotonizedCentral, f.data() + 2);
  };
  const std::int64_t total_steps = 1000 * 10;
  const double dt = 0.002;
  for (auto _ : state) {
    for (std::size_t i = 0; i < n; ++i) u[i + 2] = 1e-4 * alpha[i];
    double t = 0.0;
    for (std::int64_t k = 0; k < total_steps; ++k, t = static_cast<double>(k) * dt) {
      // SSP-RK(4,3), Kraaijevanger / Ruuth: PETSc's TSSSP rks3 with 4 stages.
      rhs(u, t);
      for (std::size_t i = 2; i < n + 2; ++i) u1[i] = u[i] + dt / 2 * f[i];
      rhs(u1, t + dt / 2);
      for (std::size_t i = 2; i < n + 2; ++i) u2[i] = u1[i] + dt / 2 * f[i];
      rhs(u2, t + dt);
      for (std::size_t i = 2; i < n + 2; ++i) u3[i] = 2.0 / 3.0 * u[i] + (u2[i] + dt / 2 * f[i]) / 3.0;
      rhs(u3, t + dt / 2);
      for (std::size_t i = 2; i < n + 2; ++i) u[i] = u3[i] + dt / 2 * f[i];
    }
    benchmark::DoNotOptimize(u.data());
  }
  state.counters["cell_stage/s"] = benchmark::Counter(static_cast<double>(total_steps * kCells * kStages),
                                                      benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_HandLoop)->Unit(benchmark::kMillisecond)->Iterations(3);

void BM_Certify(benchmark::State& state) {
  // examples/fd_optimal_nonlinear.toml with `steps` steps, every one recorded.
  const auto method = static_cast<CertificationMethod>(state.range(0));
  const std::int64_t steps = state.range(1);
  RunSpec spec;
  spec.algorithm.phases = {Phase::of(steps, 0.05, 0.1)};
  spec.algorithm.n = 1000;
  spec.algorithm.sensitivity = 2.0;
  spec.lsi = LsiSpec::recursion(1.0, 4.0, 50.0);
  spec.gamma = GammaChoice::optimal();
  spec.initial = TableCurve{{1.0001, 1.5, 2, 3, 4, 8, 16, 32, 64, 256},
                            {0.0021, 0.0021, 0.0028, 0.0043, 0.0058, 0.0125, 0.0301, 0.0922, 0.441, 4.0}};
  for (int i = 0; i < 16; ++i) spec.orders.push_back(1.5 * std::pow(64.0 / 1.5, i / 15.0));
  const PrivacyProgram program = build_program(spec);
  FiniteDifferenceOptions options;
  options.grid.cells = 1024;
  options.grid.alpha_min = 1.0001;
  options.grid.alpha_max = 256.0;
  options.record.every = 1;
  options.certification = method;
  for (auto _ : state)
    solve_by_finite_differences(PETSC_COMM_WORLD, program, spec.initial, spec.orders, options, [](auto...) {});
}
// Methods: 0 Composed (the default), 1 Paths, 2 Cloud, 3 Shooting (the Odeint reference: fewer steps).
BENCHMARK(BM_Certify)
    ->Args({0, 400})
    ->Args({1, 400})
    ->Args({2, 400})
    ->Args({3, 100})
    ->Args({0, 100})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

}  // namespace

int main(int argc, char** argv) {
  int one = 1;
  PetscInitialize(&one, &argv, nullptr, nullptr);
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  PetscFinalize();
  return 0;
}

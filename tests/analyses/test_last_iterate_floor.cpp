// The linear-loss floor: on Poisson-sampled runs with algorithm.loss = "linear", the last-iterate pair
// of Steinke et al. 2025 (arXiv:2410.06186; analyses/steinke_2025.hpp) is the exact privacy of the
// last iterate, so every analysis that bounds the run must report an epsilon at or above it (its
// certified lower end). Random runs, accounting-only (noise multiplier) and in C21 units.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>

#include "analyses/analysis.hpp"
#include "analyses/steinke_2025.hpp"
#include "commands/compare.hpp"
#include "models/privacy_model.hpp"
#include "solver/characteristics_engine.hpp"

using namespace rdpdyn;

TEST_CASE("Every valid analysis stays above the exact last iterate of a linear loss", "[analyses][soundness]") {
  EngineRegistry engines;
  engines.add(make_characteristics_engine());
  std::mt19937_64 rng(20261127);
  std::uniform_real_distribution<double> U(0.0, 1.0);
  int compared = 0;
  for (int i = 0; i < 24; ++i) {
    RunConfig c;
    RunSpec& s = c.spec;
    s.algorithm.kind = AlgorithmKind::NoisySgd;
    s.algorithm.sampling = BatchSampling::Poisson;
    s.algorithm.loss = LossKind::Linear;
    s.algorithm.n = 10000;
    s.algorithm.sampling_rate = std::exp(std::log(1e-3) + U(rng) * std::log(300.0));  // 1e-3 .. 0.3
    s.algorithm.batch_size = static_cast<std::int64_t>(std::llround(s.algorithm.sampling_rate * s.algorithm.n));
    const auto steps = static_cast<std::int64_t>(1 + U(rng) * 400);
    const double z = 0.6 + 2.4 * U(rng);
    s.algorithm.noise_multiplier = z;
    s.algorithm.declares_eta = s.algorithm.declares_sensitivity = false;
    s.declares_lsi = false;
    s.algorithm.phases = {Phase::of(steps, 0.0, 0.0)};
    s.adjacency = Adjacency::AddRemove;
    s.orders = {1.5, 2, 4, 8, 16, 32};
    const double delta = U(rng) < 0.5 ? 1e-5 : 1e-8;
    s.report_delta = delta;
    const LastIterateEpsilon floor = linear_last_iterate_epsilon(steps, s.algorithm.sampling_rate, z, delta);
    const TrainingRun run = training_run_of(s);
    const AnalysisInput input{c, run, engines};
    for (const Analysis& a : analysis_registry()) {
      const ComparisonEntry e = compare_entry(a, input, s.orders, delta);
      if (!e.result.applies) continue;
      if (a.name == "steinke-last-iterate") {
        CHECK(e.status == AnalysisStatus::Exact);
        CHECK(e.epsilon >= floor.lower);
        CHECK(e.epsilon <= floor.upper * (1 + 1e-12));
        continue;
      }
      if (!bounds_the_run(e.status) || e.status == AnalysisStatus::Exact) continue;
      INFO(a.name << ": q = " << s.algorithm.sampling_rate << ", z = " << z << ", T = " << steps
                  << ", delta = " << delta);
      CHECK(e.epsilon >= floor.lower);
      ++compared;
    }
  }
  CHECK(compared >= 48);  // composition-sgm, composition-pld and gdp-composition at least, on each run
}

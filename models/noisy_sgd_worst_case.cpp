#include "models/noisy_sgd_worst_case.hpp"

#include <algorithm>
#include <stdexcept>

#include "models/privacy_model.hpp"
#include "numerics/spec_error.hpp"

namespace rdpdyn {
namespace {

/// Every record of a solve, kept.
class SolutionCollector final : public RecordObserver {
 public:
  explicit SolutionCollector(std::span<const double> orders) { solution.orders.assign(orders.begin(), orders.end()); }
  void record(const EngineRecord& row) override {
    solution.steps.push_back(row.step);
    solution.times.push_back(row.t);
    solution.lsi_constant.push_back(row.lsi_constant);
    solution.R.insert(solution.R.end(), row.R.begin(), row.R.end());
  }
  Solution solution;
};

Solution solve_with(const Engine& engine, const PrivacyProgram& program, const InitialCurve& initial,
                    std::span<const double> orders, const EngineSettings& settings) {
  SolutionCollector collector(orders);
  engine.solve(program, initial, orders, settings, collector);
  return std::move(collector.solution);
}

Solution pointwise_max(const std::vector<Solution>& all) {
  Solution out = all.front();
  for (const auto& s : all)
    for (std::size_t i = 0; i < out.R.size(); ++i) out.R[i] = std::max(out.R[i], s.R[i]);
  return out;
}

/// Shuffle: the epoch-by-epoch maximum, with w = R / alpha a single number (linear data).
Solution shuffle_worst_case(const RunSpec& spec, const Engine& engine, const EngineSettings& settings) {
  if (!is_linear_in_alpha(spec.initial))
    throw SpecError("initial.kind", "\"" + initial_curve_kind(spec.initial) + "\"",
                    "sampling = \"shuffle\" needs initial data linear in alpha (zero, linear, or power 1)");
  if (!engine.keeps_linear_data_exact())
    throw SpecError("analysis.engine", "\"" + engine.name() + "\"",
                    "sampling = \"shuffle\" carries w = R/alpha from epoch to epoch: it needs an engine that keeps "
                    "linear data exact (characteristics)");
  const std::int64_t per_epoch = static_cast<std::int64_t>(spec.algorithm.n) / spec.algorithm.batch_size;
  std::vector<PrivacyProgram> programs;
  for (std::int64_t j = 0; j < per_epoch; ++j) programs.push_back(build_noisy_sgd_program(spec, j));
  const std::int64_t total = programs.front().step_count();

  Solution out;
  out.orders = spec.orders;
  double w = linear_initial_slope(spec.initial), t = 0.0;
  double inverse_lsi = programs.front().initial_inverse_lsi;
  auto record = [&](std::int64_t step) {
    out.steps.push_back(step);
    out.times.push_back(t);
    out.lsi_constant.push_back(lsi_constant_from_inverse(inverse_lsi));
    for (double alpha : spec.orders) out.R.push_back(alpha * w);
  };
  record(0);
  const std::vector<double> one_order{2.0};
  for (std::int64_t start = 0; start < total; start += per_epoch) {
    double worst = 0.0, t_end = t, lsi_end = inverse_lsi;
    for (const auto& full : programs) {
      PrivacyProgram epoch = full.slice(start, std::min(total, start + per_epoch));
      epoch.initial_inverse_lsi = inverse_lsi;
      EngineSettings final_only = settings;
      final_only.record = RecordPlan{0, {}};
      final_only.progress = {};
      const Solution s = solve_with(engine, epoch, LinearCurve{w}, one_order, final_only);
      worst = std::max(worst, s.final_row()[0] / one_order[0]);
      t_end = t + s.times.back();
      lsi_end = 1.0 / s.lsi_constant.back();
    }
    w = worst;
    t = t_end;
    inverse_lsi = lsi_end;
    record(std::min(total, start + per_epoch));
  }
  return out;
}

}  // namespace

Solution solve_noisy_sgd_worst_case(const RunSpec& spec, const Engine& engine, const EngineSettings& settings) {
  switch (spec.algorithm.sampling) {
    case BatchSampling::PerStep:
    // Poisson sampling is treated like per-step: a release at every step. Sound: the laws of the
    // last iterate are mixtures, with the same data-independent weights on both datasets, over the
    // inclusion patterns of all records in all steps (the record is in a step's batch with
    // probability q); by joint quasi-convexity (vEH 2014, Thm 13) a bound valid for every pattern
    // bounds the mixture. The per-step program assumes the record in every batch, and its bound
    // (a release at every step) also bounds a pattern that omits it somewhere, since a step without
    // the record is data-independent and costs 0 <= the release. The release has sensitivity
    // eta S_g / b with b = q n, the expected batch size that DP-SGD divides the clipped sum by, a
    // constant (models/privacy_model.cpp). Every step runs at gamma = 1, so the LSI term vanishes
    // and the random batch size (hence the pattern-dependent gradient map) never enters: the bound
    // is the composition of the K releases. Amplification by sampling is not captured.
    case BatchSampling::Poisson:
      return solve_with(engine, build_noisy_sgd_program(spec, std::nullopt), spec.initial, spec.orders, settings);
    case BatchSampling::Shuffle:
      return shuffle_worst_case(spec, engine, settings);
    default:
      break;
  }
  const std::int64_t per_epoch = static_cast<std::int64_t>(spec.algorithm.n) / spec.algorithm.batch_size;
  std::vector<Solution> all;
  for (std::int64_t j = 0; j < per_epoch; ++j)
    all.push_back(solve_with(engine, build_noisy_sgd_program(spec, j), spec.initial, spec.orders, settings));
  return pointwise_max(all);
}

}  // namespace rdpdyn

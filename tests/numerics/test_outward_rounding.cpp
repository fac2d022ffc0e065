// Outward rounding (numerics/outward_rounding.hpp; docs/analyses.md, "Outward rounding"): no
// reported bound lies below the exact value it bounds.
//  - The squared loss of C21 Thm 3 (arXiv:2102.05855, eq. (17) and its proof, App. E; docs/math.md
//    section 3.1), whose exact divergence is computed here in 50-digit arithmetic: every recorded
//    (step, order) of a solve and every valid analysis of compare are at or above it, and the
//    tight ones (the PDI with the optimal gamma) exceed it by less than 1e-9 relative.
//  - The raw engine error against 50-digit closed forms stays below a quarter of the margin (the
//    measurement behind kMarginPerStep).
//  - The RDP -> (epsilon, delta) conversions are never below their 50-digit values.
#include <catch2/catch.hpp>

#include <algorithm>
#include <boost/multiprecision/cpp_bin_float.hpp>
#include <cmath>
#include <functional>
#include <random>
#include <vector>

#include "accounting/epsilon_delta.hpp"
#include "accounting/zcdp.hpp"
#include "accounting/gaussian_dp.hpp"
#include "commands/compare.hpp"
#include "commands/solve.hpp"
#include "models/configured_solve.hpp"
#include "models/privacy_model.hpp"
#include "numerics/outward_rounding.hpp"
#include "solver/characteristics_engine.hpp"

using namespace rdpdyn;
using Mp = boost::multiprecision::cpp_bin_float_50;

namespace {

constexpr double kU = outward::kUnitRoundoff;

struct SquaredLossRun {
  double eta, sigma, n, Sg;
  std::int64_t steps;
};

RunConfig squared_loss_config(const SquaredLossRun& p, std::vector<double> orders) {
  RunConfig c;
  RunSpec& s = c.spec;
  s.algorithm.loss = LossKind::Squared;
  s.algorithm.phases = {Phase::of(p.steps, p.eta, p.sigma)};
  s.algorithm.n = p.n;
  s.algorithm.sensitivity = p.Sg;
  s.lsi = LsiSpec::recursion(1.0, 1.0);  // the per-step LSI recursion (C21 Lemmas 8, 9), point start
  s.gamma = GammaChoice::optimal();
  s.orders = std::move(orders);
  return c;
}

/// C21 Thm 3, exact form (the last equality of its proof; docs/math.md section 3.1), in 50 digits
/// at the same double inputs: alpha S_g^2/(4 sigma^2 n^2) (2 - eta)(1 - (1-eta)^K)/(1 + (1-eta)^K).
Mp thm3_exact_mp(const SquaredLossRun& p, double alpha, std::int64_t K) {
  const Mp q = pow(1 - Mp(p.eta), K);
  return Mp(alpha) * Mp(p.Sg) * Mp(p.Sg) / (4 * Mp(p.sigma) * Mp(p.sigma) * Mp(p.n) * Mp(p.n)) * (2 - Mp(p.eta)) *
         (1 - q) / (1 + q);
}

/// (value - exact) / exact in 50 digits.
double relative_excess(double value, const Mp& exact) { return static_cast<double>((Mp(value) - exact) / exact); }

EngineRegistry characteristics_only() {
  EngineRegistry r;
  r.add(make_characteristics_engine());
  return r;
}

class Rows final : public RecordObserver {
 public:
  std::vector<std::int64_t> steps;
  std::vector<std::vector<double>> R;
  void record(const EngineRecord& row) override {
    steps.push_back(row.step);
    R.emplace_back(row.R.begin(), row.R.end());
  }
};

/// Sinks every record of `rdpdyn solve` (the same path as the HDF5 writer).
class RecordingSink final : public ReportSink {
 public:
  Rows rows;
  void begin(const RunMetadata&, std::span<const double>, const std::vector<RowSeriesSpec>&,
             const std::vector<ClosedFormLabel>&) override {}
  void record(const EngineRecord& row, const std::vector<std::span<const double>>&) override { rows.record(row); }
  void finish(const std::vector<PerOrderVector>&, const std::map<std::string, std::string>&) override {}
};

/// Several squared-loss runs: the Figure 2 setting of C21, small and large eta, sigma, n, S_g.
std::vector<SquaredLossRun> squared_loss_runs() {
  std::vector<SquaredLossRun> runs = {
      {0.02, 0.02, 5000, 4.0, 1000},  // C21 Figure 2
      {0.5, 1.0, 100, 2.0, 1200},    {0.001, 0.05, 60000, 1.0, 1500},
      {0.9, 0.3, 7, 0.5, 1000},      {0.07, 3.0, 1e5, 40.0, 2000},
  };
  std::mt19937_64 rng(20240601);
  std::uniform_real_distribution<double> U(0.0, 1.0);
  const auto log_uniform = [&](double a, double b) { return std::exp(std::log(a) + U(rng) * std::log(b / a)); };
  for (int i = 0; i < 6; ++i)
    runs.push_back({log_uniform(1e-3, 0.9), log_uniform(0.01, 10.0), std::floor(log_uniform(2.0, 1e5)),
                    log_uniform(0.1, 100.0), 1000 + static_cast<std::int64_t>(U(rng) * 1000)});
  return runs;
}

const std::vector<double> kOrders = {1.05, 1.5, 2.0, 3.7, 10.0, 32.5, 256.0};

}  // namespace

TEST_CASE("Squared loss: every recorded value of solve is at or above C21 Thm 3's exact divergence", "[outward]") {
  const EngineRegistry engines = characteristics_only();
  double worst_excess = 0.0, least_excess = 1.0;
  std::size_t values = 0;
  for (const auto& p : squared_loss_runs()) {
    INFO("eta = " << p.eta << ", sigma = " << p.sigma << ", n = " << p.n << ", S_g = " << p.Sg
                  << ", steps = " << p.steps);
    RecordingSink sink;
    const RunReport report = solve_run(squared_loss_config(p, kOrders), engines, &sink);
    const Rows& rows = sink.rows;
    REQUIRE(rows.steps.back() == p.steps);
    REQUIRE(rows.steps.size() == static_cast<std::size_t>(p.steps) + 1);  // every step recorded
    for (std::size_t r = 0; r < rows.steps.size(); ++r) {
      if (rows.steps[r] == 0) {
        for (double v : rows.R[r]) REQUIRE(v == 0.0);  // identical starts: exactly 0
        continue;
      }
      for (std::size_t j = 0; j < kOrders.size(); ++j) {
        const double excess = relative_excess(rows.R[r][j], thm3_exact_mp(p, kOrders[j], rows.steps[r]));
        INFO("step " << rows.steps[r] << ", alpha = " << kOrders[j] << ": excess " << excess);
        REQUIRE(excess >= 0.0);
        REQUIRE(excess < 1e-9);
        worst_excess = std::max(worst_excess, excess);
        least_excess = std::min(least_excess, excess);
        ++values;
      }
    }
    // The final row of the report is the last record.
    for (std::size_t j = 0; j < kOrders.size(); ++j) REQUIRE(report.solution.R[j] == rows.R.back()[j]);
  }
  std::printf("outward rounding, squared loss: %zu values, relative excess over the exact divergence in [%.3g, %.3g]\n",
              values, least_excess, worst_excess);
  CHECK(worst_excess < 2.0 * outward::recursion_margin(2000));  // the margin, not more
}

TEST_CASE("Squared loss: every valid analysis of compare is at or above the exact divergence", "[outward]") {
  const EngineRegistry engines = characteristics_only();
  for (const auto& p : squared_loss_runs()) {
    INFO("eta = " << p.eta << ", sigma = " << p.sigma << ", n = " << p.n << ", S_g = " << p.Sg
                  << ", steps = " << p.steps);
    RunConfig config = squared_loss_config(p, kOrders);
    config.spec.report_delta = 1e-5;
    const Comparison c = run_comparison(config, engines);
    int valid = 0;
    for (const auto& e : c.entries) {
      if (!e.result.applies) continue;
      INFO(e.result.name);
      if (e.status == AnalysisStatus::LowerBound) {  // C21 Thm 3's lower bound: at or below, rounded down
        for (std::size_t j = 0; j < kOrders.size(); ++j)
          REQUIRE(relative_excess(e.result.R[j], thm3_exact_mp(p, kOrders[j], p.steps)) <= 0.0);
        continue;
      }
      REQUIRE(bounds_the_run(e.status));
      ++valid;
      for (std::size_t j = 0; j < kOrders.size(); ++j) {
        const double excess = relative_excess(e.result.R[j], thm3_exact_mp(p, kOrders[j], p.steps));
        REQUIRE(excess >= 0.0);
        if (e.result.name == "pdi") REQUIRE(excess < 1e-9);  // the tight one
      }
      if (e.result.mu) {
        // A Gaussian-DP entry: epsilon at least the exact profile of the two Gaussian laws, whose GDP
        // parameter is sqrt(2 R_alpha / alpha) of C21 Thm 3 (docs/analyses.md, "Gaussian-DP entries").
        const double exact_mu = std::sqrt(2.0 * static_cast<double>(thm3_exact_mp(p, 2.0, p.steps)) / 2.0);
        CHECK(*e.result.mu >= exact_mu * (1 - 1e-15));
        CHECK(e.epsilon >= gdp_epsilon(exact_mu, 1e-5) * (1 - 1e-12));
        continue;
      }
      // epsilon is a certificate: at least the exact conversion of the exact divergence there.
      const double exact_at_order =
          static_cast<double>(thm3_exact_mp(p, e.best_order, p.steps));  // rounding of this is 1e-16
      CHECK(e.epsilon >= epsilon_improved(e.best_order, exact_at_order, 1e-5) * (1 - 1e-14));
    }
    CHECK(valid >= 3);  // at least chourasia-cor2, composition-gaussian and pdi
    for (std::size_t j = 0; j < kOrders.size(); ++j)
      REQUIRE(relative_excess(c.best_R[j], thm3_exact_mp(p, kOrders[j], p.steps)) >= 0.0);
  }
}

TEST_CASE("Raw engine error stays below a quarter of the margin (the measurement behind it)", "[outward]") {
  // The unrounded characteristics engine against 50-digit values of the same closed forms: the
  // squared loss with the optimal gamma (C21 Thm 3 exact), with gamma = 1/2 (C21 Cor 2), a
  // constant LSI constant with a fixed gamma (C21 Thm 2), and transported nonlinear initial data
  // (docs/math.md section 2.3). The largest error found is below margin(k) / 4 = (k + 16) u,
  // i.e. the margin has a safety factor of at least 4 over these measurements.
  // max over values of |raw - exact| / ((k + 16) u), and of the shortfall (exact - raw) / ((k + 16) u),
  // which is what the margin must cover. The transport path lowers each interval's transport by
  // 16 u on purpose (solver/characteristics_engine.cpp): its excess is deliberate, only its
  // shortfall counts.
  double worst = 0.0, worst_shortfall = 0.0;
  const auto track = [&](double raw, const Mp& exact, std::int64_t k, bool biased = false) {
    if (exact == 0) return;
    const double rel = relative_excess(raw, exact), scale = (static_cast<double>(k) + 16.0) * kU;
    if (!biased) worst = std::max(worst, std::abs(rel) / scale);
    worst_shortfall = std::max(worst_shortfall, -rel / scale);
  };
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> U(0.0, 1.0);
  const auto log_uniform = [&](double a, double b) { return std::exp(std::log(a) + U(rng) * std::log(b / a)); };
  for (int i = 0; i < 12; ++i) {
    const SquaredLossRun p{log_uniform(1e-3, 0.9), log_uniform(0.01, 10.0), std::floor(log_uniform(2.0, 1e5)),
                           log_uniform(0.1, 100.0), 1500};
    RunSpec spec = squared_loss_config(p, kOrders).spec;
    const Solution opt = solve_by_characteristics(build_program(spec), spec.initial, spec.orders);
    for (std::size_t r = 0; r < opt.record_count(); ++r)
      for (std::size_t j = 0; j < kOrders.size(); ++j)
        track(opt.row(r)[j], thm3_exact_mp(p, kOrders[j], opt.steps[r]), opt.steps[r]);

    spec.lsi = LsiSpec::squared_loss();  // c = (2 - eta)/(2 sigma^2), gamma = 1/2: C21 Cor 2, eq. (18)
    spec.gamma = GammaChoice::fixed(0.5);
    const Solution cor2 = solve_by_characteristics(build_program(spec), spec.initial, spec.orders);
    const Mp e = Mp(p.eta), s2 = Mp(p.sigma) * Mp(p.sigma), Sv2 = Mp(p.Sg) * Mp(p.Sg) / (Mp(p.n) * Mp(p.n));
    for (std::size_t r = 0; r < cor2.record_count(); ++r)
      for (std::size_t j = 0; j < kOrders.size(); ++j)
        track(cor2.row(r)[j], Mp(kOrders[j]) * Sv2 / ((2 - e) * s2) * (1 - exp(-(2 - e) * e * cor2.steps[r] / 2)),
              cor2.steps[r]);

    // Constant c, fixed gamma, initial data R_0 = kappa alpha^2 (transport): docs/math.md 2.3,
    // R = alpha [e^{-A} kappa alpha_0 + S_v^2 (1 - e^{-A}) / (8 gamma (1 - gamma) sigma^4 c)].
    const double gamma = 0.05 + 0.9 * U(rng), c = log_uniform(1e-3, 1e3) / (p.sigma * p.sigma),
                 kappa = log_uniform(1e-4, 1.0);
    spec.algorithm.loss = LossKind::Generic;
    spec.lsi = LsiSpec::constant(c);
    spec.gamma = GammaChoice::fixed(gamma);
    spec.initial = PowerCurve{kappa, 2.0};
    const Solution tr = solve_by_characteristics(build_program(spec), spec.initial, spec.orders);
    const Mp g = Mp(gamma), cc = Mp(c);
    for (std::size_t r = 0; r < tr.record_count(); ++r) {
      const Mp A = 2 * (1 - g) * s2 * cc * e * tr.steps[r];
      for (std::size_t j = 0; j < kOrders.size(); ++j) {
        const Mp alpha0 = 1 + (Mp(kOrders[j]) - 1) * exp(-A);
        track(tr.row(r)[j],
              Mp(kOrders[j]) * (exp(-A) * Mp(kappa) * alpha0 + Sv2 * (1 - exp(-A)) / (8 * g * (1 - g) * s2 * s2 * cc)),
              tr.steps[r], true);
      }
    }
  }
  std::printf(
      "outward rounding: largest raw engine error %.3g (k + 16) u, largest shortfall %.3g (k + 16) u "
      "(margin: %g (k + 16) u)\n",
      worst, worst_shortfall, outward::kMarginPerStep);
  CHECK(worst <= outward::kMarginPerStep / 4.0);
  CHECK(worst_shortfall <= outward::kMarginPerStep / 4.0);
}

TEST_CASE("The conversions to (epsilon, delta) are never below their 50-digit values", "[outward]") {
  const auto exact_epsilon = [](double a, double R, double d) {  // Balle et al. 2020 Thm 21
    const Mp A = a;
    return Mp(R) + log((A - 1) / A) - (log(Mp(d)) + log(A)) / (A - 1);
  };
  double worst_excess = 0.0;  // (reported - exact) / (u * magnitude of the terms)
  for (double a : {1.0001, 1.001, 1.05, 1.5, 2.0, 3.7, 10.0, 64.0, 1e3, 1e4})
    for (double R : {0.0, 1e-9, 1e-4, 0.3, 2.0, 50.0})
      for (double d : {1e-12, 1e-5, 0.01, 0.3, 0.9}) {
        INFO("alpha = " << a << ", R = " << R << ", delta = " << d);
        const Mp exact = exact_epsilon(a, R, d);
        const double eps = epsilon_improved(a, R, d);
        if (exact > 0) {
          REQUIRE(Mp(eps) >= exact);
          const double magnitude =
              R + std::abs(std::log1p(-1 / a)) + a / (a - 1) + (std::abs(std::log(d)) + std::log(a)) / (a - 1);
          worst_excess = std::max(worst_excess, static_cast<double>((Mp(eps) - exact) / (kU * magnitude)));
        } else {
          REQUIRE(eps >= 0.0);
        }
        REQUIRE(Mp(epsilon_mironov(a, R, d)) >= Mp(R) - log(Mp(d)) / (Mp(a) - 1));
        {  // Asoodeh et al. 2021 (accounting/epsilon_delta.hpp): ln(1 + expm1((a-1)R)/(a d))/(a-1)
          const Mp A = a, t = (A - 1) * Mp(R);
          const Mp exact_as = log(1 + (exp(t) - 1) / (A * Mp(d))) / (A - 1);
          const double as = epsilon_asoodeh(a, R, d);
          REQUIRE(Mp(as) >= exact_as);
          if (exact_as > 0) REQUIRE(static_cast<double>((Mp(as) - exact_as) / exact_as) < 1e-13);
          if (R > 0) {
            const Mp e = exact_as + Mp(0.5), d_as = (exp(t) - 1) / (A * (exp((A - 1) * e) - 1));
            REQUIRE(Mp(delta_asoodeh(a, R, static_cast<double>(e))) >= std::min(Mp(1), d_as));
          }
        }
        // The inverse: delta at epsilon = the exact epsilon + 0.5 (CKS 2020 Prop. 12 form).
        const double target = static_cast<double>(exact) + 0.5;
        if (target > 0) {
          const Mp A = a;
          const Mp log_delta = (A - 1) * (Mp(R) - Mp(target) + log((A - 1) / A)) - log(A);
          REQUIRE(Mp(delta_improved(a, R, target)) >= std::min(Mp(1), exp(log_delta)));
          REQUIRE(Mp(delta_mironov(a, R, target)) >= std::min(Mp(1), exp((A - 1) * (Mp(R) - Mp(target)))));
        }
      }
  // Bun & Steinke 2016 Prop. 1.3 (accounting/zcdp.hpp): rho + 2 sqrt(rho ln(1/delta)).
  for (double rho : {1e-12, 1e-6, 0.01, 0.5, 40.0})
    for (double d : {1e-12, 1e-5, 0.3}) {
      const Mp exact_bs = Mp(rho) + 2 * sqrt(Mp(rho) * -log(Mp(d)));
      REQUIRE(Mp(epsilon_zcdp_bun_steinke(rho, d)) >= exact_bs);
    }
  std::printf("outward rounding: largest epsilon excess %.3g u x (sum of the terms' magnitudes)\n", worst_excess);
  CHECK(worst_excess < 16.0);  // the 8 u margin, one double, and the computation's own error
}

TEST_CASE("round_up and round_down move by the margin and one double, and keep zeros", "[outward]") {
  CHECK(outward::round_up(0.0, 1e-3) == 0.0);
  CHECK(std::isinf(outward::round_up(INFINITY, 1e-3)));
  CHECK(outward::round_up(1.0, 0.0) == std::nextafter(1.0, 2.0));
  CHECK(outward::round_up(1.0, 1e-10) > 1.0 + 1e-10 * (1 - 1e-6));
  CHECK(outward::round_up(-1.0, 1e-10) > -1.0);
  CHECK(outward::round_down(1.0, 1e-10) < 1.0 - 1e-10 * (1 - 1e-6));
  CHECK(outward::recursion_margin(0) == 64 * kU);
  CHECK(outward::recursion_margin(1000) == 4 * 1016 * kU);
}

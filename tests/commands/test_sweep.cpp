// `rdpdyn sweep`: a 3-axis surface against C21's closed forms at every point, epsilon per point
// against the conversion of its R, invalid points, axis rules, and the split of points over ranks.
// Characteristics engine only: this executable does not initialise PETSc (or MPI).
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "accounting/epsilon_delta.hpp"
#include "accounting/zcdp.hpp"
#include "analyses/analysis.hpp"
#include "analyses/closed_form_curves.hpp"
#include "commands/sweep.hpp"
#include "io/sweep_config.hpp"
#include "models/configured_solve.hpp"
#include "models/privacy_model.hpp"
#include "numerics/spec_error.hpp"
#include "solver/engine_registry.hpp"

using namespace rdpdyn;

namespace {

// C21 Figure 2's setting (squared loss, point start) with the LSI recursion and the optimal
// gamma: the PDI's solution is then C21 Thm 3's exact divergence (docs/math.md section 3.1).
const std::string kSurface = R"(
[orders]
values = [1.5, 2, 4, 10, 32, 100]
[algorithm]
kind = "noisy-gd"
loss = "squared"
steps = 10
eta = 0.02
sigma = 0.02
n = 5000
sensitivity = 4.0
[lsi]
kind = "recursion"
[analysis]
gamma = "optimal"
[report]
delta = 1e-5
[sweep]
analyses = ["pdi", "chourasia-cor2"]
[[sweep.axis]]
key = "algorithm.sigma"
range = { start = 0.01, stop = 1.0, count = 4, scale = "log" }
[[sweep.axis]]
key = "algorithm.eta"
values = [0.005, 0.02, 0.3]
[[sweep.axis]]
key = "algorithm.steps"
values = [1, 7, 100, 2000]
)";

std::vector<std::size_t> every_point(const SweepSpec& spec) {
  std::vector<std::size_t> all(spec.point_count());
  std::iota(all.begin(), all.end(), std::size_t{0});
  return all;
}

SweepResult run_all(const SweepConfiguration& sweep, const EngineRegistry& engines) {
  return run_sweep(
      sweep.spec(), sweep.orders(), [&](std::span<const double> v) { return sweep.point(v); }, engines,
      every_point(sweep.spec()));
}

/// The closed form `name` at the last step of the point's run, at every order.
std::vector<double> closed_form_at_end(const RunSpec& spec, const std::string& name) {
  ClosedFormRows forms(spec);
  const std::int64_t K = spec.total_steps();
  const auto& rows = forms.evaluate(K, spec.algorithm.phases.front().eta * static_cast<double>(K));
  for (std::size_t i = 0; i < forms.labels().size(); ++i)
    if (forms.labels()[i].name == name) return rows[i];
  FAIL("closed form " << name << " does not apply");
  return {};
}

std::size_t surface_index(const SweepResult& r, const std::string& name) {
  for (std::size_t i = 0; i < r.surfaces.size(); ++i)
    if (r.surfaces[i].name == name) return i;
  FAIL("no surface " << name);
  return 0;
}

}  // namespace

TEST_CASE(
    "sweep: the pdi equals C21 Thm 3's exact divergence and chourasia-cor2 equals Cor 2 at every point of a 3-axis "
    "surface") {
  const SweepConfiguration sweep = SweepConfiguration::parse(kSurface, "surface.toml");
  const EngineRegistry engines = engine_registry(MPI_COMM_SELF);
  const SweepResult r = run_all(sweep, engines);
  const std::size_t K = r.orders.size();
  REQUIRE(r.spec.point_count() == 4 * 3 * 4);
  REQUIRE(r.valid_points() == 48);
  const SweepSurface& pdi = r.surfaces[surface_index(r, "pdi")];
  const SweepSurface& cor2 = r.surfaces[surface_index(r, "chourasia-cor2")];
  const Analysis& cor2_analysis = *find_analysis("chourasia-cor2");
  double worst_gap = 0.0;
  int asoodeh_points = 0, zcdp_points = 0;
  for (std::size_t p = 0; p < r.spec.point_count(); ++p) {
    const std::vector<double> v = r.spec.point(p);
    const RunConfig config = sweep.point(v);
    // The point's configuration carries its axis values (row-major, last axis fastest).
    CHECK(config.spec.algorithm.phases.front().sigma == v[0]);
    CHECK(config.spec.algorithm.phases.front().eta == v[1]);
    CHECK(config.spec.total_steps() == static_cast<std::int64_t>(v[2]));
    const std::vector<double> exact = closed_form_at_end(config.spec, "thm3-exact");
    const std::vector<double> cor2_form = closed_form_at_end(config.spec, "cor2");
    for (std::size_t j = 0; j < K; ++j) {
      const double R = pdi.R[p * K + j];
      CHECK(R >= exact[j]);  // an upper bound of the exact divergence, to the last digit
      CHECK(R == Approx(exact[j]).epsilon(1e-9));
      worst_gap = std::max(worst_gap, (R - exact[j]) / exact[j]);
      CHECK(cor2.R[p * K + j] >= cor2_form[j]);
      // Equal up to the registry's outward rounding, 4 (K + 16) u relative (docs/analyses.md).
      CHECK(cor2.R[p * K + j] == Approx(cor2_form[j]).epsilon(4.0 * (v[2] + 17) * 1.2e-16));
    }
    // epsilon is the conversion the point names (docs/analyses.md section 4: the smallest of the
    // conversions; the improved one, Balle et al. 2020 Thm 21, except at small R where Asoodeh et
    // al.'s goes below its floor) of the point's own R at the order it reports, and no larger than
    // the improved conversion at any listed order.
    const double delta = 1e-5;
    REQUIRE(r.delta[p] == delta);
    const auto named = [&](const std::string& name, double alpha, double R) {
      INFO("conversion " << name);
      REQUIRE((name == "improved" || name == "asoodeh" || name == "mironov"));
      return name == "improved"  ? epsilon_improved(alpha, R, delta)
             : name == "asoodeh" ? epsilon_asoodeh(alpha, R, delta)
                                 : epsilon_mironov(alpha, R, delta);
    };
    const double slope_R = linear_rdp_slope(config, configured_engine(config, engines), r.orders,
                                            std::span<const double>(pdi.R).subspan(p * K, K))
                               .value();
    if (pdi.conversion[p] == "zcdp") {
      // R = alpha w: the zCDP route (accounting/zcdp.hpp) wins only beyond the window [1.001, 1e4].
      CHECK(pdi.epsilon[p] == Approx(epsilon_zcdp(slope_R, delta).epsilon).epsilon(1e-12));
      CHECK(pdi.best_order[p] > 1e4);
      ++zcdp_points;
    } else {
      CHECK(pdi.epsilon[p] ==
            Approx(named(pdi.conversion[p], pdi.best_order[p], linear_rdp_at(pdi.best_order[p], slope_R)))
                .epsilon(1e-12));
    }
    const TrainingRun run = training_run_of(config.spec);
    const double at_best[] = {cor2.best_order[p]};
    const AnalysisResult cor2_at_best = cor2_analysis.assess({config, run, engines}, at_best);
    CHECK(cor2.epsilon[p] == Approx(named(cor2.conversion[p], at_best[0], cor2_at_best.R[0])).epsilon(1e-12));
    asoodeh_points += cor2.conversion[p] == "asoodeh";
    for (std::size_t j = 0; j < K; ++j) {
      CHECK(pdi.epsilon[p] <= epsilon_improved(r.orders[j], pdi.R[p * K + j], delta) * (1 + 1e-15));
      CHECK(cor2.epsilon[p] <= epsilon_improved(r.orders[j], cor2.R[p * K + j], delta) * (1 + 1e-15));
    }
    CHECK(pdi.reason[p].empty());
  }
  INFO("largest relative gap pdi - thm3-exact: " << worst_gap);
  CHECK(worst_gap < 1e-9);
  // The surface reaches R small enough for Asoodeh et al.'s conversion to attain epsilon somewhere.
  CHECK(asoodeh_points > 0);
  INFO("points where the zCDP route attains pdi's epsilon: " << zcdp_points);
}

TEST_CASE("sweep: a point that breaks a rule gets NaN and its reason; the others are evaluated") {
  const SweepConfiguration sweep = SweepConfiguration::parse(
      kSurface, "surface.toml", {"sweep.axis[1].values=[0.02, 1.5]"});  // eta < 1 for the squared loss
  const SweepResult r = run_all(sweep, engine_registry(MPI_COMM_SELF));
  REQUIRE(r.valid_points() == 16);
  const std::size_t K = r.orders.size();
  for (std::size_t p = 0; p < r.spec.point_count(); ++p) {
    const bool bad = r.spec.point(p)[1] == 1.5;
    CHECK(r.invalid[p].empty() == !bad);
    for (const auto& s : r.surfaces) {
      CHECK(std::isnan(s.R[p * K]) == bad);
      CHECK(std::isnan(s.epsilon[p]) == bad);
      if (bad) CHECK(s.reason[p].find("'algorithm.eta' = 1.5: must be < 1 for the squared loss") != std::string::npos);
    }
  }
  CHECK(r.first_invalid().find("algorithm.eta") != std::string::npos);
}

TEST_CASE("sweep: an analysis that does not apply gives its reason at the point") {
  // chourasia-cor1 needs lsi.kind = "strongly-convex": every point of this run refuses it.
  const SweepConfiguration sweep =
      SweepConfiguration::parse(kSurface, "surface.toml", {"sweep.analyses=[\"chourasia-cor1\", \"best\"]"});
  const SweepResult r = run_all(sweep, engine_registry(MPI_COMM_SELF));
  REQUIRE(r.valid_points() == 48);
  CHECK(std::isnan(r.surfaces[0].epsilon[5]));
  CHECK_FALSE(r.surfaces[0].reason[5].empty());
  // best: the smallest epsilon among the eligible analyses, with its name.
  const SweepSurface& best = r.surfaces[1];
  for (std::size_t p = 0; p < r.spec.point_count(); ++p) {
    CHECK(std::isfinite(best.epsilon[p]));
    CHECK_FALSE(best.chosen[p].empty());
    CHECK(find_analysis(best.chosen[p]) != nullptr);
  }
}

TEST_CASE("sweep: the axes and analyses are checked before any point runs", "[slow]") {
  auto error_of = [](const std::vector<std::string>& sets) -> std::string {
    try {
      SweepConfiguration::parse(kSurface, "surface.toml", sets);
    } catch (const SpecError& e) {
      return e.what();
    }
    return "no error";
  };
  CHECK(error_of({"sweep.analyses=[\"pdi\", \"nope\"]"})
            .find("'sweep.analyses[1]' = \"nope\": must be \"best\" or one of") == 0);
  CHECK(error_of({"sweep.analyses=[\"pdi\", \"pdi\"]"}).find("is listed twice") != std::string::npos);
  CHECK(error_of({"sweep.axis[0].key=\"orders.values\""}).find("the orders are the last dimension") !=
        std::string::npos);
  CHECK(error_of({"sweep.axis[1].key=\"algorithm.sigma\""})
            .find("'sweep.axis[1].key' = \"algorithm.sigma\": is already an axis") == 0);
  CHECK(error_of({"sweep.axis[1].range={start = 1, stop = 2, count = 3}"}).find("give exactly one of values") !=
        std::string::npos);
  CHECK(error_of({"sweep.axis[0].range={start = 0, stop = 1, count = 3, scale = \"log\"}"})
            .find("'sweep.axis[0].range.start' = 0: must be > 0 on a log scale") == 0);
  CHECK(error_of({"sweep.axis[0].range={start = 0.1, stop = 1, count = 1}"}).find("must be >= 2") != std::string::npos);
  CHECK(error_of({"sweep.axis[1].values=[0.1, 0.2, 0.1]"}).find("each value of an axis must appear once") !=
        std::string::npos);
  CHECK(error_of({"sweep.axis[1].values=[]"}).find("must list at least one value") != std::string::npos);
  CHECK(error_of({"sweep.axis[1].values=[0.1, \"x\"]"}).find("'sweep.axis[1].values[1]' = \"x\": must be a number") ==
        0);
  CHECK(error_of({"sweep.axis[1].step=3"}).find("'sweep.axis[1].step' = 3: unknown key") == 0);
  CHECK(error_of({"sweep.axis[1].values=[0.1, inf]"}).find("must be a finite number") != std::string::npos);
  CHECK(error_of({"sweep.axis[1].values=[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20]",
                  "sweep.axis[0].range={start = 0.01, stop = 1.0, count = 100000000, scale = \"log\"}"})
            .find("exceeds") != std::string::npos);
  // One axis past the limit is refused before its values are made (count = 2^62 would fill the memory).
  CHECK(error_of({"sweep.axis[0].range={start = 0.01, stop = 1.0, count = 4611686018427387904}"})
            .find("'sweep.axis[0].range.count' = 4611686018427387904: must be <= ") == 0);
  // Integer values past 2^53 (int64 max is 2^63 as a double: an undefined conversion).
  CHECK(error_of({"sweep.axis[2].values=[1, 9223372036854775807]"})
            .find("'sweep.axis[2].values' = 9.223372036854776e+18: integer values must lie within") == 0);
  CHECK(error_of({"sweep.axis[0].range={start = 0, stop = 9223372036854775807, count = 2}"})
            .find("integer values must lie within") != std::string::npos);
  // `solve` and the other one-point commands refuse a [sweep] table instead of ignoring it.
  try {
    SweepConfiguration::parse("[orders]\nvalues = [2]\n", "x.toml");
    FAIL("no error");
  } catch (const SpecError& e) {
    CHECK(std::string(e.what()).find("needs a [sweep] table") != std::string::npos);
  }
}

TEST_CASE("sweep: ranges keep their ends exactly; integer ranges are rounded and kept once") {
  const std::vector<double> lin = sweep_range(0.1, 0.7, 4, false);
  CHECK(lin.front() == 0.1);
  CHECK(lin.back() == 0.7);
  CHECK(lin[1] == Approx(0.3).epsilon(1e-15));
  const std::vector<double> lg = sweep_range(1e-3, 10.0, 5, true);
  CHECK(lg.front() == 1e-3);
  CHECK(lg.back() == 10.0);
  CHECK(lg[2] == Approx(0.1).epsilon(1e-14));
  const SweepConfiguration sweep = SweepConfiguration::parse(
      kSurface, "surface.toml",
      {"sweep.axis[2]={key = \"algorithm.steps\", range = {start = 1, stop = 1000, count = 10, scale = \"log\"}}"});
  const std::vector<double> steps = sweep.spec().axes[2].values;
  CHECK(steps == std::vector<double>{1, 2, 5, 10, 22, 46, 100, 215, 464, 1000});
  CHECK(sweep.spec().axes[2].integer);
  CHECK(sweep.point(std::vector<double>{0.1, 0.02, 46}).spec.total_steps() == 46);
}

TEST_CASE("sweep: points evaluated in any split give the same values bitwise; ranks are balanced by cost") {
  const SweepConfiguration sweep = SweepConfiguration::parse(kSurface, "surface.toml");
  const EngineRegistry engines = engine_registry(MPI_COMM_SELF);
  const SweepResult whole = run_all(sweep, engines);
  std::vector<double> costs;
  for (std::size_t p = 0; p < sweep.spec().point_count(); ++p)
    costs.push_back(sweep.estimated_cost(sweep.spec().point(p)));
  const std::vector<int> owner = balance_points(costs, 2);
  double load[2] = {0, 0};
  for (std::size_t p = 0; p < owner.size(); ++p) load[owner[p]] += costs[p];
  CHECK(std::abs(load[0] - load[1]) <= *std::max_element(costs.begin(), costs.end()));
  CHECK(balance_points(costs, 2) == owner);  // deterministic
  std::vector<std::size_t> odd;
  for (std::size_t p = 0; p < owner.size(); ++p)
    if (owner[p] == 1) odd.push_back(p);
  const SweepResult part = run_sweep(
      sweep.spec(), sweep.orders(), [&](std::span<const double> v) { return sweep.point(v); }, engines, odd);
  const std::size_t K = whole.orders.size();
  for (const std::size_t p : odd)
    for (std::size_t s = 0; s < whole.surfaces.size(); ++s) {
      CHECK(std::memcmp(&whole.surfaces[s].R[p * K], &part.surfaces[s].R[p * K], K * sizeof(double)) == 0);
      CHECK(std::memcmp(&whole.surfaces[s].epsilon[p], &part.surfaces[s].epsilon[p], sizeof(double)) == 0);
    }
}

TEST_CASE("A sweep's sizes are limited before any value is made", "[sweep][limits]") {
  // A range's count is checked before its values are computed (2^62 would allocate for minutes).
  try {
    SweepConfiguration::parse(kSurface, "surface.toml",
                              {"sweep.axis[0].range={ start = 0.01, stop = 1.0, count = 4611686018427387904 }"});
    FAIL("accepted");
  } catch (const SpecError& e) {
    CHECK(e.key() == "sweep.axis[0].range.count");
    CHECK(e.value() == "4611686018427387904");
    CHECK_THAT(e.rule(), Catch::Contains("2^28") && Catch::Contains("Limits"));
  }
  // Axes each within the limit whose product is not: refused as soon as the product exceeds it
  // (computed in double, so it cannot wrap around).
  try {
    SweepConfiguration::parse(
        kSurface, "surface.toml",
        {"sweep.axis[0].range={ start = 0.01, stop = 1.0, count = 100000 }",
         "sweep.axis[1]={ key = \"algorithm.eta\", range = { start = 0.001, stop = 0.3, count = 100000 } }"});
    FAIL("accepted");
  } catch (const SpecError& e) {
    CHECK(e.key() == "sweep.axis");
    CHECK(e.value() == "10000000000 points");
    CHECK_THAT(e.rule(), Catch::Contains("split the sweep"));
  }
}

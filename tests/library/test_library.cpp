// The public C++ API (library/, docs/library.md): runs built in code read like their TOML text,
// with the loader's checks; Session's numbers are those of the commands' own functions.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "commands/compare.hpp"
#include "commands/solve.hpp"
#include "io/config.hpp"
#include "library/rdpdyn.hpp"
#include "solver/engine_registry.hpp"

using namespace rdpdyn;

namespace {

RunBuilder noisy_gd() {
  RunBuilder b;
  b.set("orders.values", std::vector<double>{2, 10, 30})
      .set("algorithm.kind", "noisy-gd")
      .set("algorithm.steps", 200)
      .set("algorithm.eta", 0.02)
      .set("algorithm.sigma", 0.05)
      .set("algorithm.n", 5000.0)
      .set("algorithm.sensitivity", 4.0)
      .set("lsi.kind", "strongly-convex")
      .set("lsi.lambda", 1.0)
      .set("lsi.beta", 4.0)
      .set("output.record_every", 50)
      .set("report.delta", 1e-5);
  return b;
}

struct Rows final : RecordObserver {
  std::vector<std::int64_t> steps;
  std::vector<std::vector<double>> R;
  void record(const EngineRecord& row) override {
    steps.push_back(row.step);
    R.emplace_back(row.R.begin(), row.R.end());
  }
};

}  // namespace

TEST_CASE("RunBuilder writes one table per first key part, floats as TOML floats, strings escaped") {
  RunBuilder b;
  b.set("algorithm.n", 10.0).set("orders.values", std::vector<double>{2, 1e-5}).set("algorithm.kind", "a\"b\\c");
  b.set("algorithm.n", 12.5).set("report.include_disputed", true).set_toml("grid.range", "{ a = 1 }");
  CHECK(b.toml() ==
        "[algorithm]\nn = 12.5\nkind = \"a\\\"b\\\\c\"\n\n[orders]\nvalues = [2.0, 1e-05]\n\n[report]\n"
        "include_disputed = true\n\n[grid]\nrange = { a = 1 }\n");
  CHECK_THROWS_AS(b.set("sigma", 1.0), SpecError);                      // no table
  CHECK_THROWS_AS(b.set("algorithm.schedule[0].eta", 1.0), SpecError);  // not a bare key
}

TEST_CASE("A run built in code is the run of its TOML text, with the loader's checks and messages") {
  const RunBuilder b = noisy_gd();
  const RunConfig built = b.build();
  const RunConfig parsed = parse_config_text(b.toml(), "<code>");
  CHECK(built.text == parsed.text);
  CHECK(built.spec.orders == std::vector<double>{2, 10, 30});
  CHECK(built.spec.total_steps() == 200);
  RunBuilder bad = noisy_gd();
  bad.set("algorithm.sigma", -1.0);
  try {
    (void)bad.build();
    FAIL("a negative sigma was accepted");
  } catch (const SpecError& e) {
    CHECK(e.key() == "algorithm.sigma");
  }
}

TEST_CASE("Session: records, epsilon and analyses equal solve_run's and compare's") {
  const RunConfig run = noisy_gd().build();
  const Session session;
  Rows rows;
  const EngineSummary summary = session.solve(run, rows);
  REQUIRE(rows.steps == std::vector<std::int64_t>{0, 50, 100, 150, 200});
  CHECK(rows.R.back() == summary.final_R);

  const EngineRegistry engines = engine_registry(MPI_COMM_SELF);
  const RunReport report = solve_run(run, engines);
  CHECK(summary.final_R == report.solution.R);
  const EpsilonAtOrder e = session.epsilon(run, summary.final_R, 1e-5);
  CHECK(format_number(e.epsilon) == report.extra_attributes.at("epsilon"));
  CHECK(format_number(e.order) == report.extra_attributes.at("best_order"));

  const Comparison c = run_comparison(run, engines);
  for (const auto& entry : c.entries) {
    const ComparisonEntry one = session.analyse(run, entry.result.name);
    CHECK(one.result.applies == entry.result.applies);
    CHECK(one.result.R == entry.result.R);
    CHECK(one.status == entry.status);
    if (entry.result.applies) CHECK(one.epsilon == entry.epsilon);
  }
  CHECK(std::isnan(session.analyse(run, "pdi", std::nullopt).epsilon) == false);
  CHECK(session.analyse(run, "chourasia-cor1", 1e-3).epsilon < session.analyse(run, "chourasia-cor1").epsilon);
  CHECK_THROWS_AS(session.analyse(run, "no-such-analysis"), SpecError);
  CHECK(session.engine_names() == std::vector<std::string>{"characteristics", "reference", "finite-difference"});
  CHECK(session.analysis_names().size() == analysis_registry().size());
}

TEST_CASE("Session: the reference engine by name, within 1e-7 above the characteristics engine") {
  RunBuilder exact = noisy_gd(), ref = noisy_gd();
  exact.set("analysis.gamma", 0.5);
  ref.set("analysis.gamma", 0.5).set("analysis.engine", std::string("reference"));
  const Session session;
  Rows a, b;
  const EngineSummary e = session.solve(exact.build(), a), r = session.solve(ref.build(), b);
  REQUIRE(e.final_R.size() == r.final_R.size());
  for (std::size_t j = 0; j < e.final_R.size(); ++j) {
    CHECK(r.final_R[j] >= e.final_R[j] * (1 - 1e-12));
    CHECK(r.final_R[j] <= e.final_R[j] * (1 + 1e-7));
  }
  CHECK(b.steps == a.steps);
}

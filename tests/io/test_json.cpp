// The --json summary: the keys the issue requires, values at the final record.
#include <catch2/catch.hpp>
#include <limits>
#include <nlohmann/json.hpp>

#include "io/json_output.hpp"

using namespace rdpdyn;

TEST_CASE("JSON summary carries orders, final R, t and closed forms", "[json]") {
  RunReport report;
  report.solution.orders = {2.0, 8.0};
  report.solution.times = {0.0, 0.5};
  report.solution.steps = {0, 25};
  report.solution.lsi_constant = {std::numeric_limits<double>::infinity(), 3.0};
  report.solution.R = {0.0, 0.0, 0.125, 0.5};
  report.closed_forms.push_back({"cor1", "C21 Cor 1", "upper-bound", {0.0, 0.0, 0.25, 1.0}});
  report.metadata.engine = "characteristics";
  report.metadata.gamma_mode = "fixed";
  const auto j = nlohmann::json::parse(report_to_json(report));
  CHECK(j["orders"] == nlohmann::json({2.0, 8.0}));
  CHECK(j["R"] == nlohmann::json({0.125, 0.5}));
  CHECK(j["t"] == 0.5);
  CHECK(j["step"] == 25);
  CHECK(j["closed_forms"]["cor1"] == nlohmann::json({0.25, 1.0}));
  CHECK(j["closed_form_roles"]["cor1"] == "upper-bound");
  CHECK(j["engine"] == "characteristics");
}

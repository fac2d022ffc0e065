// Errors mean one thing (issue 21, item 4): bad input is a SpecError naming key, value and rule (exit
// 2), caught by its own type; "this analysis does not apply" is a value (a refusal with its reason);
// a broken precondition is a bug that propagates as itself (exit 1, "internal error"), never turned
// into a refusal, a NaN or an input error.
#include <catch2/catch.hpp>

#include <stdexcept>
#include <string>
#include <type_traits>

#include "analyses/analysis.hpp"
#include "analyses/pdi.hpp"
#include "commands/compare.hpp"
#include "io/config.hpp"
#include "models/privacy_model.hpp"
#include "numerics/spec_error.hpp"
#include "solver/engine_registry.hpp"

using namespace rdpdyn;

static_assert(!std::is_base_of_v<std::invalid_argument, SpecError>,
              "an input error must not be caught as the numerics' precondition error");

namespace {

const std::string kRun = R"(
[orders]
values = [2, 8]
[algorithm]
kind = "noisy-gd"
steps = 20
eta = 0.02
sigma = 0.02
n = 5000
sensitivity = 4
[lsi]
kind = "constant"
c = 100
[analysis]
gamma = 0.5
)";

}  // namespace

TEST_CASE("Errors mean one thing: input, refusal, bug", "[errors]") {
  const EngineRegistry engines = engine_registry(MPI_COMM_SELF);
  // 1. Input: the loader's SpecError names the key (the engine's dry run included).
  try {
    parse_config_text(kRun + "\n[lsi2]\n", "t");
    FAIL("accepted an unknown table");
  } catch (const SpecError& e) {
    CHECK(e.key() == "lsi2");
  }
  // 2. Refusal: a run the loader never saw (built in code, a gamma field on the characteristics
  // engine, which its dry run would refuse): the PDI entry does not apply and says why by the key.
  RunConfig field = parse_config_text(kRun, "t");
  field.spec.gamma = GammaChoice::of_field([](double, double) { return 0.5; }, "0.5 + 0 * alpha");
  const TrainingRun run = training_run_of(field.spec);
  const AnalysisResult refused = pdi_analysis({field, run, engines}, field.spec.orders);
  CHECK_FALSE(refused.applies);
  CHECK_THAT(refused.reason, Catch::Contains("'analysis.gamma'") && Catch::Contains("depends on the order"));
  // 3. A bug: a precondition broken inside the conversions (a delta >= 1 that no loader would pass)
  // propagates as itself from compare, not as a refusal, a NaN or a SpecError.
  RunConfig broken = parse_config_text(kRun, "t");
  broken.spec.report_delta = 2.0;
  CHECK_THROWS_AS(run_comparison(broken, engines), std::invalid_argument);
  bool spec_error = false;
  try {
    run_comparison(broken, engines);
  } catch (const SpecError&) {
    spec_error = true;
  } catch (const std::exception&) {}
  CHECK_FALSE(spec_error);
}

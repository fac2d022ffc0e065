// The reference engine (solver/reference_engine.hpp): the characteristic ODEs integrated numerically,
// against the characteristics engine's exact closed forms on every example it can solve, and its
// refusals (a dry run naming the key).
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "io/config.hpp"
#include "models/configured_solve.hpp"
#include "numerics/spec_error.hpp"
#include "solver/engine_registry.hpp"

using namespace rdpdyn;

namespace {

class LastRow final : public RecordObserver {
 public:
  void record(const EngineRecord& row) override {
    ++records;
    last.assign(row.R.begin(), row.R.end());
  }
  std::vector<double> last;
  int records = 0;
};

std::vector<double> final_row(const std::string& example, const std::string& engine) {
  const RunConfig cfg = load_config(std::string(RDPDYN_SOURCE_DIR) + "/examples/" + example,
                                    {"analysis.engine=" + engine, "analysis.gamma=0.5"});
  LastRow rows;
  solve_configured_run(cfg, engine_registry(MPI_COMM_SELF), rows);
  return rows.last;
}

}  // namespace

TEST_CASE("The reference engine agrees with the characteristics engine's closed forms, from above",
          "[reference][slow]") {
  // constant and Gaussian-convolution LSI (from a point mass: the singular start), strongly convex
  // recursions with Lipschitz maps, a schedule in t, a varying S_v(t), phases, tabulated initial data
  for (const char* example : {"figure1_lambda1.toml", "figure2_tight.toml", "fd_convergence.toml",
                              "langevin_strongly_convex.toml", "schedule_cosine.toml", "schedule_phases.toml",
                              "pdi_decaying_sensitivity.toml", "transport_table.toml", "quadratic_anisotropic.toml"}) {
    const std::vector<double> exact = final_row(example, "characteristics"), ref = final_row(example, "reference");
    REQUIRE(ref.size() == exact.size());
    for (std::size_t j = 0; j < ref.size(); ++j) {
      INFO(example << ", order index " << j << ": characteristics " << exact[j] << ", reference " << ref[j]);
      CHECK(ref[j] >= exact[j] * (1.0 - 1e-12));
      CHECK(ref[j] <= exact[j] * (1.0 + 1e-7));
    }
  }
}

TEST_CASE("The reference engine refuses, by key, what it does not integrate", "[reference]") {
  try {
    load_config(std::string(RDPDYN_SOURCE_DIR) + "/examples/figure1_lambda1.toml",
                {"analysis.engine=reference", "analysis.gamma=optimal"});
    FAIL("accepted the optimal gamma");
  } catch (const SpecError& e) {
    CHECK(e.key() == "analysis.gamma");
    CHECK_THAT(e.rule(), Catch::Contains("not the pointwise-optimal one"));
  }
  try {
    load_config(std::string(RDPDYN_SOURCE_DIR) + "/examples/ye_shokri_fmnist.toml", {"analysis.engine=reference"});
    FAIL("accepted noisy-sgd");
  } catch (const SpecError& e) {
    CHECK(e.key() == "analysis.engine");
    CHECK_THAT(e.rule(), Catch::Contains("worst case over batch placements"));
  }
  // records x steps x orders beyond its budget: the key that lowers it
  try {
    load_config(std::string(RDPDYN_SOURCE_DIR) + "/examples/figure1_lambda1.toml",
                {"analysis.engine=reference", "algorithm.steps=100000", "output.record_every=1"});
    FAIL("accepted 5e9 order-steps");
  } catch (const SpecError& e) {
    CHECK(e.key() == "output.record_every");
  }
  // without [analysis] gamma: C21 Thm 2's 1/2 (it does not take the optimal one the characteristics engine defaults to)
  const std::string text =
      "[orders]\nvalues = [2, 8]\n[algorithm]\nkind = \"noisy-gd\"\nsteps = 10\neta = 0.02\n"
      "sigma = 0.02\nn = 5000\nsensitivity = 4\n[lsi]\nkind = \"constant\"\nc = 100\n";
  const RunConfig ref = parse_config_text(text + "[analysis]\nengine = \"reference\"\n", "t");
  CHECK(ref.spec.gamma_by_default);
  CHECK_FALSE(ref.spec.gamma.is_optimal());
  CHECK(ref.spec.gamma.value == 0.5);
  CHECK(parse_config_text(text, "t").spec.gamma.is_optimal());
}

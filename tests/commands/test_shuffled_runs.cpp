// A run trained with shuffled batches (docs/analyses.md, "chua-shuffle-lower, poisson-as-if"):
// compare shows the certified upper bound (composition-pld, a Gaussian per epoch), the Poisson
// accounting users apply to it (poisson-as-if, heuristic) and the lower bound of Chua et al. 2024
// (chua-shuffle-lower, released-lower-bound), and only the first may be best.
#include <catch2/catch.hpp>

#include <cmath>
#include <map>
#include <string>

#include "commands/compare.hpp"
#include "io/config.hpp"
#include "solver/engine_registry.hpp"

using namespace rdpdyn;

namespace {

std::string run_text(const std::string& sampling, double multiplier, int epochs, const std::string& adjacency,
                     bool lipschitz) {
  return "[orders]\nvalues = [2, 4, 8, 16, 32]\n[report]\ndelta = 1e-5\n[algorithm]\nkind = \"noisy-sgd\"\nsampling = \"" +
         sampling + "\"\nn = 10000\nbatch_size = 100\nepochs = " + std::to_string(epochs) +
         "\nnoise_multiplier = " + std::to_string(multiplier) + "\n[domain]\nadjacency = \"" + adjacency +
         "\"\nlipschitz_loss = " + (lipschitz ? "true" : "false") + "\n";
}

struct Compared {
  std::map<std::string, ComparisonEntry> entries;
  std::string best;
};

Compared compare_text(const std::string& text) {
  const Comparison c = run_comparison(parse_config_text(text, "<test>"), engine_registry(MPI_COMM_SELF));
  Compared out;
  for (const auto& e : c.entries) out.entries[e.result.name] = e;
  out.best = c.best_name;
  return out;
}

}  // namespace

TEST_CASE("A shuffled run: the upper bound, the Poisson accounting and the lower bound side by side",
          "[compare][shuffle]") {
  // 100 batches an epoch, 10 epochs, noise multiplier 1.5, replace-one with norms <= C (S_g = 2C):
  // z = 0.75, one Gaussian of shift 1/z per epoch: mu = sqrt(10) / 0.75 = 4.21637...
  const Compared c = compare_text(run_text("shuffle", 1.5, 10, "replace", true));
  const ComparisonEntry& upper = c.entries.at("composition-pld");
  const ComparisonEntry& poisson = c.entries.at("poisson-as-if");
  const ComparisonEntry& lower = c.entries.at("chua-shuffle-lower");
  REQUIRE(upper.result.applies);
  REQUIRE(poisson.result.applies);
  REQUIRE(lower.result.applies);
  REQUIRE(upper.result.mu);
  CHECK(*upper.result.mu >= std::sqrt(10.0) / 0.75);
  CHECK(*upper.result.mu <= std::sqrt(10.0) / 0.75 * (1.0 + 1e-12));
  CHECK(poisson.status == AnalysisStatus::Heuristic);
  CHECK(lower.status == AnalysisStatus::ReleasedLowerBound);
  CHECK(lower.conversion == "pld-lower");
  // The order: Poisson's number is below what no valid accounting of these batches can undercut.
  INFO("upper " << upper.epsilon << ", lower " << lower.epsilon << ", poisson " << poisson.epsilon);
  CHECK(lower.epsilon < upper.epsilon);
  CHECK(poisson.epsilon < lower.epsilon);
  CHECK(c.best == "composition-pld");
  // poisson-as-if is composition-pld of the same run sampled by Poisson at q = b/n.
  std::string as_poisson = run_text("poisson", 1.5, 10, "replace", true);
  as_poisson.replace(as_poisson.find("batch_size = 100"), 16, "sampling_rate = 0.01");
  const Compared p = compare_text(as_poisson);
  CHECK(p.entries.at("composition-pld").epsilon == poisson.epsilon);
  // The lower bound's Rényi column stays below the upper bound's at every order.
  for (std::size_t j = 0; j < lower.result.R.size(); ++j) CHECK(lower.result.R[j] <= upper.result.R[j]);
}

TEST_CASE("Shuffled once: the epochs' sums are sufficient, one epoch at sqrt(E) times the shift",
          "[compare][shuffle]") {
  // shuffle-once over 4 epochs at multiplier m has the lower bound of one shuffled epoch at m / 2.
  const Compared once = compare_text(run_text("shuffle-once", 2.0, 4, "replace", true));
  const Compared one_epoch = compare_text(run_text("shuffle", 1.0, 1, "replace", true));
  CHECK(once.entries.at("chua-shuffle-lower").epsilon == one_epoch.entries.at("chua-shuffle-lower").epsilon);
}

TEST_CASE("S_g bounding only the difference: the lower bound meets the upper bound", "[compare][shuffle]") {
  // The other records' gradients are then unconstrained and the record's batch is identified in the
  // limit: the pair is the Gaussian composition itself, and the lower estimate comes within 0.5%.
  const Compared c = compare_text(run_text("shuffle", 1.5, 10, "replace", false));
  const double upper = c.entries.at("composition-pld").epsilon;
  const double lower = c.entries.at("chua-shuffle-lower").epsilon;
  CHECK(lower <= upper);
  CHECK(lower >= upper * 0.995);
}

TEST_CASE("Shuffled batches under add/remove: the lower bound and the upper bound refuse by name",
          "[compare][shuffle]") {
  const Compared c = compare_text(run_text("shuffle", 1.5, 10, "add-remove", false));
  CHECK_FALSE(c.entries.at("chua-shuffle-lower").result.applies);
  CHECK_THAT(c.entries.at("chua-shuffle-lower").result.reason, Catch::Contains("add-remove"));
  CHECK_FALSE(c.entries.at("composition-pld").result.applies);
  // The Poisson accounting is still shown: it is what opacus reports for the run.
  CHECK(c.entries.at("poisson-as-if").result.applies);
  CHECK(c.best != "poisson-as-if");
}

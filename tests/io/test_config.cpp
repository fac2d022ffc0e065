// The TOML configuration: the documented keys, and every rejection naming key, value and rule.
#include <catch2/catch.hpp>
#include <cmath>
#include <string>

#include "io/config.hpp"
#include "io/config_document.hpp"
#include "models/known_constants.hpp"
#include "models/privacy_model.hpp"
#include "numerics/spec_error.hpp"

using namespace rdpdyn;

namespace {

const std::string kBase = R"(
[orders]
values = [2, 10, 30]
[algorithm]
kind = "noisy-gd"
steps = 100
eta = 0.02
sigma = 0.02
n = 5000
sensitivity = 4
[lsi]
kind = "strongly-convex"
lambda = 1
beta = 4
)";

/// Replaces the first line starting with `prefix` by `line` (or appends `line` if absent).
std::string with(std::string text, const std::string& prefix, const std::string& line) {
  const auto pos = text.find("\n" + prefix);
  if (pos == std::string::npos) return text + line + "\n";
  const auto end = text.find('\n', pos + 1);
  return text.replace(pos + 1, end - pos - 1, line);
}

SpecError error_of(const std::string& text) {
  try {
    parse_config_text(text, "test.toml");
  } catch (const SpecError& e) {
    return e;
  }
  FAIL("configuration was accepted: " << text);
  throw;
}

void check_error(const std::string& text, const std::string& key, const std::string& value,
                 const std::string& rule_part) {
  const SpecError e = error_of(text);
  INFO(e.what());
  CHECK(e.key() == key);
  CHECK(e.value() == value);
  CHECK_THAT(e.rule(), Catch::Contains(rule_part));
}

}  // namespace

TEST_CASE("The base configuration parses into the documented run", "[config]") {
  const RunConfig cfg = parse_config_text(kBase, "test.toml");
  CHECK(cfg.spec.orders == std::vector<double>{2, 10, 30});
  REQUIRE(cfg.spec.algorithm.phases.size() == 1);
  CHECK(cfg.spec.algorithm.phases[0].steps == 100);
  CHECK(cfg.spec.algorithm.phases[0].eta == 0.02);
  CHECK(cfg.spec.lsi.kind == LsiKind::StronglyConvex);
  CHECK(cfg.spec.gamma.is_optimal());  // default: the best certified choice of the engine
  CHECK(cfg.spec.gamma_by_default);
  CHECK(cfg.text == kBase);
}

TEST_CASE("The default gamma is the best the engine certifies: optimal where it applies, else 1/2", "[config]") {
  // Data linear in alpha (the zero start): the characteristics engine's optimal gamma.
  CHECK(parse_config_text(kBase, "t").spec.gamma.is_optimal());
  // Tabulated (nonlinear) initial data: the characteristics engine has no optimal gamma there.
  const std::string table = kBase + "[initial]\nkind = \"table\"\nalpha = [1.5, 100]\nR = [0.001, 0.1]\n";
  const RunConfig fixed = parse_config_text(table, "t");
  CHECK_FALSE(fixed.spec.gamma.is_optimal());
  CHECK(fixed.spec.gamma.value == 0.5);
  CHECK(fixed.spec.gamma_by_default);
  // ... while the finite-difference engine certifies the optimal gamma for any data.
  const RunConfig fd = parse_config_text(table + "[analysis]\nengine = \"finite-difference\"\n", "t");
  CHECK(fd.spec.gamma.is_optimal());
  // A stated gamma is kept.
  const RunConfig stated = parse_config_text(kBase + "[analysis]\ngamma = 0.5\n", "t");
  CHECK(stated.spec.gamma.value == 0.5);
  CHECK_FALSE(stated.spec.gamma_by_default);
}

TEST_CASE("Orders may be log-spaced in alpha - 1", "[config]") {
  const std::string text = with(kBase, "values", "min = 1.5\nmax = 257\ncount = 9");
  const RunConfig cfg = parse_config_text(text, "t");
  REQUIRE(cfg.spec.orders.size() == 9);
  CHECK(cfg.spec.orders.front() == 1.5);
  CHECK(cfg.spec.orders.back() == 257);
  CHECK(cfg.spec.orders[4] - 1 == Approx(std::sqrt(0.5 * 256)));  // geometric midpoint of alpha - 1
}

TEST_CASE("Schedule phases override the scalars in turn", "[config]") {
  const std::string text = kBase + R"(
[[algorithm.schedule]]
steps = 30
eta = 0.01
[[algorithm.schedule]]
steps = 20
sigma = 0.05
gamma = 0.7
)";
  const std::string constant_lsi =
      with(with(with(text, "kind = \"strongly", "kind = \"constant\"\nc = 5"), "lambda", ""), "beta", "");
  const RunConfig cfg = parse_config_text(constant_lsi, "t");
  const auto& ph = cfg.spec.algorithm.phases;
  REQUIRE(ph.size() == 3);  // 30 + 20 scheduled, 50 more from the scalars
  CHECK(ph[0].eta == 0.01);
  CHECK(ph[0].sigma == 0.02);
  CHECK(ph[1].sigma == 0.05);
  CHECK(*ph[1].gamma == 0.7);
  CHECK(ph[2].steps == 50);
}

TEST_CASE("Bad input is refused with key, value and rule", "[config][errors]") {
  check_error(kBase + "colour = 3\n", "lsi.colour", "3", "unknown key");
  check_error(with(kBase, "sigma", "sigma = -1"), "algorithm.sigma", "-1", "> 0");
  check_error(with(kBase, "sigma", "sigma = 0"), "algorithm.sigma", "0", "> 0");
  check_error(with(kBase, "sigma", "sigma = nan"), "algorithm.sigma", "nan", "finite");
  check_error(with(kBase, "sigma", "sigma = \"big\""), "algorithm.sigma", "\"big\"", "number");
  check_error(with(kBase, "values", "values = [2, 1, 30]"), "orders.values[1]", "1", "> 1");
  check_error(with(kBase, "values", "values = [2, 30, 10]"), "orders.values[2]", "10", "increasing");
  check_error(with(kBase, "n = ", "n = 0.5"), "algorithm.n", "0.5", ">= 1");
  check_error(with(kBase, "steps", "steps = -3"), "algorithm.steps", "-3", ">= 0");
  check_error(with(kBase, "steps", "steps = 2.5"), "algorithm.steps", "2.5", "integer");
  check_error(with(kBase, "eta", "eta = 0.3"), "algorithm.eta", "0.3", "1/beta");
  check_error(with(kBase, "kind = \"noisy", "kind = \"sgd\""), "algorithm.kind", "\"sgd\"", "one of");
  check_error(kBase + "[analysis]\ngamma = 1.5\n", "analysis.gamma", "1.5", "(0, 1]");
  check_error(kBase + "[analysis]\ngamma = \"best\"\n", "analysis.gamma", "\"best\"", "not a valid expression");
  check_error(kBase + "[initial]\nkind = \"table\"\nalpha = [2, 10, 30]\nR = [0.1, 0.05, 0.2]\n", "initial.R[1]",
              "0.05", "non-decreasing");
  check_error(kBase + "[initial]\nkind = \"table\"\nalpha = [2, 3, 3]\nR = [0.1, 0.2, 0.3]\n", "initial.alpha[2]", "3",
              "increasing");
  check_error(kBase + "[initial]\nkind = \"table\"\nalpha = [2, 10]\nR = [0.1, 0.2]\n", "orders", "max 30",
              "largest tabulated order");
  check_error(kBase + "[analysis]\ngamma = \"optimal\"\n[initial]\nkind = \"power\"\nscale = 1\nexponent = 2\n",
              "analysis.gamma", "\"optimal\"", "linear in alpha");
  check_error(kBase + "[lsi.extra]\n", "lsi.extra", "a table", "unknown key");
  check_error("[orders\n", "test.toml", "(file)", "not valid TOML");
}

TEST_CASE("Missing required keys are named", "[config][errors]") {
  const std::string no_n = with(kBase, "n = ", "");
  check_error(no_n, "algorithm.n", "missing", "required");
}

TEST_CASE("Function schedules and curves compile; bad expressions are refused", "[config]") {
  const std::string fn = with(kBase, "kind = \"strongly", "kind = \"function\"\nc = \"1/(0.001 + 2*s*0.0004)\"");
  const std::string text = with(with(fn, "lambda", ""), "beta", "");
  const RunConfig cfg = parse_config_text(text, "t");
  CHECK(cfg.spec.lsi.function.c(0.5, 0.0, 2.0) == Approx(1.0 / 0.0014));
  CHECK_FALSE(cfg.spec.lsi.function.depends_on_alpha);
  const std::string bad =
      with(with(with(kBase, "kind = \"strongly", "kind = \"function\"\nc = \"1/(s +\""), "lambda", ""), "beta", "");
  check_error(bad, "lsi.c", "\"1/(s +\"", "not a valid expression");
}

TEST_CASE("Output: listed record steps; phases may change the sensitivity", "[config]") {
  const std::string text = kBase + R"(
[[algorithm.schedule]]
steps = 40
sensitivity = 2.5
[output]
record_steps = [50, 10]
)";
  const RunConfig cfg = parse_config_text(text, "t");
  CHECK(cfg.spec.record.every == 0);
  CHECK(cfg.spec.record.steps == std::vector<std::int64_t>{10, 50});
  CHECK(*cfg.spec.algorithm.phases[0].sensitivity == 2.5);
  CHECK_FALSE(cfg.spec.algorithm.phases[1].sensitivity.has_value());
  check_error(kBase + "[output]\nrecord_steps = [101]\n", "output.record_steps[0]", "101", "[0, 100]");
  check_error(kBase + "[output]\nrecord_every = 0\n", "output.record_every", "0", ">= 1");
}

TEST_CASE("Errors point at the phase that breaks a rule; floats stay floats in messages", "[config][errors]") {
  check_error(kBase + "[[algorithm.schedule]]\nsteps = 10\neta = 0.3\n", "algorithm.schedule[0].eta", "0.3", "1/beta");
  check_error(with(kBase, "steps", "steps = 2.0"), "algorithm.steps", "2.0", "integer");
  const std::string lip = with(kBase, "kind = \"strongly", "kind = \"recursion\"\nlipschitz = 0.9");
  check_error(lip, "lsi.lambda", "1", "not used when lsi.lipschitz");
}

TEST_CASE("Noisy SGD: batch size, sampling and the three noise conventions", "[config][sgd]") {
  const std::string sgd = R"(
[orders]
values = [2, 8]
[algorithm]
kind = "noisy-sgd"
sampling = "per-step"
batch_size = 100
n = 1000
steps = 50
eta = 0.05
sensitivity = 2
sigma_at = 1.0
[lsi]
kind = "recursion"
lambda = 0
beta = 4
[domain]
diameter = 0.1
adjacency = "remove"
[report]
delta = 1e-5
)";
  const RunConfig cfg = parse_config_text(sgd, "t");
  CHECK(cfg.spec.algorithm.kind == AlgorithmKind::NoisySgd);
  CHECK(cfg.spec.algorithm.sampling == BatchSampling::PerStep);
  // A&T: the step adds N(0, (eta sigma_at)^2): sigma_C21 = sigma_at sqrt(eta / 2)
  // (docs/math.md section 1.4).
  CHECK(cfg.spec.algorithm.phases[0].sigma == Approx(std::sqrt(0.025)).epsilon(1e-15));
  CHECK(*cfg.spec.diameter == 0.1);
  CHECK(cfg.spec.adjacency == Adjacency::Remove);
  CHECK_FALSE(cfg.spec.gradients_norm_bounded);
  CHECK(parse_config_text(with(sgd, "adjacency", "adjacency = \"remove\"\nlipschitz_loss = true"), "t")
            .spec.gradients_norm_bounded);
  check_error(with(sgd, "adjacency", "adjacency = \"remove\"\nlipschitz_loss = 1"), "domain.lipschitz_loss", "1",
              "true or false");
  CHECK(*cfg.spec.report_delta == 1e-5);
  // DP-SGD: sigma_C21 = sqrt(eta/2) z S_g / (2 b) under replace adjacency (clip norm C = S_g/2; docs/math.md
  // section 1.4, Ye & Shokri App. F corrected); sqrt(eta/2) z S_g / b under add-remove ("remove": C = S_g).
  std::string z = sgd;
  z.replace(z.find("sigma_at = 1.0"), 14, "noise_multiplier = 3.0");
  CHECK(parse_config_text(z, "t").spec.algorithm.phases[0].sigma ==
        Approx(std::sqrt(0.025) * 3.0 * 2.0 / 100.0).epsilon(1e-15));
  CHECK(parse_config_text(with(z, "adjacency", "adjacency = \"replace\""), "t").spec.algorithm.phases[0].sigma ==
        Approx(std::sqrt(0.025) * 3.0 * 2.0 / 200.0).epsilon(1e-15));
  check_error(with(sgd, "batch_size", "batch_size = 300"), "algorithm.batch_size", "300", "must divide n");
  check_error(with(sgd, "sampling", "sampling = \"random\""), "algorithm.sampling", "\"random\"", "one of");
  check_error(with(sgd, "sigma_at", "sigma_at = 1.0\nsigma = 0.1"), "algorithm.sigma",
              "given with sigma_at or noise_multiplier", "one convention");
  check_error(sgd + "[quadratic]\nhessian = [[1]]\n", "quadratic", "a table", "loss = \"quadratic\"");
  check_error(with(sgd, "delta", "delta = 2"), "report.delta", "2", "(0, 1)");
}

TEST_CASE("Quadratic losses: the Hessian must be symmetric positive definite; the pair within S_g",
          "[config][quadratic]") {
  const std::string q = R"(
[orders]
values = [2]
[algorithm]
kind = "noisy-gd"
loss = "quadratic"
steps = 5
eta = 0.1
sigma = 0.5
n = 10
sensitivity = 1
[quadratic]
hessian = [[2, 0.5], [0.5, 1]]
pair = [0.3, 0.1]
[lsi]
kind = "exact-quadratic"
)";
  CHECK(parse_config_text(q, "t").spec.quadratic->hessian[0][1] == 0.5);
  check_error(with(q, "hessian", "hessian = [[2, 0.5], [0.4, 1]]"), "quadratic.hessian", "a 2 x 2 matrix",
              "symmetric positive definite");
  check_error(with(q, "hessian", "hessian = [[1, 2], [2, 1]]"), "quadratic.hessian", "a 2 x 2 matrix",
              "symmetric positive definite");
  check_error(with(q, "pair", "pair = [1, 1]"), "quadratic.pair", "with |H pair| = 2.9154759474226557 (rounded up)",
              "<= algorithm.sensitivity");
  // The soundness campaign's find (docs/analyses.md, "Soundness campaign"): a pair 1e-12 beyond
  // S_g was accepted and bounded with S_g. H = diag(0.5, 1), pair = [2.000000000001, 0].
  const std::string diag =
      with(with(q, "hessian", "hessian = [[0.5, 0], [0, 1]]"), "pair", "pair = [2.000000000001, 0]");
  CHECK_THAT(error_of(diag).rule(), Catch::Contains("<= algorithm.sensitivity = 1"));
  CHECK(parse_config_text(with(diag, "pair", "pair = [1.99999999999, 0]"), "t").spec.quadratic->pair.has_value());
}

TEST_CASE("Events the LSI model cannot carry are refused: expanding maps, restarts without the recursion", "[config]") {
  // The soundness campaign's find: an L = 3 map after step 5 widens the law, but squared-loss
  // (C21 Cor 2) and exact-quadratic keep their c: R came out 4% below the exact divergence.
  const std::string squared = R"(
[orders]
values = [2]
[algorithm]
kind = "noisy-gd"
loss = "squared"
steps = 25
eta = 0.1
sigma = 0.3
n = 1
sensitivity = 1
[lsi]
kind = "squared-loss"
[[events]]
kind = "lipschitz"
after_step = 5
lipschitz = 3.0
)";
  check_error(squared, "events[0].lipschitz", "3", "an expanding map (L > 1) widens the iterate law");
  // The recursion carries c -> c/L^2 (C21 Lemma 8); a contraction (a projection) is fine for every kind.
  CHECK_NOTHROW(parse_config_text(with(squared, "kind = \"squared-loss\"", "kind = \"recursion\""), "t"));
  CHECK_NOTHROW(parse_config_text(with(squared, "lipschitz = 3.0", "lipschitz = 1.0"), "t"));
  // A declared constant with a generic loss: the user's c must account for the map (documented).
  const std::string generic =
      with(with(with(squared, "loss", "loss = \"generic\""), "kind = \"squared-loss\"", "kind = \"constant\"\nc = 1"),
           "n = 1", "n = 1");
  CHECK_NOTHROW(parse_config_text(generic, "t"));
  check_error(with(with(squared, "kind = \"lipschitz\"", "kind = \"lsi-restart\""), "lipschitz = 3.0", "c = 2"),
              "events[0].kind", "\"lsi-restart\"", "needs lsi.kind = \"recursion\"");
}

// ---- declared constants against what the run defines (models/known_constants.hpp) -------------

namespace {

// The issue's quadratic: eigenvalues 0.508, 1.410, 2.082 (examples/quadratic_anisotropic.toml).
const std::string kQuadratic = R"(
[orders]
values = [1.5, 2, 8, 32]
[algorithm]
kind = "noisy-gd"
loss = "quadratic"
steps = 200
eta = 0.2
sigma = 0.5
n = 100
sensitivity = 1.0
[quadratic]
hessian = [[1.2, 0.4, 0.0], [0.4, 0.8, 0.3], [0.0, 0.3, 2.0]]
[lsi]
kind = "recursion"
lambda = 0.5
beta = 2.3
)";

const std::string kSquared = R"(
[orders]
values = [1.5, 10]
[algorithm]
kind = "noisy-gd"
loss = "squared"
steps = 1000
eta = 0.02
sigma = 0.02
n = 5000
sensitivity = 4.0
[lsi]
kind = "recursion"
)";

}  // namespace

TEST_CASE("A quadratic loss: lambda <= h_min and beta >= h_max of the Hessian (issue case)", "[config][constants]") {
  CHECK_NOTHROW(parse_config_text(kQuadratic, "t"));
  // The issue: lambda = 2, beta = 2.3 gave bounds 4.7x below the exact divergence.
  const std::string issue = with(kQuadratic, "lambda", "lambda = 2.0");
  check_error(issue, "lsi.lambda", "2", "must be <= h_min = 0.50833782089315");
  check_error(issue, "lsi.lambda", "2", "smallest eigenvalue of quadratic.hessian");
  check_error(with(kQuadratic, "beta", "beta = 2"), "lsi.beta", "2", "must be >= h_max = 2.0817926002559");
  // The same for the strongly convex model.
  const std::string sc =
      with(with(kQuadratic, "kind = \"recursion\"", "kind = \"strongly-convex\""), "eta", "eta = 0.2");
  check_error(with(sc, "lambda", "lambda = 0.6"), "lsi.lambda", "0.6", "h_min");
  // No tolerance in the unsafe direction beyond the eigensolver's error bound (~1e-14 here): the
  // computed h_min is accepted, 3e-7 above it is not.
  const SpectrumEnclosure e = known_dynamics(parse_config_text(kQuadratic, "t").spec)->spectrum;
  REQUIRE(e.eigenvalues.size() == 3);
  CHECK(e.eigenvalues[0] == Approx(0.508).margin(5e-4));
  CHECK(e.eigenvalues[1] == Approx(1.410).margin(5e-4));
  CHECK(e.eigenvalues[2] == Approx(2.082).margin(5e-4));
  for (double r : e.radius) CHECK(r < 1e-13);
  CHECK_NOTHROW(parse_config_text(with(with(kQuadratic, "lambda", "lambda = " + format_number(e.eigenvalues[0])),
                                       "beta", "beta = " + format_number(e.eigenvalues[2])),
                                  "t"));
  check_error(with(kQuadratic, "lambda", "lambda = " + format_number(e.eigenvalues[0] + 3e-7)), "lsi.lambda",
              format_number(e.eigenvalues[0] + 3e-7), "h_min");
  check_error(with(kQuadratic, "beta", "beta = " + format_number(e.eigenvalues[2] - 3e-7)), "lsi.beta",
              format_number(e.eigenvalues[2] - 3e-7), "h_max");
  // A diagonal Hessian: its entries, declared exactly, are accepted.
  const std::string diag = with(
      with(with(kQuadratic, "hessian", "hessian = [[0.3, 0, 0], [0, 1, 0], [0, 0, 2.5]]"), "lambda", "lambda = 0.3"),
      "beta", "beta = 2.5");
  CHECK_NOTHROW(parse_config_text(diag, "t"));
  // 1e-12 above is far outside the enclosure (a few ulps of |H| per dimension) and rejected.
  check_error(with(diag, "lambda", "lambda = 0.300000000001"), "lsi.lambda", "0.300000000001", "h_min = 0.3,");
}

TEST_CASE("A quadratic loss: a declared lipschitz against max_i |1 - eta h_i|", "[config][constants]") {
  const std::string lip = with(with(kQuadratic, "lambda", "lipschitz = 0.9"), "beta", "");
  // eta = 0.2: max(|1 - 0.2 * 0.508|, |1 - 0.2 * 2.082|) = 0.898.
  CHECK_NOTHROW(parse_config_text(lip, "t"));
  check_error(with(lip, "lipschitz", "lipschitz = 0.85"), "lsi.lipschitz", "0.85", "must be >= 0.89833243582136");
  check_error(with(lip, "lipschitz", "lipschitz = 0.85"), "lsi.lipschitz", "0.85", "max_i |1 - eta h_i| at eta = 0.2");
}

TEST_CASE("The squared loss: lipschitz >= |1 - eta| (issue case) and c <= the exact LSI constant",
          "[config][constants]") {
  CHECK_NOTHROW(parse_config_text(kSquared, "t"));
  // The issue: lipschitz = 0.5 at eta = 0.02 gave a bound 33x below C21 Thm 3's exact value.
  const std::string issue = kSquared + "lipschitz = 0.5\n";
  check_error(issue, "lsi.lipschitz", "0.5", "must be >= 0.98 = |1 - eta| at eta = 0.02 (algorithm.eta)");
  CHECK_NOTHROW(parse_config_text(kSquared + "lipschitz = 0.98\n", "t"));
  CHECK_NOTHROW(parse_config_text(kSquared + "lipschitz = 1\n", "t"));
  // A constant LSI constant: the variance after K steps from theta_0 = 0 is
  // 2 eta sigma^2 (1 - (1-eta)^(2K)) / (1 - (1-eta)^2) (C21 Thm 3 proof), the largest of the run.
  const double q = 0.98 * 0.98, v = 2 * 0.02 * 0.0004 * (1 - std::pow(q, 1000)) / (1 - q);
  const std::string constant = with(kSquared, "kind = \"recursion\"", "kind = \"constant\"");
  const SpecError e = error_of(constant + "c = " + format_number(1.01 / v) + "\n");
  CHECK(e.key() == "lsi.c");
  // (the variance reaches its limit 2 sigma^2/(2 - eta) to rounding before step 1000: c -> 2475)
  CHECK_THAT(e.rule(), Catch::Contains("must be <= 2475.0000000") && Catch::Contains("smallest exact LSI constant") &&
                           Catch::Contains("after step"));
  CHECK_NOTHROW(parse_config_text(constant + "c = " + format_number(0.999999 / v) + "\n", "t"));
}

TEST_CASE("A stated Gaussian start: c0 <= 1/s^2, the default c0 and the strongly convex model", "[config][constants]") {
  const std::string start =
      with(kQuadratic, "hessian", "hessian = [[1.2, 0.4, 0.0], [0.4, 0.8, 0.3], [0.0, 0.3, 2.0]]\ninitial_std = 0.1");
  const RunSpec spec = parse_config_text(start, "t").spec;
  REQUIRE(spec.quadratic->initial_std);
  CHECK(build_program(spec).initial_inverse_lsi == Approx(0.01));  // no c0: the start's 1/s^2
  CHECK(quadratic_problem_of(spec).initial_covariance(1, 1) == Approx(0.01));
  CHECK_NOTHROW(parse_config_text(start + "c0 = 100\n", "t"));  // s = 0.1: 1/s^2 = 100
  check_error(start + "c0 = 101\n", "lsi.c0", "101", "must be <= 1/s^2 = 99.999999999999");
  // With a point start (no initial_std) any c0 is safe.
  CHECK_NOTHROW(parse_config_text(kQuadratic + "c0 = 1e6\n", "t"));
  // C21 Lemma 5's c = lambda/(2 sigma^2) = 1 must not exceed the start's 1/s^2.
  const std::string sc =
      with(with(start, "kind = \"recursion\"", "kind = \"strongly-convex\""), "lambda", "lambda = 0.5");
  CHECK_NOTHROW(parse_config_text(sc, "t"));                              // 1/s^2 = 100 >= 1
  const std::string wide = with(sc, "initial_std", "initial_std = 1.5");  // 1/s^2 = 0.44 < 1
  check_error(wide, "lsi.lambda", "0.5", "lambda/(2 sigma^2) = 1 must be <= 0.44");
  check_error(with(start, "initial_std", "initial_std = 0"), "quadratic.initial_std", "0", "> 0");
}

TEST_CASE("Declared and derived constants: a generic loss declares, a known loss derives", "[config][constants]") {
  const ConstantProvenance generic = constant_provenance(parse_config_text(kBase, "t").spec);
  auto has = [](const std::vector<std::string>& list, const std::string& prefix) {
    for (const auto& e : list)
      if (e.rfind(prefix, 0) == 0) return true;
    return false;
  };
  CHECK(has(generic.declared, "algorithm.sensitivity = 4 ("));
  CHECK(has(generic.declared, "lsi.lambda = 1 (strong convexity of the loss; generic loss"));
  CHECK(has(generic.declared, "lsi.beta = 4 ("));
  CHECK_FALSE(has(generic.derived, "lsi.lambda"));
  const ConstantProvenance quadratic = constant_provenance(parse_config_text(kQuadratic, "t").spec);
  CHECK(has(quadratic.derived, "lsi.lambda = 0.5 (declared; checked <= h_min"));
  CHECK(has(quadratic.derived, "h_min = 0.50833782089315"));
  CHECK_FALSE(has(quadratic.declared, "lsi.lambda"));
  CHECK(has(quadratic.declared, "algorithm.sensitivity"));
  const ConstantProvenance squared = constant_provenance(parse_config_text(kSquared + "lipschitz = 0.98\n", "t").spec);
  CHECK(has(squared.derived, "lsi.lipschitz = 0.98 (declared; checked >="));
}

namespace {

SpecError override_error_of(const std::vector<std::string>& overrides) {
  try {
    parse_config_text(kBase, "test.toml", overrides);
  } catch (const SpecError& e) {
    return e;
  }
  FAIL("overrides were accepted");
  throw;
}

}  // namespace

TEST_CASE("Command-line overrides (set): TOML values on dotted keys, checked like the file", "[config][set]") {
  const RunConfig cfg =
      parse_config_text(kBase, "test.toml",
                        {"algorithm.sigma=0.05", "orders.values = [2, 4]", "algorithm.steps=50",
                         "lsi.kind=strongly-convex", "report.delta=1e-5", "analysis.engine=\"characteristics\""});
  CHECK(cfg.spec.algorithm.phases[0].sigma == 0.05);
  CHECK(cfg.spec.algorithm.phases[0].steps == 50);
  CHECK(cfg.spec.orders == std::vector<double>{2, 4});
  CHECK(cfg.spec.report_delta == 1e-5);                 // a table the file does not have is created
  CHECK(cfg.spec.lsi.kind == LsiKind::StronglyConvex);  // a bare word is a string
  // The recorded text is the file and the overrides (the effective configuration).
  CHECK(cfg.text.rfind(kBase, 0) == 0);
  CHECK_THAT(cfg.text, Catch::Contains("# algorithm.sigma=0.05\n"));
  CHECK_THAT(cfg.text, Catch::Contains("# report.delta=1e-5\n"));
  CHECK(cfg.overrides.size() == 6);
  CHECK(parse_config_text(kBase, "t", {}).text == kBase);
  // Later overrides win.
  CHECK(
      parse_config_text(kBase, "t", {"algorithm.sigma=0.05", "algorithm.sigma=0.07"}).spec.algorithm.phases[0].sigma ==
      0.07);
}

TEST_CASE("Command-line overrides (set): unknown keys and bad values are the file's errors", "[config][set]") {
  SpecError e = override_error_of({"algorithm.sigmaa=0.1"});
  CHECK(e.key() == "algorithm.sigmaa");
  CHECK_THAT(e.rule(), Catch::Contains("unknown key"));
  e = override_error_of({"nosuch.key=1"});
  CHECK(e.key() == "nosuch");
  CHECK_THAT(e.rule(), Catch::Contains("unknown key"));
  e = override_error_of({"algorithm.sigma=-0.1"});
  CHECK(e.key() == "algorithm.sigma");
  CHECK(e.value() == "-0.1");
  e = override_error_of({"algorithm.steps=1.5"});
  CHECK(e.key() == "algorithm.steps");
  CHECK_THAT(e.rule(), Catch::Contains("integer"));
  e = override_error_of({"algorithm.sigma=[1,"});  // neither TOML nor a bare word
  CHECK(e.key() == "algorithm.sigma");
  CHECK_THAT(e.rule(), Catch::Contains("TOML value"));
  e = override_error_of({"algorithm.sigma"});
  CHECK(e.key() == "--set");
  e = override_error_of({"algorithm.sigma.x=1"});  // into a number
  CHECK(e.key() == "algorithm.sigma");
  CHECK_THAT(e.rule(), Catch::Contains("not a table"));
  e = override_error_of({"algorithm.schedule[0].eta=0.1"});
  CHECK(e.key() == "algorithm.schedule");
}

namespace {

/// The error of kBase with `--set` overrides.
SpecError error_with(const std::vector<std::string>& sets, const std::string& text = kBase) {
  try {
    parse_config_text(text, "test.toml", sets);
  } catch (const SpecError& e) {
    return e;
  }
  FAIL("configuration was accepted with the overrides");
  throw;
}

void check_limit(const std::vector<std::string>& sets, const std::string& key, const std::string& value,
                 const std::string& limit, const std::string& text = kBase) {
  const SpecError e = error_with(sets, text);
  INFO(e.what());
  CHECK(e.key() == key);
  CHECK(e.value() == value);
  CHECK_THAT(e.rule(), Catch::Contains("must be <= " + limit) && Catch::Contains("docs/config.md, Limits"));
}

/// The error of `text` with `key` set to an array of n numbers first, first + step, ... The array
/// is built as a TOML value, not parsed: toml11 3.7 parses one array in O(n^2) (toml11 issue #278).
SpecError error_with_list(const std::string& text, const std::vector<std::string>& keys, std::size_t n, double first,
                          double step) {
  toml::value doc = parse_toml_document(text, "test.toml");
  toml::array list;
  for (std::size_t i = 0; i < n; ++i) list.push_back(toml::value(first + step * static_cast<double>(i)));
  for (const auto& k : keys) set_config_key(doc, k, toml::value(list));
  try {
    config_from_document(doc, text, "test.toml", {});
  } catch (const SpecError& e) {
    return e;
  }
  FAIL("configuration was accepted with " << n << " entries");
  throw;
}

}  // namespace

TEST_CASE("Every size has a limit checked at parse time, named with the key, the value and the limit",
          "[config][limits]") {
  // The issue's case: a count near 2^62 was accepted and allocated for minutes.
  check_limit({"orders={ min = 1.5, max = 64, count = 4611686018427387904 }"}, "orders.count", "4611686018427387904",
              "65536 (2^16)");
  check_limit({"orders={ min = 1.5, max = 64, count = 65537 }"}, "orders.count", "65537", "65536 (2^16)");
  CHECK_NOTHROW(parse_config_text(kBase, "t", {"orders={ min = 1.5, max = 64, count = 65536 }"}));
  const SpecError values = error_with_list(kBase, {"orders.values"}, 65537, 2.0, 1.0);
  CHECK(values.key() == "orders.values");
  CHECK(values.value() == "65537 entries");
  CHECK_THAT(values.rule(), Catch::Contains("must be <= 65536 (2^16)"));

  check_limit({"algorithm.steps=1099511627777"}, "algorithm.steps", "1099511627777", "1099511627776 (2^40)");
  CHECK_NOTHROW(parse_config_text(kBase, "t", {"algorithm.steps=1099511627776"}));
  const std::string phases = kBase + "[[algorithm.schedule]]\nsteps = 1099511627777\n";
  check_limit({}, "algorithm.schedule[0].steps", "1099511627777", "1099511627776 (2^40)",
              with(phases, "steps = 100", ""));
  // Each phase within the limit, their total beyond it.
  const std::string two = kBase + "[[algorithm.schedule]]\nsteps = 1099511627776\n[[algorithm.schedule]]\nsteps = 1\n";
  check_limit({}, "algorithm.schedule", "phases of 1099511627777 steps in all", "1099511627776 (2^40)",
              with(two, "steps = 100", ""));

  const std::string langevin = R"(
[orders]
values = [2, 10]
[algorithm]
kind = "langevin"
time = 1
sigma = 0.1
n = 100
sensitivity = 1
[lsi]
kind = "constant"
c = 1
)";
  check_limit({"algorithm.intervals=1099511627777"}, "algorithm.intervals", "1099511627777", "1099511627776 (2^40)",
              langevin);

  const SpecError n = error_with({"algorithm.n=1e300"});
  CHECK(n.key() == "algorithm.n");
  CHECK_THAT(n.rule(), Catch::Contains("2^53"));

  check_limit({"grid.cells=4194305"}, "grid.cells", "4194305", "4194304 (2^22)");
  check_limit({"grid.gamma_samples=65537"}, "grid.gamma_samples", "65537", "65536 (2^16)");

  const std::string table = kBase + "[initial]\nkind = \"table\"\nalpha = [2]\nR = [0]\n";
  const SpecError alpha = error_with_list(table, {"initial.alpha", "initial.R"}, 65537, 2.0, 1.0);
  CHECK(alpha.key() == "initial.alpha");
  CHECK(alpha.value() == "65537 entries");
  CHECK_THAT(alpha.rule(), Catch::Contains("must be <= 65536 (2^16)"));

  std::string rows = "[";
  for (int i = 0; i < 257; ++i) rows += i ? ", [1]" : "[1]";
  const std::string quadratic = with(kBase, "sensitivity = 4", "sensitivity = 4\nloss = \"quadratic\"") +
                                "[quadratic]\nhessian = " + rows + "]\n";
  check_limit({}, "quadratic.hessian", "257 rows", "256", quadratic);
}

TEST_CASE("Limits: deep nesting, long dotted keys and huge texts are refused before the TOML parser",
          "[config][limits]") {
  // The TOML parser recurses per level: 100000 unclosed '[' overflowed the stack (a segfault).
  check_error("a = " + std::string(100000, '['), "test.toml", "(file)", "nested more than 64 levels deep (line 1)");
  std::string inline_tables = "a = ";
  for (int i = 0; i < 70; ++i) inline_tables += "{b = ";
  check_error(inline_tables, "test.toml", "(file)", "nested more than 64 levels deep");
  check_error(kBase + "x = " + std::string(65, '[') + std::string(65, ']') + "\n", "test.toml", "(file)",
              "nested more than 64 levels deep (line 15)");
  // 64 levels are within the limit: the loader's own rule decides (an unknown key here).
  check_error(kBase + "x = " + std::string(64, '[') + std::string(64, ']') + "\n", "lsi.x", "an array", "unknown key");
  // Brackets in strings and comments, and closed ones, do not count; headers and [[arrays]] close.
  std::string spread = kBase + "# " + std::string(100, '[') + "\n[analysis]\n";
  for (int i = 0; i < 100; ++i) spread += "[[events]]\nat_step = 1\nkind = \"post-processing\"\nlipschitz = 1\n";
  spread += "[output]\nrecord_steps = [[[1]]]\n";
  const SpecError e =
      error_of(spread + "s = \"" + std::string(100, '[') + "\"\nl = '''\n" + std::string(100, '{') + "'''\n");
  CHECK_THAT(e.rule(), !Catch::Contains("nested"));
  // The parser is quadratic in the parts of a dotted key (20000 parts took 10 s).
  std::string dotted;
  for (int i = 0; i < 20000; ++i) dotted += "x.";
  check_error(dotted + "y = 1\n", "test.toml", "(file)", "a dotted key of more than 64 parts (line 1)");
  check_error("[" + dotted + "y]\n", "test.toml", "(file)", "a dotted key of more than 64 parts");
  check_error("a = { " + dotted + "y = 1 }\n", "test.toml", "(file)", "a dotted key of more than 64 parts");
  // Dots in values are not key parts.
  std::string floats = "[orders]\nvalues = [";
  for (int i = 0; i < 100; ++i) floats += std::to_string(2 + i) + ".5, ";
  CHECK_NOTHROW(parse_config_text(with(kBase, "values", floats.substr(9) + "]"), "test.toml"));
  // Size: at most 64 MiB of text (models/size_limits.hpp).
  check_error(kBase + "# " + std::string(64u << 20, 'x') + "\n", "test.toml", "(file)", "at most 67108864 (64 MiB");
  // Arrays: toml11 reads one in time quadratic in its entries, so the entries are counted first
  // (strings, comments and nested arrays do not add to the enclosing array's count).
  std::string long_list = "a = [";
  for (int i = 0; i < 65537; ++i) long_list += i ? ",1" : "1";
  check_error(long_list + "]\n", "test.toml", "(file)", "an array of more than 65536 entries (line 1)");
  std::string entries_at_limit;  // 65536 entries: each array alone is within the limit
  for (int i = 0; i < 65536; ++i) entries_at_limit += i ? ",1" : "1";
  std::string many_lists;
  for (int k = 0; k < 3; ++k) many_lists += "a" + std::to_string(k) + " = [" + entries_at_limit + "]\n";
  check_error(many_lists, "test.toml", "(file)", "entries (nested arrays' included) squared sum to more than");
  // An array of arrays costs what it holds at every depth (toml11 took 19 s on 400 x 400): 30 rows
  // of 30 hold 900 entries, 810000 squared, more than two lists of 65535 leave (262142); counted row
  // by row (27900) they were let through.
  std::string square = "h = [";
  for (int i = 0; i < 30; ++i) square += std::string(i ? ", [" : "[") + entries_at_limit.substr(0, 59) + "]";
  square += "]\n";
  CHECK_THAT(error_of(square).rule(), !Catch::Contains("squared sum"));
  const std::string two_lists =
      "a = [" + entries_at_limit.substr(0, 131069) + "]\nb = [" + entries_at_limit.substr(0, 131069) + "]\n";
  check_error(two_lists + square, "test.toml", "(file)", "entries (nested arrays' included) squared sum to more than");
  // The budget is two of the longest lists, and a Hessian at its limit (256 x 256 = 2^16 entries) is
  // one of them: with a list of 2^16 it passes the text limits, with one entry more it does not.
  std::string hessian = "h = [";
  const std::string row = "[" + entries_at_limit.substr(0, 511) + "]";
  for (int i = 0; i < 256; ++i) hessian += (i ? ", " : "") + row;
  hessian += "]\n";
  const std::string longest = "a = [" + entries_at_limit + "]\n";
  CHECK_NOTHROW(check_toml_limits(hessian + longest, "test.toml"));
  CHECK_THROWS_AS(check_toml_limits(hessian + longest + "b = [1]\n", "test.toml"), SpecError);
  const SpecError not_counted = error_of(kBase + "s = \"" + std::string(70000, ',') + "\"\nq = [[1, 2], [3]]\n");
  CHECK_THAT(not_counted.rule(), !Catch::Contains("entries"));
  // Not UTF-8: a bad byte in a 'literal string' key made the TOML parser read out of bounds (fuzzer).
  check_error("' Ye \xfb Shokri' = 1\n", "test.toml", "(file)", "is not UTF-8 at byte 5 (line 1)");
  check_error(kBase + "# \xc0\xaf overlong\n", "test.toml", "(file)", "is not UTF-8 at byte");
  check_error("a = \"\xed\xa0\x80\"\n", "test.toml", "(file)", "is not UTF-8 at byte 5");           // a surrogate
  check_error("a = \"\xf4\x90\x80\x80\"\n", "test.toml", "(file)", "is not UTF-8 at byte 5");       // > U+10FFFF
  check_error("\n\na = \"\xe2\x82\"\n", "test.toml", "(file)", "is not UTF-8 at byte 7 (line 3)");  // cut short
  // Valid UTF-8 in strings and comments passes on to the usual checks.
  CHECK_NOTHROW(parse_config_text(kBase + "# \xce\xb1 = \xe2\x88\x9e, \xf0\x9f\x94\x92\n", "test.toml"));
  // orders.count = 2^62 was taken and filled the memory (mutation run): the orders limit.
  check_error("[orders]\nmin = 2\nmax = 3\ncount = 4611686018427387904\n", "orders.count", "4611686018427387904",
              "must be <= 65536 (2^16)");
  // n = 1e52 was converted to an integer with undefined behaviour (UBSan under the fuzzer).
  check_error(with(kBase, "n =", "n = 1.0333333333333333e52"), "algorithm.n", "1.0333333333333333e+52",
              "must be <= 2^53");
  // An index past 2^64 made stoul throw std::out_of_range, an internal error (exit 1).
  try {
    parse_config_text(kBase, "test.toml", {"algorithm.schedule[99999999999999999999999].eta=0.1"});
    FAIL("accepted");
  } catch (const SpecError& s) {
    CHECK_THAT(s.rule(), Catch::Contains("index 99999999999999999999999 is out of range"));
  }
  // --set values go through the same checks.
  try {
    parse_config_text(kBase, "test.toml", {"algorithm.sigma=" + std::string(1000, '[')});
    FAIL("accepted");
  } catch (const SpecError& s) {
    CHECK(s.key() == "--set algorithm.sigma");
    CHECK_THAT(s.rule(), Catch::Contains("nested more than 64"));
  }
}

TEST_CASE("Langevin with lsi.kind = \"strongly-convex\": lambda only, c = lambda/sigma^2 from the Gaussian start",
          "[config][langevin]") {
  const std::string sc = R"(
[orders]
values = [2, 8]
[algorithm]
kind = "langevin"
time = 10.0
sigma = 0.1
n = 1000
sensitivity = 2.0
intervals = 20
[lsi]
kind = "strongly-convex"
lambda = 0.5
)";
  const RunSpec spec = parse_config_text(sc, "t").spec;
  CHECK(spec.lsi.kind == LsiKind::StronglyConvex);
  CHECK(spec.lsi.lambda == 0.5);
  // The start N(0, (sigma^2/lambda) I) = N(0, 0.02 I) is 50-LSI, and so is every later law.
  const PrivacyProgram program = build_program(spec);
  CHECK(program.initial_inverse_lsi == Approx(0.02).epsilon(1e-15));
  const auto* c = std::get_if<ConstantLsi>(&program.phases().front().step.diffusion.lsi);
  REQUIRE(c != nullptr);
  CHECK(c->c == Approx(50.0).epsilon(1e-15));
  const ConstantProvenance p = constant_provenance(spec);
  auto has = [](const std::vector<std::string>& list, const std::string& prefix) {
    for (const auto& e : list)
      if (e.rfind(prefix, 0) == 0) return true;
    return false;
  };
  CHECK(has(p.declared, "lsi.lambda = 0.5 (strong convexity of the loss, and the start N(0, (sigma^2/lambda) I)"));
  CHECK(has(p.derived, "LSI constant = lambda/sigma^2 (from lsi.lambda"));
  CHECK_FALSE(has(p.declared, "lsi.beta"));

  check_error(sc + "beta = 4\n", "lsi.beta", "4", "is not used with algorithm.kind = \"langevin\"");
  check_error(with(sc, "lambda", "lambda = 0"), "lsi.lambda", "0", "must be a finite number > 0");
  check_error(with(sc, "lambda", "lambda = -1"), "lsi.lambda", "-1", "must be a finite number > 0");
  check_error(with(sc, "lambda", "lambda = inf"), "lsi.lambda", "inf", "must be a finite number");
  check_error(with(sc, "lambda", "c0 = 2"), "lsi.c0", "2", "unknown key");
  check_error(with(sc, "lambda", ""), "lsi.lambda", "missing", "required");
  check_error(sc + "[domain]\ndiameter = 2\n", "domain.diameter", "2", "unconstrained diffusion");
  // The recursion and the squared-loss model stay discrete-step models.
  check_error(with(sc, "kind = \"strongly-convex\"", "kind = \"recursion\"\nbeta = 1"), "lsi.kind", "\"recursion\"",
              "accepts only \"constant\", \"function\" or \"strongly-convex\"");
  // The model fixes c at every interval: a restart or an expanding map is refused, as for noisy GD.
  check_error(sc + "[[events]]\nafter_step = 3\nkind = \"lsi-restart\"\nc = 1\n", "events[0].kind", "\"lsi-restart\"",
              "needs lsi.kind = \"recursion\"");
  check_error(sc + "[[events]]\nafter_step = 3\nkind = \"lipschitz\"\nlipschitz = 2\n", "events[0].lipschitz", "2",
              "a Langevin run has no recursion: use lsi.kind = \"constant\"");
  CHECK_NOTHROW(parse_config_text(sc + "[[events]]\nafter_step = 3\nkind = \"lipschitz\"\nlipschitz = 1\n", "t"));
}

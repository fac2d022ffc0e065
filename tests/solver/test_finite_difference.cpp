// The finite-difference engine: agreement with the exact characteristics engine, convergence,
// certification of the optimal gamma on the Gaussian benchmarks.
#include <petscsys.h>

#include <catch2/catch.hpp>
#include <cmath>

#include "io/config.hpp"
#include "numerics/spec_error.hpp"
#include "models/privacy_model.hpp"
#include "models/run_limits.hpp"
#include "solver/characteristics_engine.hpp"
#include "solver/engine_registry.hpp"
#include "solver/finite_difference_engine.hpp"
#include "analyses/chourasia_2021_closed_forms.hpp"
#include "commands/convergence_study.hpp"

using namespace rdpdyn;

namespace {

struct FdRun {
  std::vector<std::int64_t> steps;
  std::vector<std::vector<double>> certified, fd;
  FiniteDifferenceSummary summary;
};

FdRun solve_fd(const RunConfig& cfg, const PrivacyProgram& program,
               CertificationMethod method = CertificationMethod::Composed, std::int64_t cloud_path_steps = 0) {
  FdRun run;
  FiniteDifferenceOptions options{cfg.grid, cfg.spec.record, {}};
  options.certification = method;
  // Cloud: by default from step 1 on (tests of the cloud itself).
  if (method == CertificationMethod::Cloud) options.cloud_path_steps = cloud_path_steps;
  run.summary = solve_by_finite_differences(PETSC_COMM_WORLD, program, cfg.spec.initial, cfg.spec.orders, options,
                                            [&](std::int64_t step, double, double, std::span<const double> c,
                                                std::span<const double> f, std::span<const double>) {
                                              run.steps.push_back(step);
                                              run.certified.emplace_back(c.begin(), c.end());
                                              run.fd.emplace_back(f.begin(), f.end());
                                            });
  return run;
}

FdRun solve_fd(const RunConfig& cfg, CertificationMethod method = CertificationMethod::Composed) {
  return solve_fd(cfg, build_program(cfg.spec), method);
}

/// Largest relative difference new/old - 1 over records and orders, both signs kept apart.
struct Spread {
  double below = 0.0, above = 0.0;  // max of (old - new)/old and (new - old)/old
  std::size_t record_above = 0, order_above = 0;
};
Spread spread(const FdRun& composed, const FdRun& shooting) {
  Spread s;
  for (std::size_t r = 0; r < composed.certified.size(); ++r)
    for (std::size_t j = 0; j < composed.certified[r].size(); ++j) {
      const double a = composed.certified[r][j], b = shooting.certified[r][j];
      if (b == 0.0) continue;
      s.below = std::max(s.below, (b - a) / b);
      if ((a - b) / b > s.above) {
        s.above = (a - b) / b;
        s.record_above = r;
        s.order_above = j;
      }
    }
  return s;
}

Solution solve_exact(const RunConfig& cfg) {
  return solve_by_characteristics(build_program(cfg.spec), cfg.spec.initial, cfg.spec.orders, {cfg.spec.record, {}});
}

const std::string kStronglyConvex = R"(
[orders]
values = [1.5, 2, 10, 30]
[algorithm]
kind = "noisy-gd"
steps = 200
eta = 0.02
sigma = 0.02
n = 5000
sensitivity = 4
[lsi]
kind = "recursion"
lambda = 1
beta = 4
c0 = 1250
[analysis]
gamma = 0.5
engine = "finite-difference"
[output]
record_every = 50
)";

/// kStronglyConvex with its LSI recursion replaced by the schedule c = `expression` in (s, t, alpha).
std::string with_lsi_function(std::string text, const std::string& expression) {
  text.replace(text.find("kind = \"recursion\""), 18, "kind = \"function\"\nc = \"" + expression + "\" #");
  text.replace(text.find("lambda = 1"), 10, "");
  text.replace(text.find("beta = 4"), 8, "");
  text.replace(text.find("c0 = 1250"), 9, "");
  return text;
}

}  // namespace

TEST_CASE("Linear data: the finite-difference engine matches the characteristics engine to 1e-6", "[fd]") {
  const RunConfig cfg = parse_config_text(kStronglyConvex, "t");  // default grid
  const FdRun fd = solve_fd(cfg);
  const Solution exact = solve_exact(cfg);
  REQUIRE(fd.steps == exact.steps);
  for (std::size_t r = 1; r < exact.record_count(); ++r)
    for (std::size_t j = 0; j < exact.orders.size(); ++j) {
      CHECK(fd.fd[r][j] == Approx(exact.row(r)[j]).epsilon(1e-6));
      // The certification integrates the same linear PDI exactly, landing at or above the order.
      CHECK(fd.certified[r][j] >= exact.row(r)[j] * (1 - 1e-12));
      CHECK(fd.certified[r][j] == Approx(exact.row(r)[j]).epsilon(1e-8));
    }
}

TEST_CASE("Bounded-domain LSI (non-convex loss): the finite-difference engine certifies the characteristics' values",
          "[fd][nonconvex]") {
  // docs/math.md section 2.7: the recursion through a (1 + eta beta)-Lipschitz map, capped at every
  // step's end; both engines take the same program.
  const RunConfig cfg = parse_config_text(R"(
[orders]
values = [2.0, 4.0, 8.0]
[algorithm]
kind = "noisy-gd"
loss = "nonconvex"
n = 1
steps = 60
eta = 0.1
sigma = 1.5
sensitivity = 1.0
[lsi]
kind = "bounded-domain"
beta = 2.0
[domain]
diameter = 1.0
lipschitz_loss = true
[analysis]
gamma = 0.5
engine = "finite-difference"
[output]
record_every = 20
)",
                                          "t");
  const FdRun fd = solve_fd(cfg);
  const Solution exact = solve_exact(cfg);
  REQUIRE(fd.steps == exact.steps);
  for (std::size_t r = 1; r < exact.record_count(); ++r)
    for (std::size_t j = 0; j < exact.orders.size(); ++j) {
      CHECK(fd.certified[r][j] >= exact.row(r)[j] * (1 - 1e-12));
      CHECK(fd.certified[r][j] == Approx(exact.row(r)[j]).epsilon(1e-6));
    }
}

TEST_CASE("Nonlinear initial data converge at second order to the exact characteristic solution", "[fd][convergence]") {
  // R_0 = 0.01 alpha^2 (smooth), alpha-independent coefficients: the characteristics engine is exact.
  std::string text = kStronglyConvex;
  text +=
      "[initial]\nkind = \"power\"\nscale = 0.01\nexponent = 2\n[grid]\nalpha_min = 1.0001\nalpha_max = 200\ncells = "
      "128\n";
  const RunConfig cfg = parse_config_text(text, "t");
  const ConvergenceStudy study = run_convergence_study(cfg, PETSC_COMM_WORLD, 4);
  REQUIRE(study.rows.size() == 4);
  for (std::size_t g = 1; g < study.rows.size(); ++g) {
    INFO("cells " << study.rows[g].cells << " error " << study.rows[g].max_relative_error);
    CHECK(study.rows[g].observed_order >= 1.8);
  }
  CHECK(study.rows.back().max_relative_error < 1e-4);
}

namespace {

/// The squared loss (C21 Thm 3 gives its exact divergence) with the optimal gamma on the
/// finite-difference engine, `steps` steps recorded every `record_every`.
std::string squared_loss_optimal_gamma(int steps, int record_every) {
  return "[orders]\nvalues = [2, 10, 30]\n[algorithm]\nkind = \"noisy-gd\"\nloss = \"squared\"\nsteps = " +
         std::to_string(steps) +
         "\neta = 0.05\nsigma = 0.1\nn = 100\nsensitivity = 2\n[lsi]\nkind = \"recursion\"\n[analysis]\n"
         "gamma = \"optimal\"\nengine = \"finite-difference\"\n[grid]\ncells = 512\n[output]\nrecord_every = " +
         std::to_string(record_every) + "\n";
}

}  // namespace

TEST_CASE("Optimal gamma on the squared loss: certified >= exact divergence, within 1e-4", "[fd][optimal]") {
  const std::string text = squared_loss_optimal_gamma(60, 5);
  const RunConfig cfg = parse_config_text(text, "t");
  const FdRun fd = solve_fd(cfg);
  for (std::size_t r = 1; r < fd.steps.size(); ++r)
    for (std::size_t j = 0; j < cfg.spec.orders.size(); ++j) {
      // C21 Thm 3: the exact divergence, a lower bound of every sound bound.
      const double exact =
          closed_forms::thm3_exact(cfg.spec.orders[j], 2.0, 100, 0.1, 0.05, static_cast<double>(fd.steps[r]));
      REQUIRE(fd.certified[r][j] >= exact);
      CHECK(fd.certified[r][j] <= exact * (1 + 1e-4));
      CHECK(fd.fd[r][j] == Approx(exact).epsilon(1e-6));
    }
}

TEST_CASE("A program by phases gives the per-step expansion's values to the bit", "[fd][phases]") {
  // Two phases and a release after step 12, optimal gamma (the certification's gamma history).
  const std::string text =
      kStronglyConvex +
      "[[algorithm.schedule]]\nsteps = 20\n[[algorithm.schedule]]\nsteps = 10\neta = 0.01\n"
      "[[events]]\nafter_step = 12\nkind = \"gaussian-release\"\nsensitivity = 0.001\nnoise_std = 0.05\n"
      "[grid]\ncells = 128\n";
  const RunConfig cfg =
      parse_config_text(text, "t", {"algorithm.steps=30", "analysis.gamma=optimal", "output.record_every=4"});
  const PrivacyProgram phased = build_program(cfg.spec);
  REQUIRE(phased.phases().size() == 4);  // [0, 11), 11, [12, 20), [20, 30)
  PrivacyProgram expanded;
  expanded.initial_inverse_lsi = phased.initial_inverse_lsi;
  phased.for_each_step([&](std::int64_t, const ProgramStep& step) { expanded.append(step); });
  const FdRun a = solve_fd(cfg, phased), b = solve_fd(cfg, expanded);
  REQUIRE(a.steps == b.steps);
  REQUIRE(a.steps.size() == 9);
  CHECK(a.certified == b.certified);  // operator== on doubles: equal values (no NaN here)
  CHECK(a.fd == b.fd);
  CHECK(a.summary.time_steps == b.summary.time_steps);
  CHECK(a.certified.back()[0] > 0.0);
}

TEST_CASE("Optimal gamma with Gaussian initial laws (mean gap): certified >= exact divergence", "[fd][optimal]") {
  // N(m0, v0) vs N(0, v0) under the squared loss stay Gaussian: R = alpha m^2 / (2 v) exactly.
  const double eta = 0.1, sigma = 0.5, m0 = 0.1, v0 = 1.0, Sv = 0.02;
  std::string text = R"(
[orders]
values = [1.5, 4, 20]
[algorithm]
kind = "noisy-gd"
loss = "squared"
steps = 30
eta = 0.1
sigma = 0.5
n = 100
sensitivity = 2
[lsi]
kind = "recursion"
c0 = 1.0
[analysis]
gamma = "optimal"
engine = "finite-difference"
[initial]
kind = "linear"
slope = 0.005
[grid]
cells = 512
)";
  const RunConfig cfg = parse_config_text(text, "t");
  const FdRun fd = solve_fd(cfg);
  double m = m0, v = v0;
  for (std::size_t r = 0; r < fd.steps.size(); ++r) {
    for (std::size_t j = 0; j < cfg.spec.orders.size(); ++j) {
      const double exact = cfg.spec.orders[j] * m * m / (2 * v);
      REQUIRE(fd.certified[r][j] >= exact * (1 - 1e-12));
      CHECK(fd.certified[r][j] <= exact * (1 + 1e-4));
    }
    m = (1 - eta) * m + eta * Sv;
    v = (1 - eta) * (1 - eta) * v + 2 * eta * sigma * sigma;
  }
}

TEST_CASE("Optimal gamma with nonlinear data is certified and never worse than gamma = 1/2", "[fd][optimal]") {
  std::string text = kStronglyConvex;
  text.replace(text.find("gamma = 0.5"), 11, "gamma = \"optimal\"");
  text +=
      "[initial]\nkind = \"power\"\nscale = 0.001\nexponent = 2\n[grid]\nalpha_min = 1.0001\nalpha_max = 200\ncells = "
      "1024\n";
  const RunConfig optimal = parse_config_text(text, "t");
  std::string fixed_text = text;
  fixed_text.replace(fixed_text.find("gamma = \"optimal\""), 17, "gamma = 0.5");
  const RunConfig fixed = parse_config_text(fixed_text, "t");
  const FdRun fd = solve_fd(optimal);
  const Solution half = solve_exact(fixed);
  for (std::size_t r = 1; r < fd.steps.size(); ++r)
    for (std::size_t j = 0; j < optimal.spec.orders.size(); ++j) {
      CHECK(fd.certified[r][j] <= half.row(r)[j] * (1 + 1e-6));
      // The monotone optimal-gamma scheme is first order: its value approximates the certified
      // one to the grid's accuracy (the gap is reported in the output).
      CHECK(fd.certified[r][j] == Approx(fd.fd[r][j]).epsilon(1e-2));
    }
}

TEST_CASE("A gamma field gamma(alpha, t) is certified exactly along curved characteristics", "[fd][field]") {
  std::string text = kStronglyConvex;
  text.replace(text.find("gamma = 0.5"), 11, "gamma = \"0.3 + 0.5 * alpha / (alpha + 10)\"");
  text += "[grid]\ncells = 1024\n";
  const RunConfig cfg = parse_config_text(text, "t");
  const FdRun fd = solve_fd(cfg);
  for (std::size_t r = 1; r < fd.steps.size(); ++r)
    for (std::size_t j = 0; j < cfg.spec.orders.size(); ++j)
      CHECK(fd.certified[r][j] == Approx(fd.fd[r][j]).epsilon(1e-4));
  // The characteristics engine refuses order-dependent coefficients.
  std::string refused = text;
  refused.replace(refused.find("engine = \"finite-difference\""), 28, "engine = \"characteristics\"");
  CHECK_THROWS(parse_config_text(refused, "t"));
}

TEST_CASE("An LSI schedule written in alpha runs on the finite-difference engine", "[fd][field]") {
  // c(s, t, alpha) = 1250 (1 + 0 alpha): the same run as the constant c = 1250, certified.
  std::string text = kStronglyConvex;
  text = with_lsi_function(text, "1250 * (1 + 0 * alpha)");
  const RunConfig cfg = parse_config_text(text, "t");
  REQUIRE(cfg.spec.lsi.function.depends_on_alpha);
  std::string constant = kStronglyConvex;
  constant.replace(constant.find("kind = \"recursion\""), 18, "kind = \"constant\"\nc = 1250 #");
  constant.replace(constant.find("lambda = 1"), 10, "");
  constant.replace(constant.find("beta = 4"), 8, "");
  constant.replace(constant.find("c0 = 1250"), 9, "");
  const RunConfig reference = parse_config_text(constant, "t");
  const FdRun fd = solve_fd(cfg);
  const Solution exact = solve_exact(reference);
  for (std::size_t r = 1; r < exact.record_count(); ++r)
    for (std::size_t j = 0; j < exact.orders.size(); ++j) {
      CHECK(fd.certified[r][j] >= exact.row(r)[j] * (1 - 1e-12));
      CHECK(fd.certified[r][j] == Approx(exact.row(r)[j]).epsilon(1e-7));
    }
}

TEST_CASE("A tabulated start bounds the grid: alpha_max defaults to the table's end", "[fd]") {
  std::string text = kStronglyConvex;
  text += "[initial]\nkind = \"table\"\nalpha = [1.2, 2, 10, 40]\nR = [0.001, 0.002, 0.02, 0.1]\n";
  const RunConfig cfg = parse_config_text(text, "t");
  CHECK(cfg.grid.alpha_max == 40.0);
  const FdRun fd = solve_fd(cfg);
  for (const auto& row : fd.fd)
    for (double v : row) CHECK(std::isfinite(v));
  CHECK_THROWS_AS(parse_config_text(text + "[grid]\nalpha_max = 50\n", "t"), SpecError);
}

TEST_CASE("Composed certification on straight characteristics: the shooting's values, never below the exact ones",
          "[fd][certification]") {
  // gamma = 1/2, LSI recursion (Gaussian-convolution family), nonlinear data, a release: every
  // step is straight, the composed flows replace Odeint. The characteristics engine is exact here.
  const std::string text =
      kStronglyConvex +
      "[initial]\nkind = \"power\"\nscale = 0.01\nexponent = 2\n"
      "[grid]\nalpha_min = 1.0001\nalpha_max = 200\ncells = 128\n"
      "[[events]]\nafter_step = 7\nkind = \"gaussian-release\"\nsensitivity = 0.001\nnoise_std = 0.05\n";
  const RunConfig cfg = parse_config_text(text, "t", {"algorithm.steps=60", "output.record_every=1"});
  const FdRun composed = solve_fd(cfg), shooting = solve_fd(cfg, CertificationMethod::Shooting);
  const Solution exact = solve_exact(cfg);
  REQUIRE(composed.steps == shooting.steps);
  REQUIRE(exact.record_count() == composed.steps.size());
  double worst = 0.0;
  for (std::size_t r = 0; r < composed.steps.size(); ++r)
    for (std::size_t j = 0; j < cfg.spec.orders.size(); ++j) {
      const double e = exact.row(r)[j];
      REQUIRE(composed.certified[r][j] >= e * (1 - 1e-12));
      worst = std::max(worst, composed.certified[r][j] / e - 1.0);
      CHECK(composed.certified[r][j] == Approx(shooting.certified[r][j]).epsilon(1e-8));
    }
  CHECK(worst < 1e-11);  // rounding slack only
}

TEST_CASE(
    "Composed certification with the optimal gamma on the squared loss: never below Thm 3, as tight as the shooting",
    "[fd][certification][optimal]") {
  const std::string text = squared_loss_optimal_gamma(40, 4);
  const RunConfig cfg = parse_config_text(text, "t");
  const FdRun composed = solve_fd(cfg), shooting = solve_fd(cfg, CertificationMethod::Shooting);
  for (std::size_t r = 1; r < composed.steps.size(); ++r)
    for (std::size_t j = 0; j < cfg.spec.orders.size(); ++j) {
      const double exact =
          closed_forms::thm3_exact(cfg.spec.orders[j], 2.0, 100, 0.1, 0.05, static_cast<double>(composed.steps[r]));
      REQUIRE(composed.certified[r][j] >= exact);
      CHECK(composed.certified[r][j] <= exact * (1 + 1e-4));
    }
  // A gamma constant on each piece between snapshots instead of the field interpolated in time:
  // measured 9.2e-6 above the shooting at most.
  const Spread s = spread(composed, shooting);
  CHECK(s.below < 1e-6);
  CHECK(s.above < 2e-5);
  const FdRun cloud = solve_fd(cfg, CertificationMethod::Cloud);
  for (std::size_t r = 1; r < cloud.steps.size(); ++r)
    for (std::size_t j = 0; j < cfg.spec.orders.size(); ++j) {
      const double exact =
          closed_forms::thm3_exact(cfg.spec.orders[j], 2.0, 100, 0.1, 0.05, static_cast<double>(cloud.steps[r]));
      REQUIRE(cloud.certified[r][j] >= exact);
      CHECK(cloud.certified[r][j] <= exact * (1 + 1e-4));
    }
  // The cloud's chords: measured 0 below and 5.97e-5 above the shooting (record 10, order 2).
  const Spread c = spread(cloud, shooting);
  INFO("cloud vs shooting: at most " << c.below << " below, " << c.above << " above (record " << c.record_above
                                     << ", order " << cfg.spec.orders[c.order_above] << ")");
  CHECK(c.below < 1e-6);
  CHECK(c.above < 2e-4);
}

TEST_CASE("Composed certification on curved characteristics stays within 1e-4 of the shooting",
          "[fd][certification][optimal]") {
  // examples/fd_optimal_nonlinear.toml, shortened: the optimal gamma on tabulated data (curved
  // characteristics), a phase with gamma = 1/2 in the middle (straight) and a release.
  const std::string text = R"(
[orders]
min = 1.5
max = 64
count = 8
[algorithm]
kind = "noisy-gd"
steps = 40
eta = 0.05
sigma = 0.1
n = 1000
sensitivity = 2.0
[[algorithm.schedule]]
steps = 15
[[algorithm.schedule]]
steps = 10
gamma = 0.5
[[algorithm.schedule]]
steps = 15
[lsi]
kind = "recursion"
lambda = 1
beta = 4
c0 = 50.0
[analysis]
gamma = "optimal"
engine = "finite-difference"
[grid]
alpha_min = 1.0001
alpha_max = 256
cells = 512
[initial]
kind = "table"
alpha = [1.0001, 1.5, 2, 3, 4, 8, 16, 32, 64, 256]
R = [0.0021, 0.0021, 0.0028, 0.0043, 0.0058, 0.0125, 0.0301, 0.0922, 0.441, 4.0]
[[events]]
after_step = 30
kind = "gaussian-release"
sensitivity = 0.001
noise_std = 0.05
[output]
record_every = 5
)";
  const RunConfig cfg = parse_config_text(text, "t");
  const FdRun composed = solve_fd(cfg), shooting = solve_fd(cfg, CertificationMethod::Shooting);
  REQUIRE(composed.steps == shooting.steps);
  const Spread s = spread(composed, shooting);
  // A gamma constant on each piece along the path instead of the field interpolated in time:
  // another valid gamma, so the two may differ either way, to second order in the piece length.
  CHECK(s.below < 1e-4);
  CHECK(s.above < 1e-4);
  WARN("composed vs shooting: at most " << s.below << " below, " << s.above << " above");
  // The cloud: chords between neighbouring paths carried from t = 0 (no value below the paths').
  const FdRun cloud = solve_fd(cfg, CertificationMethod::Cloud);
  const Spread c = spread(cloud, shooting);
  CHECK(c.below < 1e-4);
  CHECK(c.above < 1e-3);
  WARN("cloud vs shooting: at most " << c.below << " below, " << c.above << " above (record " << c.record_above
                                     << ", order " << cfg.spec.orders[c.order_above] << ")");
}

TEST_CASE("Looseness of the cloud on examples/fd_optimal_nonlinear.toml (600 steps)", "[fd][certification]") {
  // The cloud's chords against one path per value, on the example itself (docs/finite-difference.md
  // §5; 2.4 s): never below the paths, at most 1e-3 above (measured 8.4e-5 with the default rule).
  const RunConfig cfg = load_config(std::string(RDPDYN_SOURCE_DIR) + "/examples/fd_optimal_nonlinear.toml",
                                    {"algorithm.steps=600", "output.record_every=20"});
  const FdRun paths = solve_fd(cfg, build_program(cfg.spec), CertificationMethod::Paths);
  for (const std::int64_t path_steps : {std::int64_t{0}, std::int64_t{-1}}) {
    // -1: the default rule (own paths for the first 4 x cloud size / orders steps, here ~100).
    const FdRun cloud = solve_fd(cfg, build_program(cfg.spec), CertificationMethod::Cloud, path_steps);
    const Spread s = spread(cloud, paths);
    WARN("path_steps " << path_steps << ": cloud vs paths: at most " << s.below << " below, " << s.above
                       << " above (record " << s.record_above << ", order " << cfg.spec.orders[s.order_above] << ")");
    CHECK(s.below < 1e-12);
    CHECK(s.above < 1e-3);
  }
}

TEST_CASE("Composed certification with an LSI schedule in t: Odeint's transport error carried through the composition",
          "[fd][certification]") {
  // c(s, t) = 1250 / (1 + 10 t): straight steps whose flows come from Odeint with an a-posteriori
  // error (IntervalFlow::transport_error), composed over the run.
  std::string text = kStronglyConvex;
  text = with_lsi_function(text, "1250 / (1 + 10 * t)");
  text +=
      "[initial]\nkind = \"power\"\nscale = 0.01\nexponent = 2\n[grid]\nalpha_min = 1.0001\nalpha_max = 200\ncells = "
      "128\n";
  const RunConfig cfg = parse_config_text(text, "t", {"algorithm.steps=40", "output.record_every=8"});
  REQUIRE_FALSE(cfg.spec.lsi.function.depends_on_alpha);
  const FdRun composed = solve_fd(cfg), shooting = solve_fd(cfg, CertificationMethod::Shooting);
  const Solution exact = solve_exact(cfg);
  for (std::size_t r = 0; r < composed.steps.size(); ++r)
    for (std::size_t j = 0; j < cfg.spec.orders.size(); ++j) {
      CHECK(composed.certified[r][j] >= exact.row(r)[j] * (1 - 1e-9));
      CHECK(composed.certified[r][j] == Approx(shooting.certified[r][j]).epsilon(1e-8));
    }
}

// ---- algorithm.kind = "pdi" (the PDI by its coefficients) on this engine --------------------------

namespace {

/// A pdi run on [0, T] in 100 intervals with constant c = 5 (docs/config.md, kind = "pdi").
std::string pdi_fd_run(const std::string& coefficients, const std::string& gamma, double time = 2.0) {
  return "[orders]\nvalues = [1.5, 2, 10, 30]\n[algorithm]\nkind = \"pdi\"\ntime = " + std::to_string(time) +
         "\nintervals = 100\n" + coefficients +
         "[lsi]\nkind = \"constant\"\nc = 5\n[analysis]\nengine = "
         "\"finite-difference\"\ngamma = " +
         gamma + "\n[output]\nrecord_every = 20\n";
}

}  // namespace

TEST_CASE("kind = \"pdi\" on the finite-difference engine reproduces C21 Thm 1 and Thm 2 to 1e-12", "[fd][pdi]") {
  // Thm 1 (gamma = 1: no LSI term in eq. (13)): alpha S_v^2 T / (4 sigma^2); Thm 2 (gamma = 1/2,
  // constant c), eq. (68) with S = S_v, n = 1. The certified values (straight characteristics,
  // closed-form flows rounded outward) at every record, and the scheme's own values.
  const double sigma = 0.1, Sv = 0.002, c = 5.0;
  for (const char* gamma : {"1", "0.5"}) {
    const RunConfig cfg = parse_config_text(pdi_fd_run("sigma = 0.1\nsensitivity = 0.002\n", gamma), "t");
    const FdRun fd = solve_fd(cfg);
    REQUIRE(fd.steps.size() == 6);
    double worst = 0.0, worst_fd = 0.0;
    for (std::size_t r = 1; r < fd.steps.size(); ++r) {
      const double t = 0.02 * static_cast<double>(fd.steps[r]);
      for (std::size_t j = 0; j < cfg.spec.orders.size(); ++j) {
        const double alpha = cfg.spec.orders[j];
        const double bound = std::string(gamma) == "1" ? closed_forms::thm1(alpha, Sv, sigma, t)
                                                       : closed_forms::thm2(alpha, Sv, 1.0, sigma, c, 0.5, t);
        CHECK(fd.certified[r][j] >= bound * (1.0 - 1e-15));
        worst = std::max(worst, std::abs(fd.certified[r][j] - bound) / bound);
        worst_fd = std::max(worst_fd, std::abs(fd.fd[r][j] - bound) / bound);
      }
    }
    INFO("gamma = " << gamma << ": certified within " << worst << ", scheme within " << worst_fd);
    CHECK(worst < 1e-12);
    CHECK(worst_fd < 1e-6);  // the scheme on linear data (its second-order error), not certified
  }
}

TEST_CASE("kind = \"pdi\" on the finite-difference engine equals the equivalent Langevin run", "[fd][pdi]") {
  // Langevin with S_v = S_g / n = 2/1000 is the same PDI: the same program, the same values.
  const std::string gamma = GENERATE(std::string("0.5"), std::string("\"optimal\""));
  const RunConfig pdi = parse_config_text(pdi_fd_run("sigma = 0.1\nsensitivity = 0.002\n", gamma), "t");
  std::string text = pdi_fd_run("sigma = 0.1\nsensitivity = 2\nn = 1000\n", gamma);
  text.replace(text.find("kind = \"pdi\""), 12, "kind = \"langevin\"");
  const RunConfig langevin = parse_config_text(text, "t");
  const FdRun a = solve_fd(pdi), b = solve_fd(langevin);
  REQUIRE(a.steps == b.steps);
  for (std::size_t r = 1; r < a.steps.size(); ++r)
    for (std::size_t j = 0; j < pdi.spec.orders.size(); ++j) {
      CHECK(a.certified[r][j] == Approx(b.certified[r][j]).epsilon(1e-12));
      CHECK(a.fd[r][j] == Approx(b.fd[r][j]).epsilon(1e-12));
    }
}

TEST_CASE("kind = \"pdi\" with a decaying S_v(t) on the finite-difference engine: certified above the exact integral",
          "[fd][pdi]") {
  // S_v(t) = S0 e^{-t/tau}, gamma = 1/2, constant sigma, c: w(T) = S0^2 / (4 gamma sigma^2)
  // (e^{-2T/tau} - e^{-a1 T}) / (a1 - 2/tau), a1 = 2 (1-gamma) sigma^2 c, R = alpha w. The
  // certification integrates S_v(t) exactly (Odeint, biased outward).
  const double S0 = 0.002, tau = 2.0, sigma = 0.1, c = 5.0, gamma = 0.5, T = 10.0;
  const RunConfig cfg =
      parse_config_text(pdi_fd_run("sigma = 0.1\nsensitivity = \"0.002 * exp(-t / 2)\"\n", "0.5", T), "t");
  const FdRun fd = solve_fd(cfg);
  const Solution chars = solve_exact(cfg);
  const double a1 = 2.0 * (1.0 - gamma) * sigma * sigma * c;
  const double w =
      S0 * S0 / (4.0 * gamma * sigma * sigma) * (std::exp(-2.0 * T / tau) - std::exp(-a1 * T)) / (a1 - 2.0 / tau);
  for (std::size_t j = 0; j < cfg.spec.orders.size(); ++j) {
    const double exact = cfg.spec.orders[j] * w;
    CHECK(fd.certified.back()[j] >= exact);
    CHECK(fd.certified.back()[j] == Approx(exact).epsilon(1e-8));
    CHECK(fd.fd.back()[j] == Approx(exact).epsilon(1e-6));
    CHECK(chars.final_row()[j] == Approx(fd.certified.back()[j]).epsilon(1e-8));
  }
}

TEST_CASE("kind = \"pdi\" with S_v(t) and the optimal gamma on the finite-difference engine", "[fd][pdi][optimal]") {
  // The certification follows the engine's gamma snapshots with sigma(t), S_v(t) evaluated at every
  // time (shooting); the characteristics engine's exact optimal-gamma flow is the reference.
  const RunConfig cfg = parse_config_text(
      pdi_fd_run("sigma = \"0.1 * sqrt(1 + t / 10)\"\nsensitivity = \"0.002 * exp(-t / 2)\"\n", "\"optimal\"", 10.0),
      "t");
  const FdRun fd = solve_fd(cfg);
  const Solution chars = solve_exact(cfg);
  REQUIRE(fd.steps == chars.steps);
  double worst = 0.0;
  for (std::size_t r = 1; r < fd.steps.size(); ++r)
    for (std::size_t j = 0; j < cfg.spec.orders.size(); ++j) {
      CHECK(fd.certified[r][j] >= chars.row(r)[j] * (1.0 - 1e-9));
      worst = std::max(worst, fd.certified[r][j] / chars.row(r)[j] - 1.0);
    }
  INFO("certified above the exact optimal-gamma flow by at most " << worst);
  CHECK(worst < 1e-4);
}

TEST_CASE("Memory estimate of the finite-difference engine: grid vectors and the optimal-gamma history",
          "[run_limits]") {
  const std::unique_ptr<Engine> engine = make_finite_difference_engine(MPI_COMM_SELF);
  auto part = [](const MemoryEstimate& e, const std::string& key) {
    double bytes = 0.0;
    for (const auto& t : e.terms)
      if (t.key == key) bytes += t.bytes;
    return bytes;
  };
  RunConfig c;
  c.engine = "finite-difference";
  c.spec.orders = {2, 10};
  c.spec.algorithm.n = 1000;
  c.spec.algorithm.sensitivity = 1.0;
  c.spec.algorithm.phases = {Phase::of(100, 0.01, 0.1)};
  c.spec.lsi = LsiSpec::constant(1.0);
  c.spec.gamma = GammaChoice::optimal();
  const MemoryEstimate e = estimate_run_memory(c, *engine, RunCommand::Solve);
  CHECK(part(e, "grid.cells") == 2048.0 * 16 * 8);
  // Per step: 24 B of bookkeeping + (4 + 1) snapshots x (256 x 4 B + 32 B).
  CHECK(part(e, "algorithm.steps") == 100.0 * (24 + 5 * (256 * 4 + 32)));
  // A fixed gamma keeps no snapshots.
  c.spec.gamma = GammaChoice::fixed(0.5);
  CHECK(part(estimate_run_memory(c, *engine, RunCommand::Solve), "algorithm.steps") == 100.0 * 24);
}

TEST_CASE("The reference engine and the finite-difference engine agree on order-dependent coefficients",
          "[fd][reference]") {
  // A gamma field and an LSI schedule that reads alpha: the two engines that take them, computed
  // independently (a grid with certification along characteristics; the characteristic ODEs).
  std::string text = kStronglyConvex;
  text.replace(text.find("gamma = 0.5"), 11, "gamma = \"0.3 + 0.5 * alpha / (alpha + 10)\"");
  text = with_lsi_function(text, "1250 * (1 + 0.002 * alpha)");
  text += "[grid]\ncells = 1024\n";
  const RunConfig cfg = parse_config_text(text, "t");
  REQUIRE(cfg.spec.lsi.function.depends_on_alpha);
  const FdRun fd = solve_fd(cfg);
  std::string ref_text = text;
  ref_text.replace(ref_text.find("engine = \"finite-difference\""), 28, "engine = \"reference\"");
  const RunConfig ref_cfg = parse_config_text(ref_text, "t");
  struct Rows final : RecordObserver {
    std::vector<std::vector<double>> rows;
    void record(const EngineRecord& r) override { rows.emplace_back(r.R.begin(), r.R.end()); }
  } rows;
  const EngineRegistry engines = engine_registry(MPI_COMM_SELF);
  engines.find("reference")
      ->solve(build_program(ref_cfg.spec), ref_cfg.spec.initial, ref_cfg.spec.orders, {ref_cfg.spec.record, {}, {}, {}},
              rows);
  REQUIRE(rows.rows.size() == fd.certified.size());
  for (std::size_t r = 1; r < fd.steps.size(); ++r)
    for (std::size_t j = 0; j < cfg.spec.orders.size(); ++j) {
      INFO("record " << r << ", order " << cfg.spec.orders[j] << ": certified " << fd.certified[r][j] << ", reference "
                     << rows.rows[r][j]);
      CHECK(rows.rows[r][j] <= fd.certified[r][j] * (1.0 + 1e-8));
      CHECK(rows.rows[r][j] == Approx(fd.certified[r][j]).epsilon(1e-4));
    }
}

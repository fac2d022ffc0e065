// HDF5 report output: exact round trip, atomic write (no leftovers on failure, replace on
// success), streaming record by record, extras, reading schema-1 files, closed forms streamed
// by `rdpdyn solve` equal to their whole-array evaluation.
#include <H5Cpp.h>
#include <unistd.h>

#include <bit>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include "analyses/chourasia_2021.hpp"
#include "numerics/outward_rounding.hpp"
#include "io/config.hpp"
#include "io/hdf5_output.hpp"
#include "models/privacy_model.hpp"
#include "solver/characteristics_engine.hpp"

namespace fs = std::filesystem;
using namespace rdpdyn;

namespace {

/// A fresh empty directory, removed with its contents at scope exit.
struct TempDir {
  fs::path path;
  TempDir() {
    static int counter = 0;
    path = fs::temp_directory_path() / ("rdpdyn-h5-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ignored;
    fs::remove_all(path, ignored);
  }
  std::size_t entries() const { return static_cast<std::size_t>(std::distance(fs::directory_iterator(path), {})); }
};

// Bit patterns, so that -0.0 vs 0.0 and the last ulp count as differences.
std::vector<std::uint64_t> bits(const std::vector<double>& values) {
  std::vector<std::uint64_t> out;
  for (const double v : values) out.push_back(std::bit_cast<std::uint64_t>(v));
  return out;
}

/// 3 records x 4 orders with awkward values: inf (point mass), -0.0, subnormal, non-dyadic.
RunReport sample_report() {
  const double inf = std::numeric_limits<double>::infinity();
  RunReport report;
  Solution& s = report.solution;
  s.orders = {1.0000001, 2.0, 10.0 / 3.0, 1024.0};
  s.times = {0.0, 0.1, 0.1 + 0.2};
  s.steps = {0, 1, std::int64_t{1} << 40};
  s.lsi_constant = {inf, 1.0 / 3.0, 12.5};
  s.R = {-0.0,
         0.0,
         std::numeric_limits<double>::denorm_min(),
         1e-300,
         std::nextafter(1.0, 2.0),
         0.1,
         std::sqrt(2.0),
         3.0e5,
         std::exp(1.0),
         1.0 / 7.0,
         123456.789,
         std::numeric_limits<double>::max()};
  ClosedFormCurves cor1;
  cor1.name = "cor1";
  cor1.citation = "C21 Cor 1";
  cor1.role = "upper-bound";
  for (const double r : s.R) cor1.R.push_back(2.0 * r + 0.3);
  report.closed_forms.push_back(cor1);
  RunMetadata& m = report.metadata;
  m.config_text = "# Rényi dynamics\n[privacy]\norders = [2, 4]\n\tsigma = 0.5\n";
  m.config_path = "";  // empty strings must round-trip too
  m.program_version = "0.1.0";
  m.engine = "characteristics";
  m.gamma_mode = "optimal";
  m.algorithm = "noisy-gd";
  m.lsi_model = "strongly-convex";
  m.initial_curve = "zero";
  m.method = "";
  m.declared_constants = {"algorithm.sensitivity = 4 (S_g; depends on the data)",
                          "lsi.c = \"1/(1 + s)\" (Rényi; not checked)"};
  m.derived_constants = {};  // an empty list round-trips too
  RowSeries fd{"fd-value", "finite-difference value", kUnitsRdp, {}};
  for (const double r : s.R) fd.values.push_back(r - 0.5);
  report.row_series.push_back(fd);
  report.per_order.push_back({"boundary", "1 if the boundary influences the order", {0, 1, 1, -0.0}});
  report.extra_attributes = {{"fd_grid", "n = 64, Rényi"}, {"empty_note", ""}};
  return report;
}

/// Deterministic arbitrary bit patterns (splitmix64), including NaN payloads and subnormals.
struct RandomDoubles {
  std::uint64_t state = 42;
  double operator()() {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return std::bit_cast<double>(z ^ (z >> 31));
  }
  std::vector<double> row(std::size_t n) {
    std::vector<double> values(n);
    for (double& v : values) v = (*this)();
    return values;
  }
};

void append(std::vector<double>& to, const std::vector<double>& values) {
  to.insert(to.end(), values.begin(), values.end());
}

void require_equal(const RunReport& a, const RunReport& b) {
  REQUIRE(bits(a.solution.orders) == bits(b.solution.orders));
  REQUIRE(bits(a.solution.times) == bits(b.solution.times));
  REQUIRE(a.solution.steps == b.solution.steps);
  REQUIRE(bits(a.solution.lsi_constant) == bits(b.solution.lsi_constant));
  REQUIRE(bits(a.solution.R) == bits(b.solution.R));
  REQUIRE(a.closed_forms.size() == b.closed_forms.size());
  for (std::size_t i = 0; i < a.closed_forms.size(); ++i) {
    REQUIRE(a.closed_forms[i].name == b.closed_forms[i].name);
    REQUIRE(a.closed_forms[i].citation == b.closed_forms[i].citation);
    REQUIRE(a.closed_forms[i].role == b.closed_forms[i].role);
    REQUIRE(bits(a.closed_forms[i].R) == bits(b.closed_forms[i].R));
  }
  const RunMetadata& x = a.metadata;
  const RunMetadata& y = b.metadata;
  REQUIRE(x.config_text == y.config_text);
  REQUIRE(x.config_path == y.config_path);
  REQUIRE(x.program_version == y.program_version);
  REQUIRE(x.engine == y.engine);
  REQUIRE(x.gamma_mode == y.gamma_mode);
  REQUIRE(x.algorithm == y.algorithm);
  REQUIRE(x.lsi_model == y.lsi_model);
  REQUIRE(x.initial_curve == y.initial_curve);
  REQUIRE(x.method == y.method);
  REQUIRE(x.declared_constants == y.declared_constants);
  REQUIRE(x.derived_constants == y.derived_constants);
  REQUIRE(a.row_series.size() == b.row_series.size());
  for (std::size_t i = 0; i < a.row_series.size(); ++i) {
    REQUIRE(a.row_series[i].name == b.row_series[i].name);
    REQUIRE(a.row_series[i].description == b.row_series[i].description);
    REQUIRE(a.row_series[i].units == b.row_series[i].units);
    REQUIRE(bits(a.row_series[i].values) == bits(b.row_series[i].values));
  }
  REQUIRE(a.per_order.size() == b.per_order.size());
  for (std::size_t i = 0; i < a.per_order.size(); ++i) {
    REQUIRE(a.per_order[i].name == b.per_order[i].name);
    REQUIRE(a.per_order[i].description == b.per_order[i].description);
    REQUIRE(bits(a.per_order[i].values) == bits(b.per_order[i].values));
  }
  REQUIRE(a.extra_attributes == b.extra_attributes);
}

}  // namespace

TEST_CASE("HDF5 report round-trips every field bit-exactly", "[io][hdf5]") {
  const TempDir dir;
  const fs::path file = dir.path / "report.h5";
  const RunReport written = sample_report();
  write_report_hdf5(file, written);
  const RunReport read = read_report_hdf5(file);
  REQUIRE(std::isinf(read.solution.lsi_constant[0]));
  REQUIRE(std::signbit(read.solution.R[0]));
  require_equal(read, written);
  REQUIRE(dir.entries() == 1);  // no temporary left beside the output
}

TEST_CASE("HDF5 closed forms keep their order; none is an empty group", "[io][hdf5]") {
  const TempDir dir;
  const fs::path file = dir.path / "report.h5";
  RunReport report = sample_report();
  report.closed_forms.insert(report.closed_forms.begin(), {"zeta-baseline", "", "baseline", report.solution.R});
  write_report_hdf5(file, report);
  require_equal(read_report_hdf5(file), report);

  report.closed_forms.clear();
  write_report_hdf5(file, report);
  require_equal(read_report_hdf5(file), report);
}

TEST_CASE("HDF5 write into a missing directory throws and leaves nothing", "[io][hdf5]") {
  const TempDir dir;
  const fs::path file = dir.path / "missing" / "report.h5";
  REQUIRE_THROWS_WITH(write_report_hdf5(file, sample_report()), Catch::Matchers::Contains(file.string()));
  REQUIRE_FALSE(fs::exists(file));
  REQUIRE(dir.entries() == 0);
}

TEST_CASE("HDF5 write of an inconsistent report throws and leaves nothing", "[io][hdf5]") {
  const TempDir dir;
  const fs::path file = dir.path / "report.h5";
  RunReport report = sample_report();
  report.closed_forms[0].R.pop_back();
  REQUIRE_THROWS_AS(write_report_hdf5(file, report), std::runtime_error);
  REQUIRE(dir.entries() == 0);
}

TEST_CASE("HDF5 failure mid-write keeps the previous file and leaves no temporary", "[io][hdf5]") {
  const TempDir dir;
  const fs::path file = dir.path / "report.h5";
  const RunReport first = sample_report();
  write_report_hdf5(file, first);

  RunReport bad = sample_report();
  // "." passes the name checks; HDF5 itself refuses it. (assign, not = ".": GCC 12 at -O3
  // gives a false -Wrestrict for the latter.)
  bad.closed_forms[0].name.assign(1, '.');
  REQUIRE_THROWS_WITH(write_report_hdf5(file, bad), Catch::Matchers::Contains(file.string()));
  require_equal(read_report_hdf5(file), first);
  REQUIRE(dir.entries() == 1);
}

TEST_CASE("HDF5 second write replaces the existing file", "[io][hdf5]") {
  const TempDir dir;
  const fs::path file = dir.path / "report.h5";
  write_report_hdf5(file, sample_report());

  RunReport second = sample_report();
  second.solution.R[5] = -1.25;
  second.solution.steps[2] = 7;
  second.metadata.gamma_mode = "per-step";
  second.closed_forms[0].citation = "C21 Thm 2";
  write_report_hdf5(file, second);

  require_equal(read_report_hdf5(file), second);
  REQUIRE(dir.entries() == 1);
}

TEST_CASE("HDF5 read of a missing file throws naming it", "[io][hdf5]") {
  const TempDir dir;
  const fs::path file = dir.path / "absent.h5";
  REQUIRE_THROWS_WITH(read_report_hdf5(file), Catch::Matchers::Contains(file.string()));
}

TEST_CASE("HDF5 stream writes 1000 records with extras, bit-exactly", "[io][hdf5][stream]") {
  const TempDir dir;
  const fs::path file = dir.path / "stream.h5";
  RandomDoubles random;
  RunReport expected;
  Solution& s = expected.solution;
  s.orders = {1.5, 2.0, 4.0, 8.0, 32.0};
  const std::size_t orders = s.orders.size();
  expected.metadata = sample_report().metadata;
  expected.row_series = {{"fd-value", "finite-difference value", kUnitsRdp, {}},
                         {"fd-gap", "finite-difference value minus R", "", {}}};
  expected.closed_forms = {{"thm1", "C21 Thm 1", "upper-bound", {}}, {"composition", "C21 App. E", "baseline", {}}};
  {
    Hdf5ReportStream stream(
        file, s.orders, expected.metadata,
        {{"fd-value", "finite-difference value", kUnitsRdp}, {"fd-gap", "finite-difference value minus R", ""}},
        {{"thm1", "C21 Thm 1", "upper-bound"}, {"composition", "C21 App. E", "baseline"}});
    for (std::int64_t step = 0; step < 1000; ++step) {
      const double t = random(), lsi = random();
      const std::vector<double> R = random.row(orders), fd = random.row(orders), gap = random.row(orders),
                                thm1 = random.row(orders), composition = random.row(orders);
      stream.append_record(step * 3, t, lsi, R, {fd, gap}, {thm1, composition});
      s.steps.push_back(step * 3);
      s.times.push_back(t);
      s.lsi_constant.push_back(lsi);
      append(s.R, R);
      append(expected.row_series[0].values, fd);
      append(expected.row_series[1].values, gap);
      append(expected.closed_forms[0].R, thm1);
      append(expected.closed_forms[1].R, composition);
    }
    REQUIRE(stream.record_count() == 1000);
    expected.per_order = {{"boundary", "1 if the boundary influences the order", random.row(orders)}};
    expected.extra_attributes = {{"fd_grid", "n = 64"}, {"note", "Rényi\nsecond line"}};
    REQUIRE_FALSE(fs::exists(file));  // nothing at the target until finish()
    stream.finish(expected.per_order, expected.extra_attributes);
    REQUIRE(fs::exists(file));
    REQUIRE_THROWS_WITH(stream.append_record(0, 0.0, 0.0, s.row(0)), Catch::Matchers::Contains("finished"));
  }
  require_equal(read_report_hdf5(file), expected);
  REQUIRE(dir.entries() == 1);
}

TEST_CASE("HDF5 stream not finished leaves nothing and keeps an existing file", "[io][hdf5][stream]") {
  const TempDir dir;
  const fs::path file = dir.path / "report.h5";
  const std::vector<double> row{0.25, 0.5};
  {
    Hdf5ReportStream stream(file, {2.0, 3.0}, RunMetadata{}, {{"fd", "", ""}});
    stream.append_record(0, 0.0, 1.0, row, {row});
    REQUIRE_FALSE(fs::exists(file));
    REQUIRE(dir.entries() == 1);  // the temporary
  }
  REQUIRE(dir.entries() == 0);

  const RunReport first = sample_report();
  write_report_hdf5(file, first);
  {
    Hdf5ReportStream stream(file, {2.0, 3.0}, RunMetadata{});
    stream.append_record(0, 0.0, 1.0, row);
  }
  require_equal(read_report_hdf5(file), first);
  REQUIRE(dir.entries() == 1);
}

TEST_CASE("HDF5 stream rejects a row of the wrong length and leaves nothing", "[io][hdf5][stream]") {
  const TempDir dir;
  const fs::path file = dir.path / "report.h5";
  const std::vector<double> row{0.25, 0.5, 1.0}, short_row{0.25, 0.5};
  {
    Hdf5ReportStream stream(file, {2.0, 3.0, 4.0}, RunMetadata{}, {{"fd", "", ""}}, {{"thm1", "", ""}});
    REQUIRE_THROWS_WITH(stream.append_record(0, 0.0, 1.0, short_row, {row}, {row}),
                        Catch::Matchers::Contains(file.string()));
    REQUIRE_THROWS_AS(stream.append_record(0, 0.0, 1.0, row, {short_row}, {row}), std::runtime_error);
    REQUIRE_THROWS_AS(stream.append_record(0, 0.0, 1.0, row, {}, {row}), std::runtime_error);  // no fd row
    REQUIRE_THROWS_WITH(stream.append_record(0, 0.0, 1.0, row, {row}, {short_row}),
                        Catch::Matchers::Contains("closed form 'thm1'"));
    REQUIRE_THROWS_AS(stream.append_record(0, 0.0, 1.0, row, {row}), std::runtime_error);  // no closed-form row
    stream.append_record(0, 0.0, 1.0, row, {row}, {row});  // the rejected calls wrote nothing
    REQUIRE(stream.record_count() == 1);
  }
  REQUIRE(dir.entries() == 0);
}

TEST_CASE("HDF5 extras with bad or clashing names throw and leave nothing", "[io][hdf5]") {
  const TempDir dir;
  const fs::path file = dir.path / "report.h5";
  RunReport report = sample_report();
  SECTION("a per-order vector named like a row series") { report.per_order[0].name = "fd-value"; }
  SECTION("a row series name with '/'") { report.row_series[0].name = "fd/value"; }
  SECTION("an extra attribute shadowing metadata") { report.extra_attributes["engine"] = "x"; }
  SECTION("an extra attribute name with a newline") { report.extra_attributes["a\nb"] = "x"; }
  SECTION("a per-order vector of the wrong length") { report.per_order[0].values.pop_back(); }
  SECTION("a closed form of the wrong length") { report.closed_forms[0].R.pop_back(); }
  SECTION("two closed forms with one name") { report.closed_forms.push_back(report.closed_forms[0]); }
  REQUIRE_THROWS_WITH(write_report_hdf5(file, report), Catch::Matchers::Contains(file.string()));
  REQUIRE(dir.entries() == 0);
}

TEST_CASE("HDF5 reader accepts a schema-1 file (no extras)", "[io][hdf5]") {
  const TempDir dir;
  const fs::path file = dir.path / "report.h5";
  RunReport report = sample_report();
  write_report_hdf5(file, report);
  {  // Turn the file into what schema 1 wrote: no /extras, no extra root attributes.
    const H5::H5File h5(file.string(), H5F_ACC_RDWR);
    int version = 0;
    h5.openAttribute("schema_version").read(H5::PredType::NATIVE_INT, &version);
    REQUIRE(version == kHdf5SchemaVersion);
    h5.removeAttr("command");  // schema 3
    h5.unlink("extras");
    h5.removeAttr("extra_attributes");
    for (const auto& [name, value] : report.extra_attributes) h5.removeAttr(name);
    version = 1;
    h5.openAttribute("schema_version").write(H5::PredType::NATIVE_INT, &version);
  }
  report.row_series.clear();
  report.per_order.clear();
  report.extra_attributes.clear();
  require_equal(read_report_hdf5(file), report);
}

namespace {

/// Every closed form of the run at every record, as whole arrays evaluated after the solve (how
/// `solve` computed them before streaming them record by record): the C21 catalogue at
/// (K, t, sum over steps of S_g,k^2 eta_k / sigma_k^2) and the exact quadratic divergences.
std::vector<ClosedFormCurves> whole_array_closed_forms(const RunSpec& spec, const Solution& sol) {
  std::vector<double> sums;
  for (const std::int64_t K : sol.steps) {
    double acc = 0.0;
    std::int64_t k = 0;
    for (const Phase& p : spec.algorithm.phases)
      for (std::int64_t i = 0; i < p.steps && k < K; ++i, ++k) {
        const double Sk = p.sensitivity.value_or(spec.algorithm.sensitivity);
        acc += Sk * Sk * p.eta / (p.sigma * p.sigma);
      }
    sums.push_back(acc);
  }
  std::vector<ClosedFormCurves> out;
  for (const C21Form& form : c21_closed_forms(spec, thm2_gamma(spec))) {
    if (!form.refusal.empty()) continue;
    ClosedFormCurves c{form.name, form.citation, form.role, {}};
    for (std::size_t r = 0; r < sol.record_count(); ++r) {
      // Bounds rounded outward by the margin of the record's steps, as solve reports them.
      const double margin = outward::recursion_margin(sol.steps[r]);
      for (const double alpha : sol.orders) {
        const double v = form.value(alpha, {static_cast<double>(sol.steps[r]), sol.times[r], sums[r]});
        c.R.push_back(form.role == "lower-bound" ? outward::round_down(v, margin)
                      : form.role == "exact"     ? v
                                                 : outward::round_up(v, margin));
      }
    }
    out.push_back(c);
  }
  if (quadratic_exact_applies(spec)) {
    const quadratic::QuadraticProblem problem = quadratic_problem_of(spec);
    auto on_grid = [&](const std::vector<double>& slopes) {
      std::vector<double> R;
      for (const std::int64_t K : sol.steps)
        for (const double alpha : sol.orders) R.push_back(alpha * slopes[static_cast<std::size_t>(K)]);
      return R;
    };
    // The worst pair per eigenvalue of H (no cancellation on wide starts; docs/analyses.md, "exact").
    const quadratic::IsotropicWorstCase worst(problem);
    std::vector<double> worst_slopes;
    for (std::int64_t k = 0; k <= sol.steps.back(); ++k) worst_slopes.push_back(worst.rdp_slope(k));
    out.push_back({"quadratic-exact", "", "exact", on_grid(worst_slopes)});
    const Eigen::VectorXd delta = Eigen::Map<const Eigen::VectorXd>(spec.quadratic->pair->data(), 3);
    out.push_back(
        {"quadratic-exact-pair", "", "exact", on_grid(quadratic::exact_rdp_slopes(problem, delta, sol.steps.back()))});
  }
  return out;
}

}  // namespace

TEST_CASE("solve streams each record's closed forms: the file holds the whole-array values, bit for bit",
          "[io][hdf5][stream][closed-forms]") {
  // The examples, recorded every few steps; the second with phases of their own eta, sigma and
  // S_g (the step-by-step sums of thm1 and composition cross them).
  const std::string squared = RDPDYN_SOURCE_DIR "/examples/figure2_squared_loss.toml";
  const std::string quadratic = RDPDYN_SOURCE_DIR "/examples/quadratic_anisotropic.toml";
  const std::vector<std::tuple<std::string, std::vector<std::string>, std::size_t>> runs = {
      {squared, {"output.record_every=7", "output.record_steps=[1, 999]"}, 6},
      {squared,
       {"algorithm.schedule=[{steps = 400, eta = 0.01, sensitivity = 3.0}, {steps = 300, sigma = 0.03}]",
        "output.record_every=13"},
       2},
      {quadratic, {"output.record_every=9"}, 4},
  };
  EngineRegistry engines;
  engines.add(make_characteristics_engine());
  for (const auto& [path, overrides, forms] : runs) {
    const RunConfig cfg = load_config(path, overrides);
    INFO(cfg.text);
    const TempDir dir;
    const fs::path file = dir.path / "solve.h5";
    Hdf5ReportSink sink(file);
    const RunReport report = solve_run(cfg, engines, &sink);
    const RunReport back = read_report_hdf5(file);
    const std::vector<ClosedFormCurves> expected = whole_array_closed_forms(cfg.spec, back.solution);
    REQUIRE(back.solution.record_count() > 20);
    REQUIRE(back.closed_forms.size() == forms);
    REQUIRE(expected.size() == forms);
    const std::size_t K = back.solution.orders.size();
    for (std::size_t i = 0; i < forms; ++i) {
      INFO(expected[i].name);
      CHECK(back.closed_forms[i].name == expected[i].name);
      REQUIRE(bits(back.closed_forms[i].R) == bits(expected[i].R));
      CHECK(back.closed_forms[i].R.back() > 0.0);
      // The report keeps the final row only.
      CHECK(report.closed_forms[i].name == expected[i].name);
      CHECK(bits(report.closed_forms[i].R) ==
            bits(std::vector<double>(expected[i].R.end() - static_cast<std::ptrdiff_t>(K), expected[i].R.end())));
      // Appended like /R: chunked, extendible.
      const H5::H5File h5(file.string(), H5F_ACC_RDONLY);
      CHECK(h5.openDataSet("closed_forms/" + expected[i].name).getCreatePlist().getLayout() == H5D_CHUNKED);
    }
  }
}

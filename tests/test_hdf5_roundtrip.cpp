// HDF5 report output: exact round trip, atomic write (no leftovers on failure, replace on
// success).
#include <unistd.h>

#include <bit>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include "io/hdf5_output.hpp"

namespace fs = std::filesystem;
using namespace rdpdyn;

namespace {

/// A fresh empty directory, removed with its contents at scope exit.
struct TempDir {
  fs::path path;
  TempDir() {
    static int counter = 0;
    path = fs::temp_directory_path() /
           ("rdpdyn-h5-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ignored;
    fs::remove_all(path, ignored);
  }
  std::size_t entries() const {
    return static_cast<std::size_t>(std::distance(fs::directory_iterator(path), {}));
  }
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
  s.R = {-0.0, 0.0, std::numeric_limits<double>::denorm_min(), 1e-300,
         std::nextafter(1.0, 2.0), 0.1, std::sqrt(2.0), 3.0e5,
         std::exp(1.0), 1.0 / 7.0, 123456.789, std::numeric_limits<double>::max()};
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
  return report;
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
  report.closed_forms.insert(report.closed_forms.begin(),
                             {"zeta-baseline", "", "baseline", report.solution.R});
  write_report_hdf5(file, report);
  require_equal(read_report_hdf5(file), report);

  report.closed_forms.clear();
  write_report_hdf5(file, report);
  require_equal(read_report_hdf5(file), report);
}

TEST_CASE("HDF5 write into a missing directory throws and leaves nothing", "[io][hdf5]") {
  const TempDir dir;
  const fs::path file = dir.path / "missing" / "report.h5";
  REQUIRE_THROWS_WITH(write_report_hdf5(file, sample_report()),
                      Catch::Matchers::Contains(file.string()));
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

TEST_CASE("HDF5 failure mid-write keeps the previous file and leaves no temporary",
          "[io][hdf5]") {
  const TempDir dir;
  const fs::path file = dir.path / "report.h5";
  const RunReport first = sample_report();
  write_report_hdf5(file, first);

  RunReport bad = sample_report();
  bad.closed_forms[0].name = ".";  // passes the shape checks; HDF5 itself refuses the name
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

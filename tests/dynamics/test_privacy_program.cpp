// The privacy program stored by phases: counts, random access, isolating a step, slicing.
#include <catch2/catch.hpp>
#include <stdexcept>

#include "dynamics/privacy_program.hpp"

using namespace rdpdyn;

namespace {

/// A step told apart from the others by its duration.
ProgramStep step_of(double duration) {
  return {{}, {duration, 1.0, 0.1, ConstantLsi{2.0}}, {}, GammaChoice::fixed(0.5)};
}

/// The durations of every step, in order (the per-step view of the program).
std::vector<double> durations(const PrivacyProgram& p) {
  std::vector<double> out;
  p.for_each_step([&](std::int64_t k, const ProgramStep& s) {
    REQUIRE(k == static_cast<std::int64_t>(out.size()));
    out.push_back(s.diffusion.duration);
  });
  return out;
}

}  // namespace

TEST_CASE("Program: phases count their steps and step(k) finds the phase", "[program]") {
  PrivacyProgram p;
  p.append(step_of(0.1), 3);
  p.append(step_of(0.2), 0);  // nothing
  p.append(step_of(0.3), 2);
  REQUIRE(p.phases().size() == 2);
  REQUIRE(p.step_count() == 5);
  CHECK(p.phase_begin(1) == 3);
  CHECK(durations(p) == std::vector<double>{0.1, 0.1, 0.1, 0.3, 0.3});
  CHECK(p.step(2).diffusion.duration == 0.1);
  CHECK(p.step(3).diffusion.duration == 0.3);
  CHECK(p.step(4).diffusion.duration == 0.3);
  CHECK_THROWS_AS(p.step(5), std::out_of_range);
  CHECK_THROWS_AS(p.step(-1), std::out_of_range);
  // Summed step by step, as a per-step program: 0.1 + 0.1 + 0.1 + 0.3 + 0.3 in that order.
  CHECK(p.total_time() == 0.1 + 0.1 + 0.1 + 0.3 + 0.3);
}

TEST_CASE("Program: isolate(k) makes step k a phase of its own and keeps the others", "[program]") {
  PrivacyProgram p;
  p.append(step_of(0.1), 1000000);
  p.append(step_of(0.3), 2);
  p.isolate(500).after.push_back(GaussianRelease{1.0, 2.0});
  REQUIRE(p.phases().size() == 4);  // [0, 500), 500, [501, 10^6), 2 more
  CHECK(p.step_count() == 1000002);
  CHECK(p.phases()[0].count == 500);
  CHECK(p.phases()[1].count == 1);
  CHECK(p.phases()[2].count == 999499);
  CHECK(p.step(500).after.size() == 1);
  CHECK(p.step(499).after.empty());
  CHECK(p.step(501).after.empty());
  // Isolating the first or last step of a phase, or an isolated one, splits only what it must.
  p.isolate(0).before.push_back(LipschitzMap{0.5});
  p.isolate(500).after.push_back(LipschitzMap{0.9});
  p.isolate(1000001);
  REQUIRE(p.phases().size() == 6);
  CHECK(p.step(0).before.size() == 1);
  CHECK(p.step(1).before.empty());
  CHECK(p.step(500).after.size() == 2);
  CHECK(p.step(1000000).diffusion.duration == 0.3);
  CHECK(p.phases().back().count == 1);
  CHECK_THROWS_AS(p.isolate(1000002), std::out_of_range);
}

TEST_CASE("Program: slice(a, b) keeps the steps from a to b and the initial law", "[program]") {
  PrivacyProgram p;
  p.initial_inverse_lsi = 0.25;
  p.append(step_of(0.1), 4);
  p.append(step_of(0.2), 1);
  p.append(step_of(0.3), 5);
  const PrivacyProgram s = p.slice(2, 7);
  CHECK(s.initial_inverse_lsi == 0.25);
  CHECK(s.phases().size() == 3);
  CHECK(durations(s) == std::vector<double>{0.1, 0.1, 0.2, 0.3, 0.3});
  CHECK(p.slice(4, 4).step_count() == 0);
  CHECK(p.slice(0, 10).phases().size() == 3);
  CHECK_THROWS_AS(p.slice(3, 11), std::out_of_range);
  CHECK_THROWS_AS(p.slice(5, 4), std::out_of_range);
}

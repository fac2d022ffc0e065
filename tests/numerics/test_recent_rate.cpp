// The progress line's time left comes from the recent rate (numerics/recent_rate.hpp).
#include <catch2/catch.hpp>

#include "numerics/recent_rate.hpp"

using rdpdyn::RecentRate;

TEST_CASE("RecentRate: work that slows down is foretold by its last ten seconds, not its average", "[progress]") {
  // 100 units a second for 20 s, then 25 a second: the finite-difference case of the issue (the
  // average since the start said "7 s left" at 43% with 27 s to go).
  RecentRate rate(10.0);
  double r = 0.0;
  std::size_t done = 0;
  for (int t = 1; t <= 20; ++t) r = rate.add(t, done += 100);
  CHECK(r == Approx(100.0));
  for (int t = 21; t <= 40; ++t) r = rate.add(t, done += 25);
  // The window holds t = 30..40 only: exactly the new rate (the average would be 62.5).
  CHECK(r == Approx(25.0));
  const std::size_t total = done + 1000;
  CHECK(RecentRate::seconds_left(done, total, r) == Approx(40.0));
  CHECK(RecentRate::seconds_left(done, total, static_cast<double>(done) / 40.0) == Approx(16.0));  // the average's
}

TEST_CASE("RecentRate: the first sample and no progress", "[progress]") {
  RecentRate rate(10.0);
  CHECK(rate.add(0.0, 0) == 0.0);
  CHECK(rate.add(2.0, 10) == Approx(5.0));
  CHECK(RecentRate::seconds_left(10, 10, 5.0) == 0.0);
  CHECK(RecentRate::seconds_left(5, 10, 0.0) == 0.0);
}

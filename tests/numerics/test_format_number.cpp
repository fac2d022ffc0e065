// Numbers as people read them (numerics/format_number.hpp): integers in full, bounds rounded up.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdlib>
#include <string>

#include "numerics/format_number.hpp"

using namespace rdpdyn;

TEST_CASE("format_number: shortest round trip, integers in full", "[format]") {
  CHECK(format_number(50000.0) == "50000");  // was "5e+04"
  CHECK(format_number(10.0) == "10");
  CHECK(format_number(0.1) == "0.1");
  CHECK(format_number(1e20) == "1e+20");
  CHECK(std::strtod(format_number(0.9999999999999998).c_str(), nullptr) == 0.9999999999999998);
}

TEST_CASE("format_rounded_up: six digits, never below the value", "[format]") {
  // calibrate printed "epsilon = 0.9999999999999998 <= 1"; a rounded bound must still hold.
  CHECK(format_rounded_up(0.9999999999999998) == "1");
  CHECK(format_rounded_up(2.1277460123) == "2.12775");
  CHECK(format_rounded_up(2.1277450000000001) == "2.12775");
  CHECK(format_rounded_up(50.5495000000125) == "50.5496");
  CHECK(format_rounded_up(1234567.0) == "1234567");
  for (double x : {1.0000001, 3.14159265358979, 1e-7 * 1.23456789, 98765.4321, 0.999999949})
    CHECK(std::strtod(format_rounded_up(x).c_str(), nullptr) >= x);
}

TEST_CASE("format_rounded_down: a lower bound rounded never above the value", "[format]") {
  CHECK(format_rounded_down(2.1277460123, 5) == "2.1277");
  CHECK(format_rounded_down(3.0999999, 3) == "3.09");
  CHECK(format_rounded_up(3.0999999, 3) == "3.1");
  CHECK(format_rounded_down(0.12473464732425671, 5) == "0.12473");
  for (double x : {1.0000001, 3.14159265358979, 1e-7 * 1.23456789, 98765.4321, 0.999999949, 2.99999999})
    for (int digits : {3, 5, 6}) {
      CHECK(std::strtod(format_rounded_down(x, digits).c_str(), nullptr) <= x);
      CHECK(std::strtod(format_rounded_up(x, digits).c_str(), nullptr) >= x);
    }
}

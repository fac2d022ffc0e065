#pragma once
// Numbers as text for messages and attributes.
#include <string>

namespace rdpdyn {

/// The shortest text that reads back to the same double ("10", not "1e+01"; "nan", "inf"); an
/// integer below 10^15 in full ("50000", not "5e+04").
std::string format_number(double x);

/// x to `digits` significant digits, rounded UP (the smallest such decimal at or above x), for text
/// a person reads where the value is a bound (an epsilon, the smallest noise that meets a target): a
/// rounded bound must still hold. Integers below 10^15 in full.
std::string format_rounded_up(double x, int digits = 6);
/// The same rounded DOWN (the largest such decimal at or below x), for a lower bound.
std::string format_rounded_down(double x, int digits = 6);

/// A count as messages print it: integers in full (1000000000000, not 1e+12), else format_number.
std::string format_count(double x);

}  // namespace rdpdyn

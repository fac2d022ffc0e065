#pragma once
// Numbers as text for messages and attributes.
#include <string>

namespace rdpdyn {

/// The shortest text that reads back to the same double ("10", not "1e+01"; "nan", "inf").
std::string format_number(double x);

/// A count as messages print it: integers in full (1000000000000, not 1e+12), else format_number.
std::string format_count(double x);

}  // namespace rdpdyn

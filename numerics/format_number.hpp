#pragma once
// Numbers as text for messages and attributes.
#include <string>

namespace rdpdyn {

/// The shortest text that reads back to the same double ("10", not "1e+01"; "nan", "inf").
std::string format_number(double x);

}  // namespace rdpdyn

#include "models/spec_error.hpp"

#include <cstdio>
#include <string>

namespace rdpdyn {

std::string format_number(double x) {
  // The shortest text that reads back to the same double ("10", not "1e+01").
  std::string best;
  for (int p = 1; p <= 17; ++p) {
    char text[64];
    std::snprintf(text, sizeof text, "%.*g", p, x);
    double back = 0.0;
    if (std::sscanf(text, "%lf", &back) == 1 && (back == x || (x != x && back != back)) &&
        (best.empty() || std::string(text).size() < best.size()))
      best = text;
  }
  return best;
}

}  // namespace rdpdyn

#include "numerics/format_number.hpp"

#include <cstdio>

namespace rdpdyn {

std::string format_number(double x) {
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

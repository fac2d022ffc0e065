#include "numerics/format_number.hpp"

#include <cmath>
#include <cstdint>

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

std::string format_count(double x) {
  if (x == std::floor(x) && std::abs(x) < 9007199254740992.0) return std::to_string(static_cast<std::int64_t>(x));
  return format_number(x);
}

}  // namespace rdpdyn

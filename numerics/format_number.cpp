#include "numerics/format_number.hpp"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace rdpdyn {

std::string format_number(double x) {
  // Integers as people write them (50000, not 5e+04) up to 10^15, where every one is exact.
  if (x == std::floor(x) && std::abs(x) < 1e15) return std::to_string(static_cast<std::int64_t>(x));
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

namespace {
/// x to `digits` significant digits on the side `up` (or down) of x.
std::string format_rounded(double x, int digits, bool up) {
  if (!std::isfinite(x) || (x == std::floor(x) && std::abs(x) < 1e15)) return format_number(x);
  char text[64];
  std::snprintf(text, sizeof text, "%.*g", digits, x);
  double back = std::strtod(text, nullptr);
  // Rounded to nearest: one unit of the last digit further when it landed on the wrong side.
  if (up ? back < x : back > x) {
    const int exponent = static_cast<int>(std::floor(std::log10(std::abs(x))));
    const double unit = std::pow(10.0, exponent - digits + 1);
    std::snprintf(text, sizeof text, "%.*g", digits, up ? back + unit : back - unit);
    back = std::strtod(text, nullptr);
    if (up ? back < x : back > x) return format_number(x);  // the decimal arithmetic fell short: every digit
  }
  return text;
}
}  // namespace

std::string format_rounded_up(double x, int digits) { return format_rounded(x, digits, true); }
std::string format_rounded_down(double x, int digits) { return format_rounded(x, digits, false); }

}  // namespace rdpdyn

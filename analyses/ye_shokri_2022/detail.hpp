#pragma once
// Helpers shared by the Ye & Shokri 2022 files (not part of their interface): number text for
// messages and argument checks of the pure functions.
#include <iomanip>
#include <sstream>
#include <stdexcept>
#include <string>

namespace rdpdyn::ye_shokri::detail {

/// Six significant digits, for messages ("0.4", "1e-05").
inline std::string fmt(double x) {
  std::ostringstream os;
  os << std::setprecision(6) << x;
  return os.str();
}

/// Throws std::invalid_argument("ye_shokri: " + what) unless ok.
inline void require(bool ok, const std::string& what) {
  if (!ok) throw std::invalid_argument("ye_shokri: " + what);
}

}  // namespace rdpdyn::ye_shokri::detail

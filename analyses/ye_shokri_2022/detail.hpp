#pragma once
// Helpers shared by the Ye & Shokri 2022 files (not part of their interface): number text for
// messages and argument checks of the pure functions.
#include <iomanip>
#include <sstream>
#include <stdexcept>
#include <string>

#include "analyses/analysis.hpp"

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

/// `r` turned into a refusal with the failing assumption `why`.
inline AnalysisResult refuse(AnalysisResult r, std::string why) {
  r.applies = false;
  r.reason = std::move(why);
  r.R.clear();
  return r;
}

}  // namespace rdpdyn::ye_shokri::detail

#include "analyses/ye_shokri_2022/split_optimiser.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>

#include <boost/math/tools/minima.hpp>

namespace rdpdyn::ye_shokri {

SplitOptimum optimise_split(const std::function<double(double)>& f) {
  constexpr int kNodes = 64;
  SplitOptimum best{1.0, f(1.0)};
  int best_i = kNodes;
  for (int i = 1; i < kNodes; ++i) {
    const double g = static_cast<double>(i) / kNodes;
    const double v = f(g);
    if (v < best.value) best = {g, v}, best_i = i;
  }
  // Brent between the neighbours of the best node (gamma = 0 is excluded: no noise on the gradient).
  const double lo = best_i == 1 ? 1.0 / (kNodes * kNodes) : static_cast<double>(best_i - 1) / kNodes;
  const double hi = std::min(1.0, static_cast<double>(best_i + 1) / kNodes);
  std::uintmax_t max_iter = 200;
  const auto found =
      boost::math::tools::brent_find_minima(f, lo, hi, std::numeric_limits<double>::digits / 2, max_iter);
  // The value reported is f evaluated at the gamma reported, whatever the minimiser returned.
  const double gamma = std::clamp(found.first, lo, hi);
  const double value = f(gamma);
  if (value < best.value) best = {gamma, value};
  return best;
}

}  // namespace rdpdyn::ye_shokri

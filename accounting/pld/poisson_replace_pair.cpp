#include "accounting/pld/poisson_replace_pair.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "accounting/pld/revealed_mixture_pair.hpp"
#include "accounting/pld/worse_of_pairs.hpp"
#include "numerics/format_number.hpp"

namespace rdpdyn::pld {

std::vector<std::pair<double, double>> binomial_size_bins(double n, double q, double k_lo, double k_hi) {
  if (!(n >= 1.0 && n == std::floor(n))) throw std::invalid_argument("batch sizes: n = " + format_number(n) + " must be an integer >= 1");
  if (!(q > 0.0 && q < 1.0)) throw std::invalid_argument("batch sizes: q = " + format_number(q) + " must lie in (0, 1)");
  if (!(0.0 <= k_lo && k_lo <= k_hi && k_hi <= n))
    throw std::invalid_argument("batch sizes: [" + format_number(k_lo) + ", " + format_number(k_hi) + "] must lie in [0, n]");
  constexpr double u = 0x1p-53;
  const double mean = n * q, sd = std::sqrt(n * q * (1.0 - q));
  const double width = std::max(1.0, std::floor(sd / 3.0));
  auto log_pmf = [&](double k) {
    return std::lgamma(n + 1.0) - std::lgamma(k + 1.0) - std::lgamma(n - k + 1.0) + k * std::log(q) + (n - k) * std::log1p(-q);
  };
  // upper ends, increasing: one bin below mean - 4 sd, width sd/3 to mean + 4 sd, width sd to mean
  // + 12 sd, one bin above
  std::vector<double> edges;
  const double centre_lo = std::max(k_lo, std::floor(mean - 4.0 * sd));
  if (centre_lo > k_lo) edges.push_back(centre_lo - 1.0);
  double e = centre_lo + width - 1.0;
  for (; e < std::min(k_hi, mean + 4.0 * sd); e += width) edges.push_back(e);
  for (; e < std::min(k_hi, mean + 12.0 * sd); e += std::max(width, std::floor(sd))) edges.push_back(e);
  edges.push_back(k_hi);
  std::vector<std::pair<double, double>> bins;
  // below mean - 40 sd every mass underflows: start there (moving that mass up is an upper bound)
  double total = 0.0, k = std::max(k_lo, std::floor(mean - 40.0 * sd));
  for (double edge : edges) {
    double mass = 0.0;
    for (; k <= edge; k += 1.0) {
      const double lp = log_pmf(k);
      if (lp > -745.0) mass += std::exp(lp);
      else if (k > mean) { k = edge + 1.0; break; }  // beyond: every later term underflows too
    }
    if (k <= edge) k = edge + 1.0;
    bins.push_back({mass, std::min(1.0, std::nextafter(edge / n * (1.0 + 4.0 * u), 2.0))});
    total += mass;
  }
  // normalise, raise by the round-off (lgamma's absolute error ~ u log n! is far below 1e-8
  // relative), take the excess from the smallest sizes
  double excess = -1.0;
  for (auto& b : bins) {
    b.first = b.first / total * (1.0 + 1e-8);
    excess += b.first;
  }
  for (auto& b : bins) {
    const double take = std::min(b.first, std::max(excess, 0.0));
    b.first -= take;
    excess -= take;
  }
  if (excess < 0.0) bins.back().first -= excess;
  std::erase_if(bins, [](const auto& b) { return b.first <= 0.0; });
  return bins;
}

std::shared_ptr<const DominatingPair> sizes_revealed_step_pair(const std::vector<std::pair<double, double>>& bins, double mu) {
  if (bins.size() == 1) return fixed_size_subsampled_gaussian_pair(bins.front().second, mu);
  std::vector<RevealedComponent> parts;
  for (const auto& [w, q] : bins) parts.push_back({w, fixed_size_subsampled_gaussian_pair(q, mu)});
  return std::make_shared<RevealedMixturePair>(std::move(parts), 0.0,
                                               "Poisson step under replace-one given its batch size (" +
                                                   std::to_string(bins.size()) + " size bins), mu = " + format_number(mu));
}

}  // namespace rdpdyn::pld

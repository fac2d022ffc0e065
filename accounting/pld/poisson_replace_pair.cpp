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
  if (!(n >= 1.0 && n == std::floor(n)))
    throw std::invalid_argument("batch sizes: n = " + format_number(n) + " must be an integer >= 1");
  if (!(q > 0.0 && q < 1.0))
    throw std::invalid_argument("batch sizes: q = " + format_number(q) + " must lie in (0, 1)");
  if (!(0.0 <= k_lo && k_lo <= k_hi && k_hi <= n))
    throw std::invalid_argument("batch sizes: [" + format_number(k_lo) + ", " + format_number(k_hi) +
                                "] must lie in [0, n]");
  constexpr double u = 0x1p-53;
  const double mean = n * q, sd = std::sqrt(n * q * (1.0 - q));
  const double width = std::max(1.0, std::floor(sd / 3.0));
  // upper ends, increasing: one bin below mean - 4 sd, width sd/3 to mean + 4 sd, width sd to mean
  // + 12 sd, one bin above
  std::vector<double> edges;
  const double centre_lo = std::max(k_lo, std::floor(mean - 4.0 * sd));
  if (centre_lo > k_lo) edges.push_back(centre_lo - 1.0);
  double e = centre_lo + width - 1.0;
  for (; e < std::min(k_hi, mean + 4.0 * sd); e += width) edges.push_back(e);
  for (; e < std::min(k_hi, mean + 12.0 * sd); e += std::max(width, std::floor(sd))) edges.push_back(e);
  edges.push_back(k_hi);
  // The pmf relative to the mode by the ratio recurrence pmf(k+1)/pmf(k) = (n-k) q / ((k+1)(1-q)):
  // each step adds a few u of relative error (lgamma of n! would carry u n log n). Beyond 40 standard
  // deviations of the mean every term underflows against the mode: those sizes are left out, which
  // moves their mass (below 1e-300) to the kept ones, up or down; the raise below covers it.
  const double first = std::max(k_lo, std::floor(mean - 40.0 * sd)), last = std::min(k_hi, std::ceil(mean + 40.0 * sd));
  if (last - first + 1.0 > 16777216.0)
    throw std::length_error("batch sizes: n q (1 - q) = " + format_number(n * q * (1.0 - q)) +
                            " spreads the sizes over more than 2^24 values");
  const auto count = static_cast<std::size_t>(last - first + 1.0);
  std::vector<double> log_w(count);
  const double start = std::clamp(std::floor(mean), first, last);
  const auto s0 = static_cast<std::size_t>(start - first);
  const double log_odds = std::log(q) - std::log1p(-q);
  log_w[s0] = 0.0;
  for (std::size_t i = s0 + 1; i < count; ++i) {
    const double k = first + static_cast<double>(i) - 1.0;  // from k to k + 1
    log_w[i] = log_w[i - 1] + std::log((n - k) / (k + 1.0)) + log_odds;
  }
  for (std::size_t i = s0; i-- > 0;) {
    const double k = first + static_cast<double>(i) + 1.0;  // from k to k - 1
    log_w[i] = log_w[i + 1] - std::log((n - k + 1.0) / k) - log_odds;
  }
  std::vector<std::pair<double, double>> bins;
  double total = 0.0;
  std::size_t i = 0;
  for (double edge : edges) {
    double mass = 0.0;
    for (; i < count && first + static_cast<double>(i) <= edge; ++i) mass += std::exp(log_w[i]);
    // a bin ending at size 0 is the batch without the record: no privacy loss (q = 0)
    bins.push_back({mass, edge <= 0.0 ? 0.0 : std::min(1.0, std::nextafter(edge / n * (1.0 + 4.0 * u), 2.0))});
    total += mass;
  }
  // normalise, raise by the round-off (the recurrence's 8 u per step from the mode, the sums' u per
  // term, both far below the raise for any n this accepts), take the excess from the smallest sizes
  const double raise = std::max(1e-8, 64.0 * u * static_cast<double>(count));
  double excess = -1.0;
  for (auto& b : bins) {
    b.first = b.first / total * (1.0 + raise);
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

std::shared_ptr<const DominatingPair> sizes_revealed_step_pair(const std::vector<std::pair<double, double>>& bins,
                                                               double mu) {
  if (bins.size() == 1 && bins.front().second > 0.0)
    return fixed_size_subsampled_gaussian_pair(bins.front().second, mu);
  std::vector<RevealedComponent> parts;
  for (const auto& [w, q] : bins) parts.push_back({w, q > 0.0 ? fixed_size_subsampled_gaussian_pair(q, mu) : nullptr});
  return std::make_shared<RevealedMixturePair>(std::move(parts), 0.0,
                                               "Poisson step under replace-one given its batch size (" +
                                                   std::to_string(bins.size()) +
                                                   " size bins), mu = " + format_number(mu));
}

}  // namespace rdpdyn::pld

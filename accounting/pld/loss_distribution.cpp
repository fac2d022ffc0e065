#include "accounting/pld/loss_distribution.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>
#include <utility>

#include "numerics/format_number.hpp"

namespace rdpdyn::pld {
namespace {

constexpr double u = 0x1p-53;
constexpr double kInf = std::numeric_limits<double>::infinity();

// log(e^x + e^y), -infinity neutral
double log_add(double x, double y) {
  if (x == -kInf) return y;
  if (y == -kInf) return x;
  const double m = std::max(x, y);
  return m + std::log1p(std::exp(std::min(x, y) - m));
}

void check_grid(double h) {
  if (!is_exact_grid_spacing(h))
    throw std::invalid_argument("PLD grid spacing h = " + format_number(h) + " must be 2^k or 3 x 2^k");
}

// Moves the mass beyond the kept range: at most `tail` from the top to the infinity atom (an upward
// move; the errors of the moved entries, at most e^{-theta l} W, go to the absolute ledger), and from
// the bottom at most `log_drop` of weighted mass sum m_i e^{theta l_i}, dropped and charged to W.
void truncate(LossDistribution& p, double tail, double log_drop) {
  auto& m = p.mass;
  std::size_t hi = m.size();
  double top = 0.0;
  // Cut only above a loss where the moved entries' error bound e^{-theta l} W is at most `tail` too.
  const double lowest_cut = p.log_weighted_error == -kInf ? -kInf
                            : p.tilt > 0.0                ? (p.log_weighted_error - std::log(tail)) / p.tilt
                                                          : (p.log_weighted_error <= std::log(tail) ? -kInf : kInf);
  while (hi > 1 && top + m[hi - 1] <= tail && p.loss_at(hi - 1) > lowest_cut) top += m[--hi];
  std::size_t lo = 0;
  double dropped = -kInf, dropped_mass = 0.0;
  while (lo + 1 < hi) {
    if (m[lo] == 0.0) {
      ++lo;
      continue;
    }
    const double w = std::log(m[lo]) + p.tilt * p.loss_at(lo);
    const double next = log_add(dropped, w);
    // both small: the weighted mass (what it costs) and the mass itself (so that a tilt dominated by
    // a far tail never drops the body of the distribution)
    if (next > log_drop || dropped_mass + m[lo] > tail) break;
    dropped = next;
    dropped_mass += m[lo];
    ++lo;
  }
  if (top > 0.0) {
    // Rounded up: more mass at infinity only raises delta.
    p.infinity_mass =
        std::min(1.0, std::nextafter(p.infinity_mass + top * (1.0 + 2.0 * u * static_cast<double>(m.size())), kInf));
    p.truncated += top * (1.0 + 2.0 * u * static_cast<double>(m.size()));
    if (p.log_weighted_error > -kInf) p.absolute_error += std::exp(p.log_weighted_error - p.tilt * p.loss_at(hi));
  }
  if (dropped > -kInf)
    p.log_weighted_error = log_add(p.log_weighted_error, dropped + 4.0 * u * (1.0 + std::fabs(dropped)));
  if (lo > 0 || hi < m.size()) {
    m.erase(m.begin() + static_cast<std::ptrdiff_t>(hi), m.end());
    m.erase(m.begin(), m.begin() + static_cast<std::ptrdiff_t>(lo));
    p.offset += static_cast<std::int64_t>(lo);
  }
}

// sum_{l_i > eps} m_i (1 - e^{eps - l_i}) and a bound on its rounding error, as A - e^{eps - l_j} D
// with A = sum_{i >= j} m_i and D = sum_{i >= j} m_i e^{l_j - l_i} by the recurrence
// D <- m_i + e^{-h} D from the top (one exponential per call, not one per cell; l_j the lowest loss
// above eps). Both sums are of nonnegative terms: A's relative error is at most (n + 1) u, D's at
// most (3 n + 4) u (Horner's 2 roundings per step, e^{-h} rounded and raised to at most the n-th
// power), e^{eps - l_j}'s (2 + |eps - l_j|) u;
// the difference adds u of itself.
struct Sum {
  double value = 0.0;
  double error = 0.0;
};
Sum hockey_sum(const LossDistribution& p, double epsilon) {
  Sum s;
  const std::size_t n = p.mass.size();
  double a = 0.0, d = 0.0, count = 0.0;
  std::size_t j = n;
  if (p.above.size() == n + 1 && p.decayed.size() == n + 1) {
    // the lowest index whose loss is above epsilon (exact comparisons: h is 2^k or 3 2^k)
    std::size_t lo = 0, hi = n;
    while (lo < hi) {
      const std::size_t mid = lo + (hi - lo) / 2;
      if (p.loss_at(mid) > epsilon)
        hi = mid;
      else
        lo = mid + 1;
    }
    j = lo;
    a = p.above[j];
    d = p.decayed[j];
    count = static_cast<double>(n - j);
  } else {
    const double decay = std::exp(-p.h);
    for (std::size_t i = n; i-- > 0;) {
      if (p.loss_at(i) <= epsilon) break;  // exact: h is 2^k or 3 2^k
      a += p.mass[i];
      d = p.mass[i] + decay * d;
      count += 1.0;
      j = i;
    }
  }
  if (j == n) return s;
  const double x = epsilon - p.loss_at(j);  // in [-h, 0)
  const double b = std::exp(x) * d;
  s.value = std::max(0.0, a - b);
  s.error = u * ((count + 1.0) * a + (3.0 * count + 8.0 + std::fabs(x)) * b + s.value) * (1.0 + 1e-9);
  return s;
}

// The largest epsilon in the segment scan where value(eps) = inf + sum_{l_i > eps} m_i (1 - e^{eps - l_i})
// equals `target`, found on the grid segments from the top (docs/pld.md): a candidate, verified by
// the caller. -infinity when value(-infinity) = inf + sum m_i <= target.
double solve_profile(const LossDistribution& p, double target) {
  if (p.infinity_mass >= target) return kInf;
  double a = 0.0, d = 0.0;  // A_j = sum_{i >= j} m_i, D_j = sum_{i >= j} m_i e^{l_j - l_i}
  const double decay = std::exp(-p.h);
  for (std::size_t j = p.mass.size(); j-- > 0;) {
    a += p.mass[j];
    d = p.mass[j] + decay * d;
    // value at l_{j-1}: inf + A_j - e^{-h} D_j
    const double below = p.infinity_mass + a - decay * d;
    if (below > target) return p.loss_at(j) + std::log((p.infinity_mass + a - target) / d);
  }
  if (p.infinity_mass + a > target && d > 0.0) return p.loss_at(0) + std::log((p.infinity_mass + a - target) / d);
  return -kInf;
}

}  // namespace

bool is_exact_grid_spacing(double h) {
  int e = 0;
  const double mantissa = h > 0.0 && std::isfinite(h) ? std::frexp(h, &e) : 0.0;
  return mantissa == 0.5 || mantissa == 0.75;
}

double log_moment(const LossDistribution& p, double theta) {
  double top = -kInf;
  for (std::size_t i = 0; i < p.mass.size(); ++i)
    if (p.mass[i] > 0.0) top = std::max(top, theta * p.loss_at(i));
  if (top == -kInf) return -kInf;
  double sum = 0.0;
  for (std::size_t i = 0; i < p.mass.size(); ++i)
    if (p.mass[i] > 0.0) sum += p.mass[i] * std::exp(theta * p.loss_at(i) - top);
  return top + std::log(sum) + 8.0 * u * (1.0 + std::fabs(top));  // rounded up a little
}

double LossDistribution::error_at(double epsilon) const {
  if (log_weighted_error == -kInf) return absolute_error;
  const double weighted = std::exp(log_weighted_error - tilt * epsilon);
  // exp's argument carries u (|log W| + 2 |theta eps|) of rounding
  return weighted * (1.0 + 4.0 * u * (1.0 + std::fabs(log_weighted_error) + 2.0 * std::fabs(tilt * epsilon))) +
         absolute_error;
}

LossDistribution no_loss(double h) {
  check_grid(h);
  LossDistribution p;
  p.h = h;
  p.mass = {1.0};
  return p;
}

LossDistribution discretise(const DominatingPair& pair, const Discretisation& d, double copies, ProfileMemo* memo) {
  check_grid(d.h);
  const double budget = d.tail / std::max(1.0, copies);
  double lo = 0.0, hi = 0.0;
  pair.loss_range(0.5 * budget, lo, hi);
  const double h = d.h;
  const double i_lo = std::floor(lo / h) - 1.0, i_hi = std::ceil(hi / h) + 1.0;
  if (!std::isfinite(i_lo) || !std::isfinite(i_hi) || i_hi - i_lo + 3.0 > static_cast<double>(d.max_points))
    throw std::length_error("the privacy loss of " + pair.describe() + " spans [" + format_number(lo) + ", " +
                            format_number(hi) + "] nats: " + format_number((hi - lo) / h) + " grid points at spacing " +
                            format_number(h) + ", more than the limit " + std::to_string(d.max_points));
  const auto first = static_cast<std::int64_t>(i_lo), last = static_cast<std::int64_t>(i_hi);
  const std::size_t n = static_cast<std::size_t>(last - first + 1);
  // delta bounds at the grid points first - 1 .. last + 1
  std::vector<Approx> delta(n + 2);
  // The memo's grid h_m is h or 2h: point i h is its point i h / h_m when that is an integer.
  const std::int64_t ratio = memo != nullptr && memo->h == 2.0 * h ? 2 : memo != nullptr && memo->h == h ? 1 : 0;
  for (std::size_t k = 0; k < n + 2; ++k) {
    const std::int64_t i = first - 1 + static_cast<std::int64_t>(k);
    if (ratio > 0 && i % ratio == 0) {
      const std::int64_t at = i / ratio - memo->first;
      if (at >= 0 && at < static_cast<std::int64_t>(memo->delta.size())) {
        delta[k] = memo->delta[static_cast<std::size_t>(at)];
        continue;
      }
    }
    delta[k] = pair.hockey_stick(static_cast<double>(i) * h);
  }
  const double decay = std::exp(-h);
  const double gap = -std::expm1(-h);  // 1 - e^{-h}
  // tails T_j for j = first .. last + 1 (index k = j - first), rounded up
  std::vector<double> tail(n + 1);
  double excess = 0.0;
  for (std::size_t k = 0; k <= n; ++k) {
    const Approx& prev = delta[k];      // at (j - 1) h
    const Approx& here = delta[k + 1];  // at j h
    const double num = prev.upper() - decay * here.lower();
    const double err = 8.0 * u * (std::fabs(prev.upper()) + std::fabs(here.lower())) / gap;
    double t = num / gap + err;
    t = std::nextafter(t * (1.0 + 8.0 * u), kInf);
    tail[k] = std::clamp(t, 0.0, 1.0);
    excess = std::max(excess, (2.0 * (prev.error + here.error)) / gap + err + 16.0 * u);
  }
  for (std::size_t k = n; k-- > 0;) tail[k] = std::max(tail[k], tail[k + 1]);  // nonincreasing
  if (memo != nullptr) {  // the profile is not read below: the memo takes it
    memo->h = h;
    memo->first = first - 1;
    memo->delta = std::move(delta);
  }
  LossDistribution p;
  p.h = h;
  p.offset = first;
  p.factors = 1;
  p.tail_excess = excess;
  p.truncated = (1.0 - tail[0]) + tail[n];  // below the grid moved up onto it; above it to infinity
  p.infinity_mass = tail[n];
  tail[0] = 1.0;
  p.mass.resize(n);
  // A difference of tails within a factor 2 of each other is exact (Sterbenz); any other is rounded
  // up, so the stored masses have tails >= T_j and no round-off needs charging.
  for (std::size_t k = 0; k < n; ++k) {
    const double m = tail[k] - tail[k + 1];
    p.mass[k] = tail[k + 1] >= 0.5 * tail[k] ? m : std::nextafter(m, kInf);
  }
  p.tilt = d.tilt;
  truncate(p, budget, d.log_error_budget + log_moment(p, p.tilt) - std::log(std::max(1.0, copies)));
  return p;
}

void index_profile(LossDistribution& p) {
  const std::size_t n = p.mass.size();
  const double decay = std::exp(-p.h);
  p.above.assign(n + 1, 0.0);
  p.decayed.assign(n + 1, 0.0);
  for (std::size_t i = n; i-- > 0;) {
    p.above[i] = p.above[i + 1] + p.mass[i];
    p.decayed[i] = p.mass[i] + decay * p.decayed[i + 1];
  }
}

DeltaBounds delta_at(const LossDistribution& p, double epsilon) {
  DeltaBounds out;
  const Sum s = hockey_sum(p, epsilon);
  const double raw = p.infinity_mass + s.value;
  const double denominator = 1.0 - p.relative_error - 4.0 * u;
  out.upper =
      denominator <= 0.0
          ? 1.0  // the relative error allows anything: no information
          : std::min(1.0, std::nextafter((raw * (1.0 + 4.0 * u) + s.error + p.error_at(epsilon)) / denominator, kInf));
  const double shifted_eps = epsilon + static_cast<double>(p.factors) * p.h;
  const Sum shifted = hockey_sum(p, shifted_eps);
  out.lower = std::max(0.0, (p.infinity_mass + shifted.value - shifted.error - p.error_at(shifted_eps)) /
                                    (1.0 + p.relative_error + 4.0 * u) -
                                p.truncated - p.tail_excess - 4.0 * u * (p.infinity_mass + shifted.value));
  return out;
}

double profile_epsilon(const LossDistribution& p, double delta) { return solve_profile(p, delta); }

EpsilonBounds epsilon_at(const LossDistribution& p, double delta) {
  if (!(delta > 0.0 && delta < 1.0))
    throw std::invalid_argument("epsilon_at: delta = " + format_number(delta) + " must lie in (0, 1)");
  EpsilonBounds out;
  // Upper: aim below delta by the errors at the candidate (they shrink as epsilon grows), then
  // verify and step up.
  const double base = (delta * (1.0 - p.relative_error - 8.0 * u) - p.absolute_error) * (1.0 - 1e-9);
  double eps = base > 0.0 ? solve_profile(p, base) : kInf;
  if (eps != kInf) {
    eps = std::max(eps, 0.0);
    const double aim = base - p.error_at(eps) * (1.0 + 1e-9);
    eps = aim > 0.0 ? std::max(0.0, solve_profile(p, aim)) : kInf;
  }
  if (eps == kInf) {
    out.upper = kInf;
  } else {
    double step = 1e-12 * std::max(1.0, eps);
    for (int i = 0; i < 200 && delta_at(p, eps).upper > delta; ++i, step *= 2.0) eps += step;
    out.upper = delta_at(p, eps).upper <= delta ? eps : kInf;
  }
  // Lower: the shifted profile less the subtracted terms exceeds delta below this epsilon.
  const double shift = static_cast<double>(p.factors) * p.h;
  const double raise =
      ((delta + p.truncated + p.tail_excess) * (1.0 + p.relative_error + 8.0 * u) + p.absolute_error) * (1.0 + 1e-9);
  double low = raise < 1.0 ? solve_profile(p, raise + p.error_at(0.0)) : -kInf;
  if (low == kInf || low == -kInf) {
    out.lower = 0.0;
  } else {
    low -= shift;
    double step = 1e-12 * std::max(1.0, std::fabs(low));
    for (int i = 0; i < 200 && low > 0.0 && delta_at(p, low).lower <= delta; ++i, step *= 2.0) low -= step;
    out.lower = std::max(0.0, low);
    if (out.lower > 0.0 && delta_at(p, out.lower).lower <= delta) out.lower = 0.0;
    // The start above charges the ledgers at epsilon = 0, where they are largest; they shrink as
    // epsilon grows, so a larger epsilon may still be certified: bisect between the certified point
    // and the upper end, keeping only points whose lower delta is verified above delta.
    double certified = out.lower;
    double beyond = std::isfinite(out.upper) ? out.upper : certified + 1.0;
    for (int i = 0; i < 60 && beyond - certified > 1e-9 * std::max(1.0, certified); ++i) {
      const double mid = 0.5 * (certified + beyond);
      (delta_at(p, mid).lower > delta ? certified : beyond) = mid;
    }
    out.lower = certified;
  }
  if (out.lower > out.upper) out.lower = out.upper;
  return out;
}

}  // namespace rdpdyn::pld

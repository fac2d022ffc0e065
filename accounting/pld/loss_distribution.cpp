#include "accounting/pld/loss_distribution.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>

#include "accounting/pld/fft_convolution.hpp"
#include "numerics/format_number.hpp"

namespace rdpdyn::pld {
namespace {

constexpr double u = 0x1p-53;
constexpr double kInf = std::numeric_limits<double>::infinity();

double total(const std::vector<double>& v) { return std::accumulate(v.begin(), v.end(), 0.0); }

// log(e^x + e^y), -infinity neutral
double log_add(double x, double y) {
  if (x == -kInf) return y;
  if (y == -kInf) return x;
  const double m = std::max(x, y);
  return m + std::log1p(std::exp(std::min(x, y) - m));
}

void check_grid(double h) {
  int e = 0;
  if (!(h > 0.0) || std::frexp(h, &e) != 0.5)
    throw std::invalid_argument("PLD grid spacing h = " + format_number(h) + " must be a power of 2");
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
                            : p.tilt > 0.0               ? (p.log_weighted_error - std::log(tail)) / p.tilt
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
    p.infinity_mass = std::min(1.0, std::nextafter(p.infinity_mass + top * (1.0 + 2.0 * u * static_cast<double>(m.size())), kInf));
    p.truncated += top * (1.0 + 2.0 * u * static_cast<double>(m.size()));
    if (p.log_weighted_error > -kInf) p.absolute_error += std::exp(p.log_weighted_error - p.tilt * p.loss_at(hi));
  }
  if (dropped > -kInf) p.log_weighted_error = log_add(p.log_weighted_error, dropped + 4.0 * u * (1.0 + std::fabs(dropped)));
  if (lo > 0 || hi < m.size()) {
    m.erase(m.begin() + static_cast<std::ptrdiff_t>(hi), m.end());
    m.erase(m.begin(), m.begin() + static_cast<std::ptrdiff_t>(lo));
    p.offset += static_cast<std::int64_t>(lo);
  }
}

// sum_{l_i > eps} m_i (1 - e^{eps - l_i}) and a bound on its rounding error.
struct Sum {
  double value = 0.0;
  double error = 0.0;
};
Sum hockey_sum(const LossDistribution& p, double epsilon) {
  Sum s;
  const double n = static_cast<double>(p.mass.size());
  double magnitude = 0.0;
  for (std::size_t i = p.mass.size(); i-- > 0;) {
    const double l = p.loss_at(i);  // exact: h is a power of 2
    if (l <= epsilon) break;
    const double x = epsilon - l;
    s.value += p.mass[i] * -std::expm1(x);
    magnitude += p.mass[i] * (n + 8.0 + std::fabs(x));
  }
  s.error = u * magnitude;
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
  const double weighted = log_weighted_error == -kInf ? 0.0 : std::exp(log_weighted_error - tilt * epsilon);
  return weighted * (1.0 + 4.0 * u) + absolute_error;
}

LossDistribution no_loss(double h) {
  check_grid(h);
  LossDistribution p;
  p.h = h;
  p.mass = {1.0};
  return p;
}

LossDistribution discretise(const DominatingPair& pair, const Discretisation& d, double copies) {
  check_grid(d.h);
  const double budget = d.tail / std::max(1.0, copies);
  double lo = 0.0, hi = 0.0;
  pair.loss_range(0.5 * budget, lo, hi);
  const double h = d.h;
  const double i_lo = std::floor(lo / h) - 1.0, i_hi = std::ceil(hi / h) + 1.0;
  if (!std::isfinite(i_lo) || !std::isfinite(i_hi) || i_hi - i_lo + 3.0 > static_cast<double>(d.max_points))
    throw std::length_error("the privacy loss of " + pair.describe() + " spans [" + format_number(lo) + ", " +
                            format_number(hi) + "] nats: " + format_number((hi - lo) / h) +
                            " grid points at spacing " + format_number(h) + ", more than the limit " +
                            std::to_string(d.max_points));
  const auto first = static_cast<std::int64_t>(i_lo), last = static_cast<std::int64_t>(i_hi);
  const std::size_t n = static_cast<std::size_t>(last - first + 1);
  // delta bounds at the grid points first - 1 .. last + 1
  std::vector<Approx> delta(n + 2);
  for (std::size_t k = 0; k < n + 2; ++k) delta[k] = pair.hockey_stick(static_cast<double>(first - 1 + static_cast<std::int64_t>(k)) * h);
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

LossDistribution compose(const LossDistribution& a, const LossDistribution& b, const Discretisation& d,
                         double amplification) {
  if (a.h != b.h) throw std::invalid_argument("PLD composition needs one grid spacing");
  if (a.tilt != b.tilt) throw std::invalid_argument("PLD composition needs one tilt");
  const double theta = a.tilt;
  // Tilt each input by e^{theta (l - ref)}, ref its largest loss (so no factor exceeds 1).
  const double ra = a.loss_at(a.mass.size() - 1), rb = b.loss_at(b.mass.size() - 1);
  std::vector<double> at(a.mass.size()), bt(b.mass.size());
  double span = 0.0;
  // A tilted mass below 1e-290 (near or below the subnormals, where rounding is no longer relative)
  // is dropped, and its weighted mass m e^{theta l} charged to the ledger.
  double underflow_a = -kInf, underflow_b = -kInf;
  auto tilt = [&](const LossDistribution& x, std::vector<double>& out, double ref, double& underflow) {
    for (std::size_t i = 0; i < out.size(); ++i) {
      if (x.mass[i] == 0.0) {
        out[i] = 0.0;
        continue;
      }
      const double e = theta * (x.loss_at(i) - ref);
      const double v = x.mass[i] * std::exp(e);
      if (v < 1e-290) {
        out[i] = 0.0;
        underflow = log_add(underflow, std::log(x.mass[i]) + theta * x.loss_at(i));
      } else {
        out[i] = v;
        span = std::max(span, -e);
      }
    }
  };
  tilt(a, at, ra, underflow_a);
  tilt(b, bt, rb, underflow_b);
  if (a.mass.size() + b.mass.size() - 1 > d.max_points)
    throw std::length_error("a PLD convolution would need " + std::to_string(a.mass.size() + b.mass.size() - 1) +
                            " grid points, more than the limit " + std::to_string(d.max_points));
  const double log_scale = theta * (ra + rb);  // weighted error = tilted-units error * e^{log_scale}
  const double amp = std::log(std::max(1.0, amplification));
  const double ma = log_moment(a, theta), mb = log_moment(b, theta);
  // The budget is relative to the weighted mass M(a) M(b) of the result: ratios W / M are what
  // later convolutions preserve (both are multiplied by the same moments).
  const bool extended =
      std::log(convolution_error_bound(at, bt, Precision::Double)) + log_scale + amp > d.log_error_budget + ma + mb;
  const Convolution c = convolve(at, bt, extended ? Precision::Extended : Precision::Double);
  LossDistribution p;
  p.h = a.h;
  p.tilt = theta;
  p.offset = a.offset + b.offset;
  p.mass.resize(c.values.size());
  const double cap = total(a.mass) * total(b.mass) * (1.0 + 1e-12);  // the exact entries are at most this
  // Entries at the round-off floor (tilted value <= twice the L2 error bound, which bounds every
  // entry's error) are set to 0: untilted, that noise would be multiplied by e^{theta (ref - l)}.
  // The exact entry there is at most the value plus its error, so zeroing adds at most the value:
  // the values zeroed are charged to the weighted ledger.
  const double floor = 2.0 * c.l1_error / std::sqrt(static_cast<double>(std::max<std::size_t>(c.values.size(), 1)));
  double zeroed = 0.0;
  for (std::size_t i = 0; i < p.mass.size(); ++i) {
    const double v = c.values[i];
    if (v <= floor) {
      zeroed += v;
      p.mass[i] = 0.0;
      continue;
    }
    const double x = -theta * (p.loss_at(i) - (ra + rb));
    span = std::max(span, x);
    p.mass[i] = std::min(cap, x < 600.0 ? v * std::exp(x) : std::exp(std::log(v) + x));
  }
  p.infinity_mass = std::min(1.0, (a.infinity_mass + b.infinity_mass - a.infinity_mass * b.infinity_mass) * (1.0 + 4.0 * u));
  // Ledgers: w(e_a * b^) <= W_a M(b^), w(a * e_b) <= (M(a^) + W_a) W_b, plus this FFT's bound; the
  // masses dropped by underflow count as errors of their input.
  const double wa = log_add(a.log_weighted_error, underflow_a), wb = log_add(b.log_weighted_error, underflow_b);
  double w = -kInf;
  if (wa > -kInf) w = log_add(w, wa + mb);
  if (wb > -kInf) w = log_add(w, wb + log_add(ma, wa));
  if (c.l1_error > 0.0) w = log_add(w, std::log(c.l1_error) + log_scale);
  if (zeroed > 0.0) w = log_add(w, std::log(zeroed * (1.0 + 1e-12)) + log_scale);
  p.log_weighted_error = w == -kInf ? w : w + 1e-12;
  p.absolute_error = (a.absolute_error + b.absolute_error) * (1.0 + 4.0 * u);
  // The tilts' exponentials are rounded: a componentwise relative error of about (span + 4) u each way.
  p.relative_error = a.relative_error + b.relative_error + a.relative_error * b.relative_error + 4.0 * (span + 8.0) * u;
  p.truncated = a.truncated + b.truncated;
  p.tail_excess = a.tail_excess + b.tail_excess;
  p.factors = a.factors + b.factors;
  // What is moved or dropped here is moved again in every later copy.
  truncate(p, d.tail / amplification, d.log_error_budget + ma + mb - amp);
  return p;
}

LossDistribution self_compose(const LossDistribution& a, std::int64_t times, const Discretisation& d) {
  if (times < 1) throw std::invalid_argument("self_compose: times = " + std::to_string(times) + " must be >= 1");
  LossDistribution base = a, result;
  bool have = false;
  const double total_times = static_cast<double>(times);
  double copies = 1.0;  // factors of `a` in base
  while (times > 0) {
    if (times & 1) {
      result = have ? compose(result, base, d) : base;
      have = true;
    }
    times >>= 1;
    if (times > 0) {
      copies *= 2.0;
      // the squared base enters the result about total_times / copies times
      base = compose(base, base, d, std::max(1.0, total_times / copies));
    }
  }
  return result;
}

DeltaBounds delta_at(const LossDistribution& p, double epsilon) {
  DeltaBounds out;
  const Sum s = hockey_sum(p, epsilon);
  const double raw = p.infinity_mass + s.value;
  out.upper = std::min(1.0, std::nextafter((raw * (1.0 + 4.0 * u) + s.error + p.error_at(epsilon)) /
                                               (1.0 - p.relative_error - 4.0 * u),
                                           kInf));
  const double shifted_eps = epsilon + static_cast<double>(p.factors) * p.h;
  const Sum shifted = hockey_sum(p, shifted_eps);
  out.lower = std::max(0.0, (p.infinity_mass + shifted.value - shifted.error - p.error_at(shifted_eps)) /
                                    (1.0 + p.relative_error + 4.0 * u) -
                                p.truncated - p.tail_excess - 4.0 * u * (p.infinity_mass + shifted.value));
  return out;
}

EpsilonBounds epsilon_at(const LossDistribution& p, double delta) {
  if (!(delta > 0.0 && delta < 1.0)) throw std::invalid_argument("epsilon_at: delta = " + format_number(delta) + " must lie in (0, 1)");
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
  const double raise = ((delta + p.truncated + p.tail_excess) * (1.0 + p.relative_error + 8.0 * u) + p.absolute_error) *
                       (1.0 + 1e-9);
  double low = raise < 1.0 ? solve_profile(p, raise + p.error_at(0.0)) : -kInf;
  if (low == kInf || low == -kInf) {
    out.lower = 0.0;
  } else {
    low -= shift;
    double step = 1e-12 * std::max(1.0, std::fabs(low));
    for (int i = 0; i < 200 && low > 0.0 && delta_at(p, low).lower <= delta; ++i, step *= 2.0) low -= step;
    out.lower = std::max(0.0, low);
    if (out.lower > 0.0 && delta_at(p, out.lower).lower <= delta) out.lower = 0.0;
  }
  if (out.lower > out.upper) out.lower = out.upper;
  return out;
}

}  // namespace rdpdyn::pld

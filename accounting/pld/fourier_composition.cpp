#include "accounting/pld/fourier_composition.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "accounting/pld/fft_roundoff_probe.hpp"
#include "accounting/pld/real_fft.hpp"

namespace rdpdyn::pld {
namespace {

constexpr double u = 0x1p-53;
constexpr double kInf = std::numeric_limits<double>::infinity();

// e^{a + b}, rounded up: the sum's rounding (u (|a| + |b|)) and exp's own (an ulp).
double exp_up(double a, double b) { return std::exp(a + b) * (1.0 + 4.0 * u * (1.0 + std::fabs(a) + std::fabs(b))); }

// Exponentials along the grid: exact every kRampBlock cells, products by the one-cell factor
// between; each value then carries at most kRampError u more relative error (kRampBlock rounded
// products and the factor's own rounding raised to that power).
constexpr std::size_t kRampBlock = 64;
constexpr double kRampError = 4.0 * kRampBlock + 8.0;
// Products continue only from a value far from overflow and underflow (a factor up to e^{64 theta h}
// away), else each cell's exponential is taken afresh.
bool in_ramp_range(double v) { return v > 0x1p-800 && v < 0x1p800; }

// The tilts at which moments are taken: theta's candidates and the Chernoff bounds' exponents.
std::vector<double> tilt_grid() {
  std::vector<double> s;
  for (double x = 0.02; x <= 4096.0; x *= 1.25) s.push_back(x);
  return s;
}

// log E[e^{s L}; L finite] of one step at +s and -s for every s of tilt_grid(), rounded up. Each by
// Horner's rule in w = e^{-|s| h} from the far end (no overflow, no exponential per cell): the
// relative error is at most (3 n + 8) u + 2 n u |s h| (w's rounding, and that of s h, raised to at
// most the n-th power, and the nonnegative Horner sum, Higham Sec. 5.1); flushed underflows add at
// most n 2^-1070 absolutely.
struct StepMoments {
  std::vector<double> positive, negative;

  StepMoments(const LossDistribution& p, const std::vector<double>& grid) {
    const std::size_t n = p.mass.size();
    std::size_t lo = 0, hi = n;
    while (lo < hi && p.mass[lo] == 0.0) ++lo;
    while (hi > lo && p.mass[hi - 1] == 0.0) --hi;
    const double slack = (3.0 * static_cast<double>(n) + 8.0) * u;
    const double floor = static_cast<double>(n) * 0x1p-1070;
    const std::size_t g = grid.size();
    if (lo == hi) {
      positive.assign(g, -kInf);
      negative.assign(g, -kInf);
      return;
    }
    std::vector<double> w(g), up(g, 0.0), down(g, 0.0);
    for (std::size_t k = 0; k < g; ++k) w[k] = std::exp(-grid[k] * p.h);
    // all tilts in one sweep each way (the inner loop over the tilts vectorises)
    for (std::size_t i = lo; i < hi; ++i) {
      const double m = p.mass[i];
      for (std::size_t k = 0; k < g; ++k) up[k] = up[k] * w[k] + m;  // sum m_i w^{hi-1-i}
    }
    for (std::size_t i = hi; i-- > lo;) {
      const double m = p.mass[i];
      for (std::size_t k = 0; k < g; ++k) down[k] = down[k] * w[k] + m;  // sum m_i w^{i-lo}
    }
    for (std::size_t k = 0; k < g; ++k) {
      const double top = grid[k] * p.loss_at(hi - 1), bottom = -grid[k] * p.loss_at(lo);
      // + the rounding of s h itself (h = 3 2^k is not a power of 2), raised to the n-th power with w
      const double relative = slack + 2.0 * static_cast<double>(n) * u * std::fabs(grid[k] * p.h);
      positive.push_back(top + std::log(up[k] * (1.0 + relative) + floor) + 4.0 * u * (1.0 + std::fabs(top)));
      negative.push_back(bottom + std::log(down[k] * (1.0 + relative) + floor) + 4.0 * u * (1.0 + std::fabs(bottom)));
    }
  }
};

// log E[e^{s L}] of the composed parts (finite part) at grid[i] (sign +1) or -grid[i] (sign -1), rounded up.
double composed_log_moment(const std::vector<StepMoments>& moments, std::span<const CountedLoss> parts, std::size_t i,
                           int sign) {
  double total = 0.0, magnitude = 0.0;
  for (std::size_t k = 0; k < parts.size(); ++k) {
    const double m = sign > 0 ? moments[k].positive[i] : moments[k].negative[i];
    if (m == -kInf) return -kInf;
    total += static_cast<double>(parts[k].count) * m;
    magnitude += static_cast<double>(parts[k].count) * std::fabs(m);
  }
  return total + 4.0 * u * static_cast<double>(parts.size() + 2) * magnitude;
}

std::size_t chernoff_tilt_index(const std::vector<StepMoments>& moments, std::span<const CountedLoss> parts,
                                const std::vector<double>& grid, double delta) {
  std::size_t best_index = 0;
  double best = kInf;
  for (std::size_t i = 0; i < grid.size(); ++i) {
    const double bound = (composed_log_moment(moments, parts, i, +1) - std::log(delta)) / grid[i];
    if (bound < best) best = bound, best_index = i;
  }
  return best_index;
}

// J mod n in [0, n): the cell of loss J h on the circle of n cells (loss indices add under
// composition, so every step is placed unshifted and the window read out at its own cells).
std::size_t cell_modulo(std::int64_t j, std::size_t n) {
  const auto m = static_cast<std::int64_t>(n);
  return static_cast<std::size_t>(((j % m) + m) % m);
}

void check_parts(std::span<const CountedLoss> parts) {
  if (parts.empty()) throw std::invalid_argument("compose_in_fourier: no parts");
  for (const auto& part : parts) {
    if (!part.pld || part.count < 1)
      throw std::invalid_argument("compose_in_fourier: a part needs a PLD and a count >= 1");
    if (part.pld->h != parts.front().pld->h)
      throw std::invalid_argument("compose_in_fourier: the parts need one grid spacing");
    if (part.pld->log_weighted_error != -kInf || part.pld->absolute_error != 0.0 || part.pld->relative_error != 0.0)
      throw std::invalid_argument("compose_in_fourier: the parts must be fresh discretisations (no ledgers)");
  }
}

// z^n by repeated squaring, written out (std::complex's operator* may call __muldc3).
void power_in_place(double& re, double& im, std::int64_t n) {
  double rr = 1.0, ri = 0.0, br = re, bi = im;
  while (n > 0) {
    if (n & 1) {
      const double t = rr * br - ri * bi;
      ri = rr * bi + ri * br;
      rr = t;
    }
    n >>= 1;
    if (n > 0) {
      const double t = br * br - bi * bi;
      bi = 2.0 * br * bi;
      br = t;
    }
  }
  re = rr;
  im = ri;
}

LossDistribution compose_at_tilt(std::span<const CountedLoss> parts, const FourierOptions& options,
                                 const std::vector<double>& grid, const std::vector<StepMoments>& moments);

// The grid's tilt minimising E[e^{theta L}] e^{-theta epsilon} (tilt_at_epsilon).
double tilt_at_epsilon_of(const std::vector<StepMoments>& moments, std::span<const CountedLoss> parts,
                          const std::vector<double>& grid, double epsilon) {
  double best_theta = grid.front(), best = kInf;
  for (std::size_t i = 0; i < grid.size(); ++i) {
    const double v = composed_log_moment(moments, parts, i, +1) - grid[i] * epsilon;
    if (v < best) best = v, best_theta = grid[i];
  }
  return best_theta;
}

}  // namespace

double chernoff_tilt(std::span<const CountedLoss> parts, double delta) {
  check_parts(parts);
  const std::vector<double> grid = tilt_grid();
  std::vector<StepMoments> moments;
  for (const auto& part : parts) moments.emplace_back(*part.pld, grid);
  return grid[chernoff_tilt_index(moments, parts, grid, delta)];
}

double tilt_at_epsilon(std::span<const CountedLoss> parts, double epsilon) {
  check_parts(parts);
  const std::vector<double> grid = tilt_grid();
  std::vector<StepMoments> moments;
  for (const auto& part : parts) moments.emplace_back(*part.pld, grid);
  return tilt_at_epsilon_of(moments, parts, grid, epsilon);
}

LossDistribution compose_in_fourier(std::span<const CountedLoss> parts, const FourierOptions& options) {
  check_parts(parts);
  const std::vector<double> grid = tilt_grid();
  std::vector<StepMoments> moments;  // once, for both compositions
  for (const auto& part : parts) moments.emplace_back(*part.pld, grid);
  LossDistribution p = compose_at_tilt(parts, options, grid, moments);
  if (options.tilt > 0.0) return p;
  // The Chernoff tilt can sit far above the tilt whose ledger costs least at the epsilon the PLD
  // gives (a loss bounded near epsilon, as the add pairs' -log(1 - q)); if the ledger costs more
  // than 1e-5 delta there (about 1e-5 / theta nats of epsilon), compose again at that epsilon's tilt.
  const double eps_raw = std::max(0.0, profile_epsilon(p, options.reference_delta));
  if (std::isfinite(eps_raw) && p.error_at(eps_raw) > 1e-5 * options.reference_delta) {
    FourierOptions again = options;
    again.tilt = tilt_at_epsilon_of(moments, parts, grid, eps_raw);
    if (again.tilt < p.tilt) return compose_at_tilt(parts, again, grid, moments);
  }
  return p;
}

namespace {

LossDistribution compose_at_tilt(std::span<const CountedLoss> parts, const FourierOptions& options,
                                 const std::vector<double>& grid, const std::vector<StepMoments>& moments) {
  const double h = parts.front().pld->h;
  double steps = 0.0;  // T = sum of counts
  for (const auto& part : parts) steps += static_cast<double>(part.count);

  LossDistribution out;
  out.h = h;
  // The infinity atom: 1 - prod (1 - p_k)^{n_k}, rounded up; the moved and excess masses add up.
  double log_finite = 0.0;
  for (const auto& part : parts) {
    log_finite += static_cast<double>(part.count) * std::log1p(-std::min(part.pld->infinity_mass, 1.0));
    out.truncated += static_cast<double>(part.count) * part.pld->truncated;
    out.tail_excess += static_cast<double>(part.count) * part.pld->tail_excess;
    out.factors += part.count * part.pld->factors;
  }
  const double infinity =
      std::min(1.0, -std::expm1(log_finite) * (1.0 + 16.0 * u * (8.0 + static_cast<double>(parts.size()))));

  if (composed_log_moment(moments, parts, 0, +1) == -kInf) {
    out.mass = {0.0};  // some step always has an infinite loss
    out.infinity_mass = std::nextafter(infinity, kInf);
    return out;
  }
  std::size_t theta_index = chernoff_tilt_index(moments, parts, grid, options.reference_delta);
  if (options.tilt > 0.0) {
    const auto at = std::find(grid.begin(), grid.end(), options.tilt);
    if (at == grid.end())
      throw std::invalid_argument("compose_in_fourier: a tilt must come from tilt_at_epsilon or chernoff_tilt");
    theta_index = static_cast<std::size_t>(at - grid.begin());
  }
  const double theta = grid[theta_index];
  out.tilt = theta;
  const std::size_t g = grid.size();
  std::vector<double> log_up(g), log_down(g);  // log E[e^{s L}], log E[e^{-s L}] at the grid's s
  for (std::size_t i = 0; i < g; ++i) {
    log_up[i] = composed_log_moment(moments, parts, i, +1);
    log_down[i] = composed_log_moment(moments, parts, i, -1);
  }
  const double log_tail = std::log(options.tail);

  // The window [B, B + N) in grid cells (header). Mass above it lands N cells lower, multiplied
  // by e^{theta k N h} <= e^{theta (J - B) h}: that and P(L >= B + N) are kept below `tail`. Mass
  // below B lands higher, divided by e^{theta N h}: with B <= 0 that removes mass below every
  // epsilon >= 0 asked (no effect on delta(epsilon)) and adds at most e^{-theta N h} P(L < B) above;
  // with B > 0 (a loss almost surely positive) the mass below B, at most `tail`, is added to the
  // infinity atom instead. Among a few B, the one needing the shortest window.
  // The composed support, exactly (loss indices add): no mass outside [support_first, support_last].
  std::int64_t support_first = 0, support_last = 0;
  for (const auto& part : parts) {
    const auto& m = part.pld->mass;
    std::size_t lo = 0, hi = m.size();
    while (lo < hi && m[lo] == 0.0) ++lo;
    while (hi > lo && m[hi - 1] == 0.0) --hi;
    std::int64_t low = 0, high = 0;
    if (__builtin_mul_overflow(part.count, part.pld->offset + static_cast<std::int64_t>(lo), &low) ||
        __builtin_mul_overflow(part.count, part.pld->offset + static_cast<std::int64_t>(hi) - 1, &high) ||
        __builtin_add_overflow(support_first, low, &support_first) ||
        __builtin_add_overflow(support_last, high, &support_last)) {
      // beyond int64: no support bound (the Chernoff bounds alone)
      support_first = std::numeric_limits<std::int64_t>::min();
      support_last = std::numeric_limits<std::int64_t>::max();
      break;
    }
  }
  auto lower_tail_at = [&](double b) {
    if (b <= static_cast<double>(support_first) * h) return 0.0;
    double t = 1.0;
    for (std::size_t i = 0; i < g; ++i) t = std::min(t, exp_up(log_down[i], grid[i] * b));
    return t * (1.0 + 1e-12);
  };
  double chernoff_bottom = -kInf, chernoff_top = kInf;
  for (std::size_t i = 0; i < g; ++i) {
    chernoff_bottom = std::max(chernoff_bottom, (log_tail - log_down[i]) / grid[i]);
    chernoff_top = std::min(chernoff_top, (log_up[i] - log_tail) / grid[i]);
  }
  std::vector<double> candidates;
  if (chernoff_bottom > 0.0)
    candidates.push_back(chernoff_bottom);
  else
    for (double f : {0.0, 0.25, 0.5, 0.75, 1.0}) candidates.push_back(f * chernoff_bottom);
  std::int64_t first = 0;
  double best_cells = kInf;
  for (double candidate : candidates) {
    const auto b = std::max(support_first, static_cast<std::int64_t>(std::floor(candidate / h)));
    const double b_loss = static_cast<double>(b) * h;
    double top = chernoff_top;
    double wrap_top = kInf;
    for (std::size_t i = theta_index + 1; i < g; ++i)
      wrap_top = std::min(wrap_top, (log_up[i] - theta * b_loss - log_tail) / (grid[i] - theta));
    top = std::min(std::max(top, wrap_top), static_cast<double>(support_last) * h);
    // a circle long enough that what wraps up from below B is damped below `tail`
    if (b_loss <= 0.0 && lower_tail_at(b_loss) > 0.0)
      top = std::max(top, b_loss + (std::log(lower_tail_at(b_loss)) - log_tail) / theta);
    const double cells = std::ceil(top / h) - static_cast<double>(b) + 1.0;
    if (cells < best_cells) best_cells = cells, first = b;
  }
  if (!(best_cells <= static_cast<double>(options.max_points)))
    throw std::length_error(
        "the composed privacy loss needs " + std::to_string(static_cast<long long>(std::min(best_cells, 1e18))) +
        " grid points at spacing " + std::to_string(h) + ", more than the limit " + std::to_string(options.max_points));
  const std::size_t n = fft_size(std::max<std::size_t>(64, static_cast<std::size_t>(best_cells)));
  const double b_loss = static_cast<double>(first) * h;
  const double end_loss = static_cast<double>(first + static_cast<std::int64_t>(n)) * h;  // first loss beyond

  // The bounds at the window actually used.
  double upper_tail = 1.0, wrapped_down = kInf;
  for (std::size_t i = 0; i < g; ++i) {
    upper_tail = std::min(upper_tail, exp_up(log_up[i], -grid[i] * end_loss));
    if (i > theta_index)
      wrapped_down = std::min(wrapped_down, exp_up(log_up[i] - theta * b_loss, -(grid[i] - theta) * end_loss));
  }
  upper_tail *= 1.0 + 1e-12;
  wrapped_down *= 1.0 + 1e-12;
  if (first + static_cast<std::int64_t>(n) > support_last) upper_tail = wrapped_down = 0.0;
  const double lower_tail = lower_tail_at(b_loss);
  const double below_compensation = b_loss > 0.0 ? lower_tail : 0.0;  // to the infinity atom
  const double wrapped_up = std::exp(-theta * static_cast<double>(n) * h) * lower_tail * (1.0 + 1e-12);

  // Tilt, transform, raise to the counts and multiply.
  RealTransform transform(n);
  FftRoundoffProbe probe(n);  // a diagnostic, inert unless RDPDYN_FFT_ROUNDOFF_PROBE is set (its header)
  const std::size_t nc = n / 2 + 1;
  std::vector<double> zr(nc, 1.0), zi(nc, 0.0);
  const double rho = fft_relative_error(n);
  const double root_n = std::sqrt(static_cast<double>(n));
  double log_norm = 0.0;            // S = sum n_k c_k, c_k the normaliser of step k
  double log_tilt_error = 0.0;      // log prod (1 + xi_k)^{n_k}: the tilts' componentwise rounding
  double forward_error = 0.0;       // sum n_k rho ||a_k||_2
  double log_spectrum_bound = 0.0;  // log B_T = sum n_k log max(1, ||a_k||_1 + rho sqrt(N) ||a_k||_2)
  double norm_magnitude = 0.0;      // sum n_k |c_k|: the rounding of S
  for (std::size_t k = 0; k < parts.size(); ++k) {
    const LossDistribution& p = *parts[k].pld;
    const double c = moments[k].positive[theta_index];
    log_norm += static_cast<double>(parts[k].count) * c;
    norm_magnitude += static_cast<double>(parts[k].count) * std::fabs(c);
    auto values = transform.values();
    std::fill(values.begin(), values.end(), 0.0);
    double argument = 0.0;
    const double per_cell = std::exp(theta * p.h);
    double factor = 0.0;  // e^{theta l_i - c}: exact every kRampBlock cells, a product by e^{theta h} between
    std::size_t cell = cell_modulo(p.offset, n);  // of cell i, stepped along
    for (std::size_t i = 0; i < p.mass.size(); ++i, cell = cell + 1 == n ? 0 : cell + 1) {
      const double l = p.loss_at(i);
      factor = i % kRampBlock == 0 || !in_ramp_range(factor) ? std::exp(theta * l - c) : factor * per_cell;
      if (p.mass[i] == 0.0) continue;
      const double tilted = p.mass[i] * factor;
      // a factor beyond the doubles (a mass below ~1e-300 far up the grid): in logs instead
      values[cell] += std::isfinite(tilted) ? tilted : std::exp(std::log(p.mass[i]) + theta * l - c);
      argument = std::max(argument, std::fabs(theta * l) + std::fabs(c));
    }
    const double wraps = std::ceil(static_cast<double>(p.mass.size()) / static_cast<double>(n));
    // + the ramp's factor e^{theta h}, whose argument's rounding (h = 3 2^k) is raised to kRampBlock
    const double xi = 2.0 * u * argument + (3.0 + wraps + kRampError + 2.0 * kRampBlock * std::fabs(theta * p.h)) * u;
    log_tilt_error += static_cast<double>(parts[k].count) * std::log1p(xi);
    double l1 = 0.0, sq = 0.0;
    for (double v : values) l1 += v, sq += v * v;
    l1 *= 1.0 + static_cast<double>(n) * u;
    const double l2 = std::sqrt(sq) * (1.0 + static_cast<double>(n) * u);
    forward_error += static_cast<double>(parts[k].count) * rho * l2;
    log_spectrum_bound += static_cast<double>(parts[k].count) * std::log(std::max(1.0, l1 + rho * root_n * l2));
    probe.add_part(values, parts[k].count);
    transform.forward();
    auto spectrum = transform.spectrum();
    for (std::size_t f = 0; f < nc; ++f) {
      double re = spectrum[f].real(), im = spectrum[f].imag();
      power_in_place(re, im, parts[k].count);
      const double t = zr[f] * re - zi[f] * im;
      zi[f] = zr[f] * im + zi[f] * re;
      zr[f] = t;
    }
  }
  auto spectrum = transform.spectrum();
  for (std::size_t f = 0; f < nc; ++f) spectrum[f] = {zr[f], zi[f]};
  transform.inverse();
  auto values = transform.values();

  // The L2 error of the tilted result (header; Higham Thm 24.2 and Lemma 3.5), then its L1 bound.
  const double spectrum_bound = std::exp(log_spectrum_bound * (1.0 + 1e-12));
  const double product_error =
      std::expm1((steps + static_cast<double>(parts.size())) * std::log1p(std::sqrt(2.0) * 2.0 * u / (1.0 - 2.0 * u)));
  const double l2_error = spectrum_bound * (forward_error * (1.0 + product_error) + product_error +
                                            rho * (1.0 + product_error) + 2.0 * u * (1.0 + product_error));
  const double l1_error = root_n * l2_error * (1.0 + 1e-9);

  // Untilt: m_J = y_J e^{S - theta J h}, capped at 1 (every exact mass is at most 1, so the cap only
  // brings an entry closer to it).
  out.offset = first;
  out.mass.resize(n);
  const double scale = 1.0 / static_cast<double>(n);
  probe.report(values, scale, l1_error);
  double largest_untilt_argument = 0.0;
  const double per_cell = std::exp(-theta * h);
  double factor = 0.0;  // e^{S - theta l_r}, as the tilts above
  std::size_t cell = cell_modulo(first, n);
  for (std::size_t r = 0; r < n; ++r, cell = cell + 1 == n ? 0 : cell + 1) {
    const double argument = log_norm - theta * out.loss_at(r);
    factor = r % kRampBlock == 0 || !in_ramp_range(factor) ? std::exp(argument) : factor * per_cell;
    const double y = values[cell] * scale;
    if (!(y > 0.0)) {
      out.mass[r] = 0.0;
      continue;
    }
    largest_untilt_argument =
        std::max(largest_untilt_argument, std::fabs(log_norm) + std::fabs(theta * out.loss_at(r)));
    out.mass[r] = argument > 700.0 ? std::min(1.0, std::exp(std::log(y) + argument)) : std::min(1.0, y * factor);
  }
  const double untilt_error = 2.0 * u * largest_untilt_argument +
                              (6.0 + kRampError + 2.0 * kRampBlock * std::fabs(theta * h)) * u +
                              2.0 * u * (4.0 + static_cast<double>(parts.size())) * norm_magnitude;
  out.relative_error = std::expm1((log_tilt_error + std::log1p(untilt_error)) * (1.0 + 1e-9)) * (1.0 + 1e-9);
  if (!(l1_error >= 0.0) || !(spectrum_bound >= 1.0))
    throw std::logic_error("compose_in_fourier: the round-off bound is not a number (internal error)");
  out.log_weighted_error = l1_error > 0.0 ? std::log(l1_error) + log_norm + 1e-12 * (1.0 + std::fabs(log_norm)) : -kInf;
  out.infinity_mass = std::min(1.0, std::nextafter(infinity + upper_tail + below_compensation, kInf));
  out.truncated += upper_tail + below_compensation + wrapped_up + wrapped_down;
  return out;
}

}  // namespace

}  // namespace rdpdyn::pld

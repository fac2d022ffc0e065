#include "analyses/ye_shokri_2022.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <limits>
#include <numeric>
#include <sstream>
#include <stdexcept>

#include "dynamics/rdp_interpolation.hpp"

namespace rdpdyn::ye_shokri {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

std::string fmt(double x) {
  std::ostringstream os;
  os << std::setprecision(6) << x;
  return os.str();
}

void require(bool ok, const std::string& what) {
  if (!ok) throw std::invalid_argument("ye_shokri: " + what);
}

// (1 - q^{e m}) / (1 - q^e) = sum_{k<m} q^{e k}, stable for q near 1.
double geometric_ratio(double q, std::int64_t e, std::int64_t m) {
  if (m <= 0) return 0.0;
  if (q == 1.0) return static_cast<double>(m);
  if (q == 0.0) return 1.0;
  const double lq = std::log(q) * static_cast<double>(e);
  return std::expm1(lq * static_cast<double>(m)) / std::expm1(lq);
}

// log((1/N) sum_j exp(x_j)) for x_j >= 0; the log1p/expm1 branch keeps small values accurate
// (they are divided by alpha - 1 afterwards, which may be small).
double log_mean_exp(std::span<const double> x) {
  const double m = *std::max_element(x.begin(), x.end());
  const double count = static_cast<double>(x.size());
  if (m < 1.0) {
    double s = 0.0;
    for (double v : x) s += std::expm1(v);
    return std::log1p(s / count);
  }
  double s = 0.0;
  for (double v : x) s += std::exp(v - m);
  return m + std::log(s / count);
}

// log(p e^x + (1 - p) e^y) for x, y >= 0, accurate for small and large arguments.
double log_mix(double p, double x, double y) {
  const double m = std::max(x, y);
  if (m < 1.0) return std::log1p(p * std::expm1(x) + (1.0 - p) * std::expm1(y));
  return m + std::log(p * std::exp(x - m) + (1.0 - p) * std::exp(y - m));
}

void check_grid(std::span<const double> grid, std::span<const double> R) {
  require(!grid.empty() && grid.size() == R.size(), "grid and values must be non-empty and of equal size");
  for (std::size_t i = 0; i < grid.size(); ++i) {
    require(grid[i] > 1.0 && std::isfinite(grid[i]), "grid orders must be finite and > 1; found " + fmt(grid[i]));
    require(i == 0 || grid[i] > grid[i - 1], "grid orders must increase strictly");
  }
}

// Upper bound on R(order) from non-decreasing node bounds sm: the two nodes around `order` give
// exactly what rdp_upper_interpolation gives on the whole grid (the tail minimum of a
// non-decreasing sequence is its first element), in O(log n).
double read_bound(std::span<const double> grid, std::span<const double> sm, double order) {
  const auto hi = static_cast<std::size_t>(std::lower_bound(grid.begin(), grid.end(), order) - grid.begin());
  if (hi == grid.size()) return kInf;
  if (hi == 0 || grid[hi] == order)
    return rdp_upper_interpolation(grid.subspan(hi, 1), sm.subspan(hi, 1), order);
  return rdp_upper_interpolation(grid.subspan(hi - 1, 2), sm.subspan(hi - 1, 2), order);
}

// Transported grid values at each user order (the grid holds them exactly).
std::vector<double> at_orders(std::span<const double> grid, std::span<const double> R,
                              std::span<const double> orders) {
  std::vector<double> out;
  out.reserve(orders.size());
  for (double a : orders) {
    const auto i = static_cast<std::size_t>(std::lower_bound(grid.begin(), grid.end(), a) - grid.begin());
    out.push_back(R[i]);
  }
  return out;
}

std::vector<double> iterate_steps(std::span<const double> grid, std::vector<double> R,
                                  std::span<const Lemma32Step> steps) {
  for (const auto& s : steps) R = lemma32_step_on_grid(grid, R, s);
  return R;
}

// Assumptions every theorem of the paper shares.
std::optional<std::string> common_violation(const TrainingRun& run) {
  if (run.orders.empty()) return std::string("needs at least one Renyi order; the run lists none");
  for (double a : run.orders)
    if (!(a > 1.0) || !std::isfinite(a))
      return "needs finite Renyi orders alpha > 1 (Def. B.2, eq. (15)); the run lists alpha = " + fmt(a);
  if (run.adjacency != Adjacency::Replace)
    return std::string("needs adjacency = replace (neighbouring datasets of the same size, L85); the run uses ") +
           adjacency_name(run.adjacency);
  if (!(run.n >= 1.0) || run.n != std::floor(run.n) || run.n > 9.0e15)
    return "needs an integer dataset size n >= 1; n = " + fmt(run.n);
  if (run.batch_size < 1 || static_cast<double>(run.batch_size) > run.n)
    return "needs 1 <= b <= n; b = " + std::to_string(run.batch_size) + ", n = " + fmt(run.n);
  if (run.steps < 1) return "needs steps >= 1 (K >= 1); steps = " + std::to_string(run.steps);
  if (auto m = undeclared(run, {RunConstant::StepSize, RunConstant::Sensitivity, RunConstant::Smoothness})) return m;
  if (!(run.eta > 0.0) || !std::isfinite(run.eta)) return "needs a step size eta > 0; eta = " + fmt(run.eta);
  if (!(run.sigma > 0.0) || !std::isfinite(run.sigma)) return "needs noise sigma > 0; sigma = " + fmt(run.sigma);
  if (!(run.sensitivity >= 0.0) || !std::isfinite(run.sensitivity))
    return "needs a finite gradient sensitivity S_g >= 0; S_g = " + fmt(run.sensitivity);
  if (!(run.beta > 0.0) || !std::isfinite(run.beta))
    return "needs the smoothness beta > 0 (every step-size condition of Lemmas D.2/D.3 uses it); beta = " +
           fmt(run.beta) + (run.beta == 0.0 ? " (unknown)" : "");
  if (!(run.lambda >= 0.0)) return "needs strong convexity lambda >= 0; lambda = " + fmt(run.lambda);
  if (run.lambda > run.beta)
    return "needs lambda <= beta (a lambda-strongly convex loss is at best lambda-smooth); lambda = " +
           fmt(run.lambda) + ", beta = " + fmt(run.beta);
  return std::nullopt;
}

// b | n and n/b >= 2, the mini-batch structure of Thms D.4, 3.3, 4.2.
std::optional<std::string> partition_violation(const TrainingRun& run, const char* theorem) {
  const auto n = static_cast<std::int64_t>(run.n);
  if (n % run.batch_size != 0)
    return "needs b dividing n (n/b batches per epoch, Algorithm 1); n = " + fmt(run.n) +
           ", b = " + std::to_string(run.batch_size);
  if (n / run.batch_size < 2)
    return std::string("needs n/b >= 2 (") + theorem + "); n/b = 1 (full batch: see ye-shokri-d6)";
  return std::nullopt;
}

AnalysisResult refuse(AnalysisResult r, std::string why) {
  r.applies = false;
  r.reason = std::move(why);
  r.R.clear();
  return r;
}

// Per batch j0 of a fixed partition, the smallest valid bound (units R/(alpha w)) among Thm 3.3
// (91) (lambda > 0, whole epochs), Thm D.4 (80) (whole epochs) and the shifted Lemma 3.2 recursion.
struct PerBatch {
  std::vector<double> best;
  std::vector<double> thm33, d4, recursion;  // NaN where not applicable
  bool whole_epochs = false;
};

PerBatch per_batch_bounds(std::int64_t N, std::int64_t steps, double q, bool strongly_convex) {
  PerBatch pb;
  pb.whole_epochs = steps % N == 0;
  const std::int64_t K = steps / N;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  pb.recursion = shifted_recursion_units(N, steps, q);
  pb.thm33.assign(static_cast<std::size_t>(N), nan);
  pb.d4.assign(static_cast<std::size_t>(N), nan);
  pb.best = pb.recursion;
  for (std::int64_t j0 = 0; j0 < N; ++j0) {
    const auto i = static_cast<std::size_t>(j0);
    if (pb.whole_epochs) {
      pb.d4[i] = thmD4_units(N, K, j0);
      pb.best[i] = std::min(pb.best[i], pb.d4[i]);
      if (strongly_convex) {
        pb.thm33[i] = thm33_units(N, K, j0, q);
        pb.best[i] = std::min(pb.best[i], pb.thm33[i]);
      }
    }
  }
  return pb;
}

std::string which_bound(const PerBatch& pb, std::size_t i) {
  if (pb.best[i] == pb.thm33[i]) return "Thm 3.3 (91)";
  if (pb.best[i] == pb.d4[i]) return "Thm D.4 (80)";
  return "the Lemma 3.2 recursion";
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Units
// ---------------------------------------------------------------------------------------------

double gaussian_step_cost(double eta, double sigma, double sensitivity, double batch_size) {
  // Lemma 3.2, eq. (70): eta^2 (S_g/b)^2 / (2 * 2 eta sigma^2) = eta S_g^2 / (4 sigma^2 b^2).
  return eta * sensitivity * sensitivity / (4.0 * sigma * sigma * batch_size * batch_size);
}


// ---------------------------------------------------------------------------------------------
// LSI sequences
// ---------------------------------------------------------------------------------------------

double squared_lipschitz(double eta, double lambda) {
  // Lemma D.3 proof (L403): the step map is (1 - eta lambda)-Lipschitz.
  const double L = 1.0 - eta * lambda;
  return L * L;
}

double geometric_sum(std::int64_t m, double q) {
  require(m >= 0 && q >= 0.0 && q <= 1.0, "geometric_sum needs m >= 0 and q in [0, 1]");
  if (m == 0) return 0.0;
  if (q == 1.0) return static_cast<double>(m);
  if (q == 0.0) return 1.0;
  const double lq = std::log(q);
  return std::expm1(lq * static_cast<double>(m)) / std::expm1(lq);
}

double lsi_constant_convex(std::int64_t m, double eta, double sigma) {
  // Lemma D.2, eq. (71): 1/c_m = 2 eta sigma^2 m.
  require(m >= 0, "step index m must be >= 0");
  if (m == 0) return kInf;
  return 1.0 / (2.0 * eta * sigma * sigma * static_cast<double>(m));
}

double lsi_constant_strongly_convex(std::int64_t m, double eta, double sigma, double lambda) {
  // Lemma D.3, eq. (76): 1/c_m = 2 eta sigma^2 sum_{s<m} (1 - eta lambda)^{2s}.
  require(m >= 0, "step index m must be >= 0");
  if (m == 0) return kInf;
  return 1.0 / (2.0 * eta * sigma * sigma * geometric_sum(m, squared_lipschitz(eta, lambda)));
}

double lemma32_contraction(double lsi_c, double eta, double sigma, double lipschitz) {
  // Lemma 3.2, eq. (56): (1 + c 2 eta sigma^2 / L^2)^{-1}.
  if (std::isinf(lsi_c)) return 0.0;
  return 1.0 / (1.0 + lsi_c * 2.0 * eta * sigma * sigma / (lipschitz * lipschitz));
}

double contraction_factor(std::int64_t m, double q) {
  // (56) with c_m of (71)/(76): 2 c_m eta sigma^2 / q = 1 / (q S_m), so rho_m = q S_m / S_{m+1}.
  require(m >= 0 && q >= 0.0 && q <= 1.0, "contraction_factor needs m >= 0 and q in [0, 1]");
  if (m == 0) return 0.0;
  if (q == 1.0) return static_cast<double>(m) / static_cast<double>(m + 1);
  return q * geometric_sum(m, q) / geometric_sum(m + 1, q);
}

std::optional<std::string> gradient_step_size_violation(double eta, double lambda, double beta) {
  const double bound = 2.0 / (lambda + beta);
  if (eta < bound) return std::nullopt;
  if (lambda > 0.0)
    return "needs eta < 2/(lambda+beta) = " + fmt(bound) +
           " (Lemma D.3; L704's lambda+eta read as lambda+beta); eta = " + fmt(eta);
  return "needs eta < 2/beta = " + fmt(bound) + " (Lemma D.2, convex); eta = " + fmt(eta);
}

std::optional<std::string> full_batch_step_size_violation(double eta, double beta) {
  const double bound = 1.0 / beta;
  if (eta < bound) return std::nullopt;
  return "needs eta < 1/beta = " + fmt(bound) + " (Thm D.6, L597); eta = " + fmt(eta);
}

// ---------------------------------------------------------------------------------------------
// Lemma 3.2 on a grid
// ---------------------------------------------------------------------------------------------

std::vector<double> transport_grid(std::span<const double> orders) {
  require(!orders.empty(), "transport_grid needs at least one order");
  for (double a : orders) require(a > 1.0 && std::isfinite(a), "orders must be finite and > 1; found " + fmt(a));
  std::vector<double> grid(orders.begin(), orders.end());
  const double top = *std::max_element(grid.begin(), grid.end());
  // alpha - 1 = kGridMinExcess * 10^(i / kGridPointsPerDecade), computed from i (no accumulation).
  const double log_lo = std::log10(kGridMinExcess);
  for (int i = 0;; ++i) {
    const double a = 1.0 + std::pow(10.0, log_lo + static_cast<double>(i) / kGridPointsPerDecade);
    if (a >= top) break;
    grid.push_back(a);
  }
  std::sort(grid.begin(), grid.end());
  grid.erase(std::unique(grid.begin(), grid.end()), grid.end());
  return grid;
}

std::vector<double> lemma32_step_on_grid(std::span<const double> grid, std::span<const double> R,
                                         const Lemma32Step& step) {
  check_grid(grid, R);
  require(step.rho >= 0.0 && step.rho <= 1.0, "rho must lie in [0, 1]; found " + fmt(step.rho));
  require(step.gaussian_cost >= 0.0, "gaussian_cost must be >= 0; found " + fmt(step.gaussian_cost));
  const std::size_t n = grid.size();
  // Lemma 3.2 case i0 in B, eq. (70): R += alpha * cost, exact on any grid.
  std::vector<double> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = R[i] + grid[i] * step.gaussian_cost;
  if (step.rho == 1.0) return v;
  // Suffix minima: R_alpha is non-decreasing (van Erven & Harremoes 2014, Thm 3), so
  // min_{j >= i} v_j bounds R at grid[i] too; it is non-decreasing, tighter, and lets read_bound
  // use two nodes.
  std::vector<double> sm(v);
  for (std::size_t i = n - 1; i-- > 0;) sm[i] = std::min(sm[i], sm[i + 1]);
  std::vector<double> out(n);
  if (step.rho == 0.0) {  // c = +infinity: alpha' = 1, factor 0 (a finite bound is annihilated)
    std::fill(out.begin(), out.end(), std::isfinite(sm[0]) ? 0.0 : kInf);
    return out;
  }
  // Lemma 3.2 case i0 not in B, eqs. (66)-(68): R(alpha) <= alpha rho R(alpha') / alpha'.
  for (std::size_t i = 0; i < n; ++i) {
    const double ap = 1.0 + (grid[i] - 1.0) * step.rho;
    out[i] = grid[i] * step.rho * read_bound(grid, sm, ap) / ap;
  }
  return out;
}

std::vector<double> lemma32_recursion_from_values(std::span<const double> orders,
                                                  std::span<const double> R0,
                                                  std::span<const Lemma32Step> steps) {
  require(orders.size() == R0.size(), "orders and R0 must have equal size");
  const auto grid = transport_grid(orders);
  // User data sorted by order (duplicates: the smaller bound) for the initial interpolation.
  std::vector<std::size_t> idx(orders.size());
  std::iota(idx.begin(), idx.end(), std::size_t{0});
  std::sort(idx.begin(), idx.end(), [&](auto i, auto j) { return orders[i] < orders[j]; });
  std::vector<double> a, v;
  for (auto i : idx) {
    if (!a.empty() && a.back() == orders[i]) {
      v.back() = std::min(v.back(), R0[i]);
    } else {
      a.push_back(orders[i]);
      v.push_back(R0[i]);
    }
  }
  std::vector<double> R(grid.size());
  for (std::size_t i = 0; i < grid.size(); ++i) R[i] = rdp_upper_interpolation(a, v, grid[i]);
  return at_orders(grid, iterate_steps(grid, std::move(R), steps), orders);
}

std::vector<double> lemma32_recursion_from_curve(std::span<const double> orders,
                                                 const std::function<double(double)>& R0,
                                                 std::span<const Lemma32Step> steps) {
  const auto grid = transport_grid(orders);
  std::vector<double> R(grid.size());
  for (std::size_t i = 0; i < grid.size(); ++i) R[i] = R0(grid[i]);
  return at_orders(grid, iterate_steps(grid, std::move(R), steps), orders);
}

// ---------------------------------------------------------------------------------------------
// Theorem forms
// ---------------------------------------------------------------------------------------------

double epoch_start_units(std::int64_t j, double q) {
  // Thm 3.3, eq. (99): (1 - eta lambda)^{2(j-1)} / sum_{s<j} (1 - eta lambda)^{2s}.
  require(j >= 1, "eps_0^j needs j >= 1; found " + std::to_string(j));
  return std::pow(q, static_cast<double>(j - 1)) / geometric_sum(j, q);
}

double thm33_units(std::int64_t N, std::int64_t K, std::int64_t j0, double q) {
  require(N >= 2 && K >= 1 && j0 >= 0 && j0 < N, "Thm 3.3 needs n/b >= 2, K >= 1, 0 <= j0 < n/b");
  // Thm 3.3, eq. (91): restart by composition (100) at h = floor(n/2b), contraction
  // Q = (1 - eta lambda)^{2(n/b - h)} over the rest of each epoch, (104)-(108).
  const std::int64_t h = N / 2;
  return epoch_start_units(h, q) * geometric_ratio(q, N - h, K - 1) + epoch_start_units(N - j0, q);
}

double thmD4_units(std::int64_t N, std::int64_t K, std::int64_t j0) {
  require(N >= 1 && K >= 1 && j0 >= 0 && j0 < N, "Thm D.4 needs K >= 1 and 0 <= j0 < n/b");
  // Thm D.4, eq. (80): (b/n)(K - 1) + 1/(n/b - j0).
  return static_cast<double>(K - 1) / static_cast<double>(N) + 1.0 / static_cast<double>(N - j0);
}

double plain_recursion_units(std::int64_t N, std::int64_t steps, std::int64_t j0, double q) {
  require(N >= 1 && j0 >= 0 && j0 < N && q >= 0.0 && q <= 1.0, "plain recursion needs 0 <= j0 < n/b, q in [0, 1]");
  // Lemma 3.2, eq. (56), with c_m of Lemma D.2/D.3: rho_m = q S_m / S_{m+1}, S_{m+1} = q S_m + 1.
  double u = 0.0, S = 0.0;
  for (std::int64_t m = 0; m < steps; ++m) {
    const double S1 = q * S + 1.0;
    if (m % N == j0)
      u += 1.0;
    else
      u *= q * S / S1;
    S = S1;
  }
  return u;
}

std::vector<double> shifted_recursion_units(std::int64_t N, std::int64_t steps, double q) {
  require(N >= 1 && q >= 0.0 && q <= 1.0, "shifted recursion needs n/b >= 1 and q in [0, 1]");
  // One run with the record in batch 0; batch j0 starts at its first use (point-init reduction,
  // L280; shift (82)/(92)), so its bound is this run's value after steps - j0 steps.
  std::vector<double> out(static_cast<std::size_t>(N), 0.0);
  double u = 0.0, S = 0.0;
  for (std::int64_t m = 0; m < steps; ++m) {
    const double S1 = q * S + 1.0;
    if (m % N == 0)
      u += 1.0;
    else
      u *= q * S / S1;
    S = S1;
    const std::int64_t j0 = steps - (m + 1);
    if (j0 < N) out[static_cast<std::size_t>(j0)] = u;
  }
  return out;
}

double mixture_over_batches(double alpha, std::span<const double> units, double w) {
  require(alpha > 1.0 && !units.empty(), "mixture needs alpha > 1 and at least one batch");
  // Lemma 4.1, eq. (133), with p(i0 in B^{j0}) = b/n (139)-(140).
  const double t = alpha - 1.0;
  std::vector<double> x(units.size());
  for (std::size_t i = 0; i < units.size(); ++i) x[i] = t * alpha * w * units[i];
  return log_mean_exp(x) / t;
}

double thm42(double alpha, std::int64_t N, std::int64_t K, double q, double w) {
  require(alpha > 1.0 && N >= 2 && K >= 1, "Thm 4.2 needs alpha > 1, n/b >= 2, K >= 1");
  // Thm 4.2, eq. (135): the first term of (91), plus Lemma 4.1 over j0 of eps_0^{n/b - j0} (136).
  const std::int64_t h = N / 2;
  const double first = alpha * w * epoch_start_units(h, q) * geometric_ratio(q, N - h, K - 1);
  std::vector<double> units(static_cast<std::size_t>(N));
  for (std::int64_t j0 = 0; j0 < N; ++j0) units[static_cast<std::size_t>(j0)] = epoch_start_units(N - j0, q);
  return first + mixture_over_batches(alpha, units, w);
}

double thm43(double alpha, std::int64_t steps, double sampling_rate, double q, double w) {
  require(alpha > 1.0 && sampling_rate > 0.0 && sampling_rate <= 1.0 && q >= 0.0 && q <= 1.0,
          "Thm 4.3 needs alpha > 1, b/n in (0, 1], q in [0, 1]");
  // Thm 4.3, eq. (149) in log space, s = log S: s <- log(p e^{(alpha-1) alpha w + s} + (1-p) e^{q s}).
  const double jump = (alpha - 1.0) * alpha * w;
  // q = 1: every step adds log(p e^jump + 1 - p), exactly.
  if (q == 1.0) return static_cast<double>(steps) * std::log1p(sampling_rate * std::expm1(jump)) / (alpha - 1.0);
  // f(s) is convex and increasing, s_t rises to its fixed point s* (if p e^jump < 1), where
  // f'(s*) = p e^jump + (1 - p e^jump) q. Once the increments stall, s* <= s_t + (s_{t+1} - s_t) /
  // (1 - f'(s*)) bounds every later s_t: return that (plus rounding slack) instead of iterating on.
  // If p e^jump > 1 there is no fixed point: once the first term dominates, each step adds
  // log(p e^jump) + log1p(((1-p)/p) e^{(q-1)s - jump}), which only shrinks as s grows, so the
  // current increment times the steps left bounds the rest.
  const double pe = sampling_rate * std::exp(jump);
  const double gap = pe < 1.0 ? (1.0 - pe) * (1.0 - q) : 0.0;
  const double log_odds = std::log((1.0 - sampling_rate) / sampling_rate);  // -inf at p = 1
  double s = 0.0;  // (148): S_0^0 = 1
  for (std::int64_t t = 0; t < steps; ++t) {
    if (pe > 1.0 && log_odds + (q - 1.0) * s - jump < -40.0) {
      const double inc = std::log(sampling_rate) + jump + std::log1p(std::exp(log_odds + (q - 1.0) * s - jump));
      return (s + static_cast<double>(steps - t) * inc) / (alpha - 1.0);
    }
    const double next = log_mix(sampling_rate, jump + s, q * s);
    if (gap > 0.0 && next - s <= 1e-13 * next) {
      const double slack = std::max(next - s, 0.0) + 8.0 * std::numeric_limits<double>::epsilon() * next;
      return (next + slack / gap) / (alpha - 1.0);
    }
    s = next;
  }
  return s / (alpha - 1.0);  // (147)
}

double d6_units(std::int64_t K, double eta_lambda, double gamma) {
  require(K >= 0 && gamma > 0.0 && gamma <= 1.0 && eta_lambda >= 0.0 && eta_lambda <= 1.0,
          "Thm D.6 needs K >= 0, gamma in (0, 1], eta lambda in [0, 1]");
  // Thm D.6, eq. (112)/(126) [gamma = 1/2]: per step cost w/gamma (119), factor
  // (q S_k + gamma)/S_{k+1} <= q + gamma (1 - q) <= 1 - (1-gamma) eta lambda ((123)-(125)).
  const double one_minus_r = (1.0 - gamma) * eta_lambda;
  if (one_minus_r == 0.0) return static_cast<double>(K) / gamma;
  const double r = 1.0 - one_minus_r;
  return r * -std::expm1(static_cast<double>(K) * std::log1p(-one_minus_r)) / one_minus_r / gamma;
}

double d6_recursion_units(std::int64_t K, double q, double gamma) {
  require(K >= 0 && gamma > 0.0 && gamma <= 1.0 && q >= 0.0 && q <= 1.0,
          "the D.6 recursion needs K >= 0, gamma in (0, 1], q in [0, 1]");
  // Eqs. (117)-(122) with split gamma: 1/c^{gamma} = 2 eta sigma^2 (q S_k + gamma), and the
  // remaining noise 2 (1-gamma) eta sigma^2 contracts by (q S_k + gamma) / S_{k+1}.
  const double cost = 1.0 / gamma;
  double u = 0.0, S = 0.0;
  for (std::int64_t k = 0; k < K; ++k) {
    const double S1 = q * S + 1.0;
    const double rho = (q * S + gamma) / S1;
    if (S1 == S) {  // S_k has converged: constant factor, solve the affine recursion in closed form
      const auto left = static_cast<double>(K - k);
      if (rho == 1.0) return u + left * cost;
      const double fixed = cost * rho / (1.0 - rho);
      return fixed + std::pow(rho, left) * (u - fixed);
    }
    u = (u + cost) * rho;
    S = S1;
  }
  return u;
}

SplitOptimum optimise_split(const std::function<double(double)>& f) {
  constexpr int kNodes = 64;
  SplitOptimum best{1.0, f(1.0)};
  int best_i = kNodes;
  for (int i = 1; i < kNodes; ++i) {
    const double g = static_cast<double>(i) / kNodes;
    const double v = f(g);
    if (v < best.value) best = {g, v}, best_i = i;
  }
  // Golden-section search between the neighbours of the best node.
  double lo = best_i == 1 ? 1.0 / (kNodes * kNodes) : static_cast<double>(best_i - 1) / kNodes;
  double hi = std::min(1.0, static_cast<double>(best_i + 1) / kNodes);
  const double invphi = (std::sqrt(5.0) - 1.0) / 2.0;
  double x1 = hi - invphi * (hi - lo), x2 = lo + invphi * (hi - lo);
  double f1 = f(x1), f2 = f(x2);
  for (int it = 0; it < 80 && hi - lo > 1e-12; ++it) {
    if (f1 <= f2) {
      hi = x2, x2 = x1, f2 = f1;
      x1 = hi - invphi * (hi - lo), f1 = f(x1);
    } else {
      lo = x1, x1 = x2, f1 = f2;
      x2 = lo + invphi * (hi - lo), f2 = f(x2);
    }
  }
  if (f1 < best.value) best = {x1, f1};
  if (f2 < best.value) best = {x2, f2};
  return best;
}

// ---------------------------------------------------------------------------------------------
// Analyses
// ---------------------------------------------------------------------------------------------

AnalysisResult thm3_3(const TrainingRun& run) {
  const bool sc = run.lambda > 0.0;
  AnalysisResult r;
  r.name = "ye-shokri-thm3.3";
  r.citation = sc ? "Ye & Shokri 2022, Thm 3.3 eq. (91) with Lemma D.3 eq. (76); alternatives Thm D.4 eq. (80) "
                    "and the Lemma 3.2 recursion eq. (56)"
                  : "Ye & Shokri 2022, Thm D.4 eq. (80) (convex) with Lemma D.2 eq. (71); alternative the "
                    "Lemma 3.2 recursion eq. (56)";
  if (auto v = common_violation(run)) return refuse(r, *v);
  // A partition drawn at random once is, given the draw, a fixed partition: the worst case over
  // the record's batch covers it.
  if (run.sampling != BatchSampling::Partition && run.sampling != BatchSampling::ShuffleOnce)
    return refuse(r, std::string("needs sampling = partition or shuffle-once (Thm 3.3/D.4 condition on a fixed partition); the run uses ") +
                         batch_sampling_name(run.sampling));
  if (auto v = partition_violation(run, sc ? "Thm 3.3, L474" : "Thm D.4")) return refuse(r, *v);
  if (auto v = gradient_step_size_violation(run.eta, run.lambda, run.beta)) return refuse(r, *v);

  const std::int64_t N = run.batches_per_epoch();
  const double q = squared_lipschitz(run.eta, run.lambda);
  const double w = gaussian_step_cost(run.eta, run.sigma, run.sensitivity, static_cast<double>(run.batch_size));
  const PerBatch pb = per_batch_bounds(N, run.steps, q, sc);
  const auto worst = static_cast<std::size_t>(std::max_element(pb.best.begin(), pb.best.end()) - pb.best.begin());
  const double units = pb.best[worst];

  std::ostringstream why;
  if (!pb.whole_epochs)
    why << "steps = " << run.steps << " is not a whole number of epochs of n/b = " << N
        << " (Thm 3.3/D.4 need whole epochs): Lemma 3.2 recursion only; ";
  why << "worst batch j0 = " << worst << " of n/b = " << N << ", R/alpha there:";
  if (!std::isnan(pb.thm33[worst])) why << " Thm 3.3 (91) " << fmt(w * pb.thm33[worst]) << ",";
  if (!std::isnan(pb.d4[worst])) why << " Thm D.4 (80) " << fmt(w * pb.d4[worst]) << ",";
  why << " Lemma 3.2 recursion from the batch's first use " << fmt(w * pb.recursion[worst])
      << "; reported the smallest per batch (here " << which_bound(pb, worst) << ") at every order";
  r.applies = true;
  r.reason = why.str();
  for (double a : run.orders) r.R.push_back(a * w * units);
  return r;
}

AnalysisResult thm4_2(const TrainingRun& run) {
  AnalysisResult r;
  r.name = "ye-shokri-thm4.2";
  r.citation = "Ye & Shokri 2022, Thm 4.2 eq. (135)-(136) via Lemma 4.1 eq. (133)";
  if (run.lambda == 0.0) r.citation += " (lambda = 0: Lemma D.2 / Thm D.4 per partition)";
  if (auto v = common_violation(run)) return refuse(r, *v);
  if (run.sampling != BatchSampling::ShuffleOnce && run.sampling != BatchSampling::Shuffle)
    return refuse(r, std::string("needs sampling = shuffle-once (a random partition drawn once, Thm 4.2; or shuffle for a single epoch); the run uses ") +
                         batch_sampling_name(run.sampling));
  if (auto v = partition_violation(run, "Thm 4.2, L704")) return refuse(r, *v);
  if (auto v = gradient_step_size_violation(run.eta, run.lambda, run.beta)) return refuse(r, *v);
  const std::int64_t N = run.batches_per_epoch();
  if (run.steps % N != 0)
    return refuse(r, "needs whole epochs (Thm 4.2, K >= 1): steps = " + std::to_string(run.steps) +
                         " is not a multiple of n/b = " + std::to_string(N));
  const std::int64_t K = run.steps / N;
  if (K > 1 && run.sampling == BatchSampling::Shuffle)
    return refuse(r, "needs one random partition for the whole run (Thm 4.2 averages over the partition drawn "
                     "once in Algorithm 1 line 3, proof (137)-(140)); the run's shuffle draws a fresh partition "
                     "in each of its K = " + std::to_string(K) + " epochs");

  const double q = squared_lipschitz(run.eta, run.lambda);
  const double w = gaussian_step_cost(run.eta, run.sigma, run.sensitivity, static_cast<double>(run.batch_size));
  const PerBatch pb = per_batch_bounds(N, run.steps, q, run.lambda > 0.0);
  double gain = 0.0;  // largest relative improvement of the mixture over (135)
  for (double a : run.orders) {
    const double paper = thm42(a, N, K, q, w);
    const double mixed = mixture_over_batches(a, pb.best, w);
    if (paper > 0.0) gain = std::max(gain, 1.0 - mixed / paper);
    r.R.push_back(std::min(paper, mixed));
  }
  r.applies = true;
  r.reason = "K = " + std::to_string(K) + " epoch(s) of n/b = " + std::to_string(N) +
             " batches; per order the smaller of (135) and Lemma 4.1 (133) over the per-batch bounds of "
             "ye-shokri-thm3.3; the latter improves (135) by up to " + fmt(100.0 * std::max(gain, 0.0)) + "%";
  return r;
}

AnalysisResult thm4_3(const TrainingRun& run) {
  AnalysisResult r;
  r.name = "ye-shokri-thm4.3";
  r.citation = "Ye & Shokri 2022, Thm 4.3 eqs. (147)-(150)";
  if (auto v = common_violation(run)) return refuse(r, *v);
  if (run.sampling != BatchSampling::PerStep)
    return refuse(r, "needs sampling = per-step (b records drawn afresh each step, P(i0 in B) = b/n, Thm 4.3); "
                     "the run uses " + std::string(batch_sampling_name(run.sampling)));
  if (auto v = gradient_step_size_violation(run.eta, run.lambda, run.beta)) return refuse(r, *v);
  const double q = squared_lipschitz(run.eta, run.lambda);
  const double p = static_cast<double>(run.batch_size) / run.n;
  const double w = gaussian_step_cost(run.eta, run.sigma, run.sensitivity, static_cast<double>(run.batch_size));
  for (double a : run.orders) r.R.push_back(thm43(a, run.steps, p, q, w));
  r.applies = true;
  r.reason = "exponentiated recursion over " + std::to_string(run.steps) + " steps, sampling rate b/n = " + fmt(p) +
             ", exponent (1 - eta lambda)^2 = " + fmt(q);
  return r;
}

AnalysisResult d6(const TrainingRun& run) {
  AnalysisResult r;
  r.name = "ye-shokri-d6";
  r.citation = "Ye & Shokri 2022, Thm D.6 eq. (112) and its unrelaxed recursion eq. (122), noise split "
               "(114)-(115) generalised to a fraction gamma";
  if (auto v = common_violation(run)) return refuse(r, *v);
  if (static_cast<double>(run.batch_size) != run.n)
    return refuse(r, "needs full batch b = n (Thm D.6, L595); b = " + std::to_string(run.batch_size) +
                         ", n = " + fmt(run.n));
  if (auto v = full_batch_step_size_violation(run.eta, run.beta)) return refuse(r, *v);
  const double q = squared_lipschitz(run.eta, run.lambda);
  const double w = gaussian_step_cost(run.eta, run.sigma, run.sensitivity, run.n);
  const std::int64_t K = run.steps;
  const SplitOptimum opt = optimise_split([&](double g) { return d6_recursion_units(K, q, g); });
  const double half = d6_recursion_units(K, q, 0.5);
  const double stated = d6_units(K, run.eta * run.lambda, 0.5);
  const double units = std::min({opt.value, half, stated});
  for (double a : run.orders) r.R.push_back(a * w * units);
  r.applies = true;
  r.reason = "recursion (122) with noise split gamma = " + fmt(opt.gamma) +
             " (optimised; R/alpha is free of alpha, so the optimum is the same at every order): R/alpha = " +
             fmt(w * units) + "; at gamma = 1/2: (122) " + fmt(w * half) + ", (112) " + fmt(w * stated);
  return r;
}

}  // namespace rdpdyn::ye_shokri

#include "analyses/noisysgd_window.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>

#include "accounting/pld/gaussian_mixture_pair.hpp"
#include "accounting/pld/poisson_replace_pair.hpp"
#include "accounting/pld/profile_cached_pair.hpp"
#include "accounting/pld/revealed_mixture_pair.hpp"
#include "accounting/pld/shared_component_pair.hpp"
#include "accounting/pld/worse_of_pairs.hpp"
#include "accounting/sampled_gaussian.hpp"
#include "analyses/bok_su_altschuler_2024.hpp"
#include "analyses/composition.hpp"
#include "models/noise_units.hpp"
#include "numerics/format_number.hpp"

namespace rdpdyn {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double u = 0x1p-53;
const char* kName = "noisysgd-window";
const char* kCitation =
    "derived here (docs/derivations/noisysgd_window.md): shifted interpolation (Bok, Su & Altschuler 2024, "
    "arXiv:2403.00278) over a window of the last K steps, the window's sampled steps composed as privacy loss "
    "distributions (docs/pld.md) and the pre-window shift averaged over its law";

double up(double x, double relative) { return std::nextafter(x * (1.0 + relative), kInf); }

/// c as a double at or above 1 - one_minus_c.
double contraction_from(double one_minus_c) { return std::nextafter(1.0 - one_minus_c, 2.0); }

/// Geometric bins of the dominating law (each bin's mass at its upper end: the profile grows with
/// the shift), shifts scaled by `scale`.
std::shared_ptr<const pld::DominatingPair> revealed_shift_pair(const DominatingDiscreteLaw& law, double scale) {
  std::vector<pld::RevealedComponent> parts;
  const std::size_t n = law.weight.size();
  if (law.weight[0] > 0.0) parts.push_back({law.weight[0], nullptr});
  for (std::size_t lo = 1; lo < n;) {
    const std::size_t hi =
        std::min(n - 1, std::max(lo, static_cast<std::size_t>(std::ceil(static_cast<double>(lo) * 1.15))));
    double mass = 0.0;
    for (std::size_t i = lo; i <= hi; ++i) mass += law.weight[i];
    mass *= 1.0 + 2.0 * static_cast<double>(hi - lo + 2) * u;  // the sum's round-off, raised
    if (mass > 0.0)
      parts.push_back({mass, std::make_shared<pld::GaussianMixturePair>(
                                 pld::gaussian_pair(up(scale * static_cast<double>(hi) * law.spacing, 8.0 * u)))});
    lo = hi + 1;
  }
  // Give any deficit against 1 to the apart atom (an upward move); a total above 1 by the raised
  // round-off is within the pair's 1e-12 tolerance and only raises the profile.
  double total = law.beyond;
  for (const auto& p : parts) total += p.weight;
  const double apart = law.beyond + std::max(0.0, 1.0 - total) * (1.0 + 4.0 * u) + 4.0 * u;
  return std::make_shared<pld::RevealedMixturePair>(
      std::move(parts), std::min(apart, 1.0),
      "revealed Gaussian shift " + format_number(scale) + " Y, Y a discounted count");
}

/// One step from a common point: C_q(G(mu)) for each batch size, the sizes revealed.
/// An upper estimate of the dynamic programme's terms J for `terms` pre-window steps on a grid of
/// `points` (its spacing is at least 1/points: the grid reaches at least 1), for bounding the work.
double law_terms_estimate(double one_minus_c, std::int64_t terms, std::size_t points) {
  const double j = std::log(one_minus_c / static_cast<double>(points)) / std::log1p(-one_minus_c) + 1.0;
  return std::min(static_cast<double>(terms), j);
}

std::shared_ptr<const pld::DominatingPair> step_pair(const WindowSetting& s, double mu, StepPairCache* cache) {
  return cache != nullptr ? cache->at(s, mu) : pld::sizes_revealed_step_pair(s.size_bins, mu);
}

/// log of a Chernoff bound on P(Bin(n, q) <= a) (a < n q) or P(Bin(n, q) >= a) (a > n q): -n KL(a/n || q),
/// raised slightly for its own round-off.
double binomial_log_tail(double n, double q, double a) {
  const double x = a / n;
  double kl = 0.0;
  if (x > 0.0) kl += x * std::log(x / q);
  if (x < 1.0) kl += (1.0 - x) * (std::log1p(-x) - std::log1p(-q));
  // n KL carries about 4 u (a + n q) of absolute round-off: raise the bound by 16 u (a + n q + 1)
  return -n * std::max(kl, 0.0) * (1.0 - 1e-12) + 16.0 * u * (a + n * q + 1.0);
}

/// 1 - c_k for batches of k records whose sum is divided by b: min(eta k lambda / b, 2 - eta k beta / b),
/// rounded down.
double one_minus_contraction_of_size(const TrainingRun& run, double k, double b) {
  const double step = run.eta * k / b;
  const double strong = step * run.lambda * (1.0 - 8.0 * u);
  const double smooth = 2.0 - step * run.beta * (1.0 + 8.0 * u) - 8.0 * u;
  return std::min(strong, smooth);
}

/// The proxy's orders and the per-step RDPs there, computed once per search (they do not depend on K).
constexpr double kRhoGrid[] = {0.02, 0.05, 0.1, 0.2, 0.35, 0.5, 0.7, 0.85};
struct ProxyTable {
  std::vector<double> alpha, step;        ///< orders; RDP of one window step (the sampled Gaussian)
  std::vector<std::vector<double>> last;  ///< per rho of kRhoGrid: RDP of the last step at m / sqrt(1 - rho)
};
ProxyTable proxy_table(const WindowSetting& s) {
  ProxyTable t;
  for (double alpha = 1.05; alpha < 3000.0; alpha *= 1.2) {
    t.alpha.push_back(alpha);
    t.step.push_back(sampled_gaussian_rdp_upper(s.q, 1.0 / s.m, alpha));
  }
  for (double rho : kRhoGrid) {
    std::vector<double> row;
    for (double alpha : t.alpha) row.push_back(sampled_gaussian_rdp_upper(s.q, std::sqrt(1.0 - rho) / s.m, alpha));
    t.last.push_back(std::move(row));
  }
  return t;
}

/// The proxy: epsilon at delta of the RDP of the same pairs (Mironov's conversion), over the table's
/// orders; rho_index < 0 for K = T (no shift); `shift` the shift's components (weight, mu).
double proxy_epsilon(const ProxyTable& t, std::int64_t steps, std::int64_t window, int rho_index,
                     const std::vector<pld::MixtureComponent>& shift, double delta) {
  double best = kInf;
  const double k = static_cast<double>(std::min(window, steps));
  for (std::size_t i = 0; i < t.alpha.size(); ++i) {
    const double alpha = t.alpha[i];
    double r = 0.0;
    if (rho_index < 0) {
      r = k * t.step[i];
    } else {
      r = (k - 1.0) * t.step[i] + t.last[static_cast<std::size_t>(rho_index)][i];
      double top = -kInf;
      for (const auto& p : shift) top = std::max(top, alpha * (alpha - 1.0) * p.mean * p.mean / 2.0);
      double sum = 0.0;
      for (const auto& p : shift) sum += p.weight * std::exp(alpha * (alpha - 1.0) * p.mean * p.mean / 2.0 - top);
      r += (top + std::log(sum)) / (alpha - 1.0);
    }
    best = std::min(best, r + std::log(1.0 / delta) / (alpha - 1.0));
  }
  return best;
}

}  // namespace

std::shared_ptr<const pld::DominatingPair> StepPairCache::at(const WindowSetting& s, double mu) {
  std::lock_guard lock(mutex_);
  auto& pair = pairs_[mu];
  if (!pair) pair = std::make_shared<pld::ProfileCachedPair>(pld::sizes_revealed_step_pair(s.size_bins, mu));
  return pair;
}

pld::Direction window_bound_pairs(const WindowSetting& s, WindowChoice choice, std::size_t law_points,
                                  StepPairCache* cache) {
  pld::Direction d;
  const std::int64_t T = s.steps, K = std::clamp<std::int64_t>(choice.window, 1, s.steps);
  if (K >= T) {
    d.push_back({step_pair(s, s.m, cache), T});
    return d;
  }
  if (!(choice.rho > 0.0 && choice.rho < 1.0))
    throw std::invalid_argument("noisysgd-window: rho = " + format_number(choice.rho) + " must lie in (0, 1)");
  if (K > 1) d.push_back({step_pair(s, s.m, cache), K - 1});
  d.push_back({step_pair(s, up(s.m / std::sqrt(1.0 - choice.rho), 8.0 * u), cache), 1});
  const double c = contraction_from(s.one_minus_c);
  const double cK = up(std::exp(static_cast<double>(K) * std::log1p(-s.one_minus_c)),
                       64.0 * u * (1.0 + static_cast<double>(K) * s.one_minus_c));
  const double scale = up(cK * s.m / std::sqrt(choice.rho), 8.0 * u);
  // at most ~2e9 operations for the law: a coarser grid when c is close to 1 (any grid dominates)
  const double J = law_terms_estimate(s.one_minus_c, T - K, law_points);
  const auto points =
      static_cast<std::size_t>(std::clamp(2e9 / std::max(J, 1.0), 256.0, static_cast<double>(law_points)));
  d.push_back({revealed_shift_pair(discounted_bernoulli_sum_upper(s.q, c, T - K, points), scale), 1});
  return d;
}

WindowChoice choose_window(const WindowSetting& s, double delta, StepPairCache* cache) {
  // Stage 1: an RDP proxy over K on a geometric grid from T down to 1 and rho on a grid.
  struct Candidate {
    double eps;
    WindowChoice choice;
  };
  // A run shorter than half a contraction length (c^T > e^{-1/2}) keeps most of any early shift: a
  // window cannot beat the composition by much there, and the search would cost more than the bound.
  if (static_cast<double>(s.steps) * s.one_minus_c < 0.5) return {s.steps, 0.5};
  const ProxyTable table = proxy_table(s);
  std::vector<Candidate> found{{proxy_epsilon(table, s.steps, s.steps, -1, {}, delta), {s.steps, 0.5}}};
  const double c = contraction_from(s.one_minus_c);
  for (std::int64_t last = s.steps; last > 1;) {
    const auto K = std::min(
        last - 1, std::max<std::int64_t>(1, static_cast<std::int64_t>(std::ceil(static_cast<double>(last) * 0.7))));
    last = K;
    if (law_terms_estimate(s.one_minus_c, s.steps - K, 1024) * 1024.0 > 3e8) continue;  // c too close to 1
    const DominatingDiscreteLaw law = discounted_bernoulli_sum_upper(s.q, c, s.steps - K, 1024);
    // the law in geometric bins (as the pair takes it): a few dozen components
    std::vector<pld::MixtureComponent> y;
    for (std::size_t lo = 0; lo < law.weight.size();) {
      const std::size_t hi = std::min(
          law.weight.size() - 1, std::max(lo, static_cast<std::size_t>(std::ceil(static_cast<double>(lo) * 1.15))));
      double mass = 0.0;
      for (std::size_t i = lo; i <= hi; ++i) mass += law.weight[i];
      if (mass > 0.0) y.push_back({mass, static_cast<double>(hi) * law.spacing});
      lo = hi + 1;
    }
    const double cK = std::exp(static_cast<double>(K) * std::log1p(-s.one_minus_c));
    for (int r = 0; r < static_cast<int>(std::size(kRhoGrid)); ++r) {
      std::vector<pld::MixtureComponent> shift = y;
      const double scale = cK * s.m / std::sqrt(kRhoGrid[r]);
      for (auto& p : shift) p.mean *= scale;
      found.push_back({proxy_epsilon(table, s.steps, K, r, shift, delta), {K, kRhoGrid[r]}});
    }
  }
  std::sort(found.begin(), found.end(), [](const Candidate& x, const Candidate& y) { return x.eps < y.eps; });
  // Stage 2: the RDP proxy misjudges the shift's heavy tail, so the best few are compared by the PLD
  // itself on a coarse grid (2^-8; each value is still an upper bound, and all share the grid).
  // The finalists: the best rho of each of the three best window lengths, and the grid's neighbours
  // of the best rho at the best length.
  std::vector<WindowChoice> finalists;
  auto add = [&](WindowChoice w) {
    if (std::none_of(finalists.begin(), finalists.end(),
                     [&](const WindowChoice& v) { return v.window == w.window && v.rho == w.rho; }))
      finalists.push_back(w);
  };
  for (const auto& f : found) {
    if (std::none_of(finalists.begin(), finalists.end(),
                     [&](const WindowChoice& v) { return v.window == f.choice.window; }))
      add(f.choice);
    if (finalists.size() == 3) break;
  }
  const WindowChoice lead = found.front().choice;
  if (lead.window < s.steps) {
    add({lead.window, std::max(0.02, lead.rho / 2.0)});
    add({lead.window, std::min(0.85, lead.rho * 2.0)});
  }
  if (finalists.size() == 1) return finalists.front();
  pld::AccountantOptions coarse;
  coarse.grid = 0x1p-8;
  WindowChoice best = finalists.front();
  double best_eps = kInf;
  for (const WindowChoice& w : finalists) {
    double eps = kInf;
    try {
      eps = pld::PldAccountant({window_bound_pairs(s, w, 1024, cache)}, coarse).epsilon(delta).upper;
    } catch (const std::length_error&) {}
    if (eps < best_eps) {
      best_eps = eps;
      best = w;
    }
  }
  return best;
}

std::variant<WindowSetting, std::string> poisson_window_setting(const TrainingRun& run, double failure_budget) {
  const double n = run.n, q = run.sampling_rate, b = run.normaliser();
  if (!(q > 0.0 && q < 1.0)) return "needs a sampling rate q in (0, 1); q = " + format_number(q);
  if (n != std::floor(n)) return "needs an integer dataset size n for the batch sizes' law; n = " + format_number(n);
  const double T = static_cast<double>(run.steps);
  const double per_side = failure_budget / (2.0 * T);
  // k_lo: the smallest size allowed; P(K <= k_lo - 1) <= per_side
  double k_lo = std::floor(n * q);
  while (k_lo >= 1.0 && std::exp(binomial_log_tail(n, q, k_lo - 1.0)) > per_side) k_lo -= 1.0;
  double k_hi = std::ceil(n * q);
  while (k_hi < n && std::exp(binomial_log_tail(n, q, k_hi + 1.0)) > per_side) k_hi += 1.0;
  const double p_lo = k_lo >= 1.0 ? std::exp(binomial_log_tail(n, q, k_lo - 1.0)) : 0.0;
  const double p_hi = k_hi < n ? std::exp(binomial_log_tail(n, q, k_hi + 1.0)) : 0.0;
  WindowSetting s;
  s.steps = run.steps;
  s.k_lo = static_cast<std::int64_t>(k_lo);
  s.k_hi = static_cast<std::int64_t>(k_hi);
  s.failure = up(T * (p_lo + p_hi), 1e-9);
  s.q = std::min({1.0, up(k_hi / n, 4.0 * u), up(q / (1.0 - (p_lo + p_hi) * (1.0 + 1e-9)), 8.0 * u)});
  s.one_minus_c = std::min(one_minus_contraction_of_size(run, k_lo, b), one_minus_contraction_of_size(run, k_hi, b));
  s.m = up(noise_units::one_step_gdp_mu(run.sigma, run.eta, run.sensitivity, b), 16.0 * u);
  try {
    s.size_bins = pld::binomial_size_bins(n, q, k_lo, k_hi);
  } catch (const std::length_error& e) {
    return std::string(e.what()) + ": the batch sizes' law is too wide to tabulate";
  }
  if (!(s.one_minus_c > 1e-12))
    return "the gradient maps contract on no batch size in [" + format_number(k_lo) + ", " + format_number(k_hi) +
           "] (the sizes Poisson sampling reaches but with probability " + format_number(s.failure) +
           "): needs eta k beta / b < 2 and k > 0 there (1 - c = " + format_number(s.one_minus_c) + ")";
  return s;
}

AnalysisResult noisysgd_window(const RunSpec& spec, const TrainingRun& run) {
  AnalysisResult r;
  r.name = kName;
  r.citation = kCitation;
  auto refuse = [&](std::string why) {
    r.reason = std::move(why);
    return r;
  };
  if (run.sampling != BatchSampling::PerStep && run.sampling != BatchSampling::Poisson)
    return refuse(std::string("needs a batch drawn afresh at every step (sampling = per-step or poisson); the run "
                              "samples ") +
                  batch_sampling_name(run.sampling) +
                  " (full batch: bok-su-altschuler-full-batch; cyclic batches: bok-su-altschuler-cyclic)");
  if (run.adjacency != Adjacency::Replace)
    return refuse(
        "derived for replace-one adjacency (the datasets' sizes and the batch sizes agree); the run is "
        "add-remove");
  if (auto why = training_run_problem(run)) return refuse(*why);
  if (auto why = undeclared(run, {RunConstant::Smoothness})) return refuse(*why);
  if (auto why = convexity_refusal(run, "the contraction of shifted interpolation")) return refuse(*why);
  if (!(run.lambda > 0.0))
    return refuse("needs a lambda-strongly convex loss (lambda > 0); lambda = " + format_number(run.lambda));
  if (!(run.beta >= run.lambda))
    return refuse("needs the smoothness beta >= lambda; beta = " + format_number(run.beta));
  if (run.steps < 1) return refuse("needs at least one step");
  const double reference = spec.report_delta.value_or(1e-5);

  WindowSetting s;
  const double q_run =
      run.sampling == BatchSampling::Poisson ? run.sampling_rate : static_cast<double>(run.batch_size) / run.n;
  if (run.sampling == BatchSampling::PerStep) {
    s.steps = run.steps;
    s.q = std::min(1.0, up(q_run, 4.0 * u));
    s.size_bins = {{1.0, s.q}};
    s.one_minus_c = gradient_map_one_minus_contraction(run.eta, run.lambda, run.beta);
    s.m = up(noise_units::one_step_gdp_mu(run.sigma, run.eta, run.sensitivity, run.normaliser()), 16.0 * u);
    if (!(s.one_minus_c > 1e-12))
      return refuse("needs a contractive gradient map, 0 < eta < 2/beta; eta beta = " +
                    format_number(run.eta * run.beta));
  } else {
    auto setting = poisson_window_setting(run, 1e-3 * reference);
    if (auto* why = std::get_if<std::string>(&setting)) return refuse(*why);
    s = std::get<WindowSetting>(setting);
  }

  r.applies = true;
  r.amplified_by_sampling = true;
  // R: the Rényi divergence of the plain composition of the same step pairs (valid, every iterate
  // released); the window bound itself is evaluated as a privacy profile.
  for (double alpha : run.orders)
    r.R.push_back(static_cast<double>(run.steps) * pld::shared_component_gaussian_rdp(q_run, s.m, alpha));

  struct State {
    WindowSetting setting;
    pld::AccountantOptions options;
    StepPairCache step_pairs;
    std::mutex mutex;
    std::map<double, std::pair<WindowChoice, std::shared_ptr<pld::PldAccountant>>> by_delta;
    std::pair<WindowChoice, std::shared_ptr<pld::PldAccountant>> at(double delta) {
      std::lock_guard lock(mutex);
      auto it = by_delta.find(delta);
      if (it != by_delta.end()) return it->second;
      const WindowChoice c = choose_window(setting, delta, &step_pairs);
      auto acc = std::make_shared<pld::PldAccountant>(
          std::vector<pld::Direction>{window_bound_pairs(setting, c, 8192, &step_pairs)}, options);
      return by_delta.emplace(delta, std::make_pair(c, acc)).first->second;
    }
  };
  auto state = std::make_shared<State>();
  state->setting = s;
  state->options.accuracy = spec.pld.accuracy;
  state->options.grid = spec.pld.grid.value_or(0.0);

  // chosen once: the profile at the reference delta (the reported epsilon) asks for the same choice
  const WindowChoice chosen = state->at(reference).first;
  r.reason = "window K = " + std::to_string(chosen.window) + " of " + std::to_string(s.steps) + " steps";
  if (chosen.window < s.steps) r.reason += ", noise split rho = " + format_number(chosen.rho);
  r.reason += " (chosen at delta = " + format_number(reference) + "), c = " + format_number(1.0 - s.one_minus_c) +
              ", q = " + format_number(s.q) + ", mu = " + format_number(s.m);
  if (run.sampling == BatchSampling::Poisson)
    r.reason += "; Poisson: batch sizes in [" + std::to_string(s.k_lo) + ", " + std::to_string(s.k_hi) +
                "] but with probability " + format_number(s.failure) + " (added to delta)";
  r.reason += "; R is the composition's";

  r.fdp_route = "pld";
  r.fdp_epsilon = [state](double delta) {
    const double failure = state->setting.failure;
    if (!(delta > failure)) return kInf;
    try {
      return state->at(delta).second->epsilon(delta - failure).upper;
    } catch (const std::length_error&) {
      return kInf;
    }
  };
  r.fdp_grid = [state](double delta) {
    const double failure = state->setting.failure;
    return state->at(delta).second->grid(std::max(delta - failure, 0.5 * delta));
  };
  if (s.failure == 0.0)  // fixed-size batches: the accountant's profile is the bound's (Poisson adds P(E^c))
    r.fdp_curves = [state, reference]() {
      return state->at(reference).second->curves(reference, std::min(reference, 1e-10) * 1e-2);
    };
  r.fdp_delta = [state, reference](double epsilon) {
    const double failure = state->setting.failure;
    const double d = state->at(reference).second->delta(epsilon, reference - failure).upper + failure;
    return std::min(1.0, up(d, 4.0 * u));
  };
  return r;
}

}  // namespace rdpdyn

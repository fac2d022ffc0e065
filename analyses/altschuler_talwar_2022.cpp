#include "analyses/altschuler_talwar_2022.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>

#include "analyses/composition.hpp"
#include "models/noise_units.hpp"
#include "accounting/sampled_gaussian.hpp"
#include "numerics/numerical_failure.hpp"
#include "numerics/spec_error.hpp"

namespace rdpdyn {
namespace altschuler_talwar {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Integers next to the real minimiser kc of a convex function of k, clipped to [lo, hi].
std::pair<double, double> integer_candidates(double kc, double lo, double hi) {
  const double c = std::isfinite(kc) ? kc : hi;
  const double f = std::clamp(std::floor(c), lo, hi), g = std::clamp(std::ceil(c), lo, hi);
  return {f, g};
}

// The split bound shared by (B.2) and (B.3): for sigma1 in (0, sigma), with Q = S_alpha(q,
// b sigma2/shift) and A = alpha D^2 / (2 eta^2 sigma1^2),
//   value(sigma1) = Q + min_{k in 1..T-1} (k Q + pabi(A, k)),
// minimised over sigma1 by a grid and a golden-section refinement around the best grid point.
// `pabi(A, k)` is the PABI term for window k (convex in k) and `window(Q, A)` its real minimiser.
SplitBound split_bound(const Setting& st, double alpha, const std::function<double(double, double)>& pabi,
                       const std::function<double(double, double)>& window) {
  const double q = st.batch / st.n;
  const double T = static_cast<double>(st.steps);
  SplitBound best;
  if (st.steps == 0) return best;  // the output is the common initial point
  // tau = 0 branch (the first term of (B.2)): the CNIs coincide, (2) = 0, no split needed.
  best.value = T * sampled_gaussian_rdp_upper(q, st.batch * st.sigma / st.shift, alpha);
  best.linear = true;
  if (st.steps < 2) return best;

  struct Eval {
    double value;
    double k;
  };
  auto inner = [&](double s1) -> Eval {
    const double s2 = std::sqrt((st.sigma - s1) * (st.sigma + s1));
    double Q;
    try {
      Q = sampled_gaussian_rdp_upper(q, st.batch * s2 / st.shift, alpha);
    } catch (const NumericalFailure&) {
      return Eval{kInf, 1.0};  // a split whose S_alpha cannot be evaluated is simply not a candidate
    }
    const double A = alpha * st.diameter * st.diameter / (2.0 * st.eta * st.eta * s1 * s1);
    // k in {floor kc, ceil kc, 1, T-1}, clipped to [1, T-1] (App. B.2/B.3 round kc; [FIX] the
    // cap is T-1, not T).
    const auto [k1, k2] = integer_candidates(window(Q, A), 1.0, T - 1.0);
    Eval e{kInf, 1.0};
    for (double k : {k1, k2, 1.0, T - 1.0}) {
      const double v = Q + k * Q + pabi(A, k);
      if (v < e.value) e = Eval{v, k};
    }
    return e;
  };
  double best_split = kInf, best_s1 = 0.0, best_k = 0.0;
  auto consider = [&](double s1) {
    const Eval e = inner(s1);
    if (e.value < best_split) {
      best_split = e.value;
      best_s1 = s1;
      best_k = e.k;
    }
    return e.value;
  };
  constexpr int kGrid = 200;
  int best_i = 1;
  for (int i = 1; i <= kGrid; ++i) {
    const double before = best_split;
    consider(st.sigma * i / (kGrid + 1.0));
    if (best_split < before) best_i = i;
  }
  // Golden-section search on the grid cell pair around the best grid point.
  double lo = st.sigma * (best_i - 1) / (kGrid + 1.0), hi = st.sigma * (best_i + 1) / (kGrid + 1.0);
  const double r = (std::sqrt(5.0) - 1.0) / 2.0;
  double x1 = hi - r * (hi - lo), x2 = lo + r * (hi - lo);
  double f1 = consider(x1), f2 = consider(x2);
  for (int it = 0; it < 80 && hi - lo > 1e-12 * st.sigma; ++it) {
    if (f1 <= f2) {
      hi = x2;
      x2 = x1;
      f2 = f1;
      x1 = hi - r * (hi - lo);
      f1 = consider(x1);
    } else {
      lo = x1;
      x1 = x2;
      f1 = f2;
      x2 = lo + r * (hi - lo);
      f2 = consider(x2);
    }
  }
  if (best_split < best.value) {
    best.value = best_split;
    best.linear = false;
    best.sigma1 = best_s1;
    best.window = static_cast<std::int64_t>(best_k);
  }
  return best;
}

}  // namespace

Setting setting_of(const TrainingRun& run) {
  Setting st;
  st.sigma = noise_units::at_sigma_from_c21(run.sigma, run.eta);
  st.eta = run.eta;
  st.shift = run.sensitivity;  // A&T 2L (replace) / L (remove, Remark B.2) <-> S_g (docs/math.md 1.2)
  st.diameter = run.diameter.value_or(0.0);
  st.n = run.n;
  st.batch = run.sampling == BatchSampling::FullBatch ? run.n : static_cast<double>(run.batch_size);
  st.steps = run.steps;
  return st;
}

double contraction_factor(double eta, double m, double M) {
  // I - eta grad f = (1 - eta m) I - eta grad h with h = f - m|.|^2/2 convex, (M-m)-smooth; by
  // co-coercivity its Lipschitz constant is max(|1 - eta m|, |1 - eta M|) for every eta >= 0.
  return std::max(std::fabs(1.0 - eta * m), std::fabs(1.0 - eta * M));
}

double bound_b1(const Setting& st, double alpha) {
  // (B.1), App. B.1: first term original PABI (Prop 2.17, s_t = a_t = s); second Prop 3.2 with
  // tau = T - k, s_t = s, a_t = Dt/k + s (App. B.1), Dt = D + s (Obs. 5.7 with b = n).
  if (st.steps == 0) return 0.0;
  const double T = static_cast<double>(st.steps);
  const double s = st.eta * st.shift / st.n;
  const double Dt = st.diameter + s;
  double best = T * s * s;
  // k (Dt/k + s)^2 = Dt^2/k + 2 Dt s + k s^2 is convex in k with real minimiser Dt/s (App. B.1,
  // "Numerical computation"); candidates: floor, ceil, 1 and T.
  const auto [k1, k2] = integer_candidates(Dt / s, 1.0, T);
  for (double k : {k1, k2, 1.0, T}) best = std::min(best, k * (Dt / k + s) * (Dt / k + s));
  return alpha / (2.0 * st.eta * st.eta * st.sigma * st.sigma) * best;
}

SplitBound bound_b2(const Setting& st, double alpha) {
  // (B.2), App. B.2: the PABI term of (3.6), alpha D^2 / (2 eta^2 sigma1^2 k) = A / k, minimiser of
  // k Q + A/k at sqrt(A/Q) (App. B.2, "Numerical computation").
  return split_bound(
      st, alpha, [](double A, double k) { return A / k; }, [](double Q, double A) { return std::sqrt(A / Q); });
}

double sc_window(double Q, double A, double c) {
  // d/dk [k Q + A (1-c^2)/(c^{-2k} - 1)] = 0 with x = c^{-2k}: Q (x - 1)^2 = 2 A (1-c^2)|log c| x,
  // i.e. x^2 - (2 + g) x + 1 = 0 (App. B.3 with beta = -g; [FIX] (1 - c^2), docs/analyses.md 3.3).
  const double lc = -std::log(c);
  const double g = 2.0 * A * (1.0 - c * c) * lc / Q;
  const double x_minus_1 = (g + std::sqrt(g * (g + 4.0))) / 2.0;  // larger root minus 1, stable
  return std::log1p(x_minus_1) / (2.0 * lc);
}

SplitBound bound_b3(const Setting& st, double alpha, double c) {
  // (B.3), App. B.3: the PABI term with optimised a_t (footnote 11):
  // A (1 - c^2) / (c^{-2k} - 1) = A (1 - c^2) c^{2k} / (1 - c^{2k}) (no overflow).
  if (c == 0.0)  // one step contracts any distance to 0: the PABI term vanishes for k >= 1
    return split_bound(
        st, alpha, [](double, double) { return 0.0; }, [](double, double) { return 1.0; });
  const double lc = std::log(c);
  return split_bound(
      st, alpha,
      [c, lc](double A, double k) { return A * (1.0 - c * c) * std::exp(2.0 * k * lc) / -std::expm1(2.0 * k * lc); },
      [c](double Q, double A) { return sc_window(Q, A, c); });
}

double thm56_window(const Setting& st, double alpha, std::int64_t j, std::int64_t window, double z0) {
  const std::int64_t N = static_cast<std::int64_t>(st.n / st.batch);
  if (!(N >= 1 && j >= 1 && j <= N && window >= N && window % N == 0 && z0 >= 0.0))
    throw std::invalid_argument("thm56_window: needs 1 <= j <= n/b and a window of whole epochs");
  // A&T Sec. 5.2, proof of Thm 5.6: a_t = x for the j-1 batches before the record's first use,
  // x + 2 eta L/n for the next W - n/b steps, x + 2 eta L/(b (n/b - j + 1)) until T; (5.6):
  // D_alpha <= alpha/(2 eta^2 sigma^2) sum a_t^2. (2 eta L = eta shift.)
  const double u = st.eta * st.shift / st.batch, s = st.eta * st.shift / st.n;
  const double x = z0 / static_cast<double>(window);
  const double tail = static_cast<double>(N - j + 1);
  const double sum = static_cast<double>(j - 1) * x * x + static_cast<double>(window - N) * (x + s) * (x + s) +
                     tail * (x + u / tail) * (x + u / tail);
  return alpha / (2.0 * st.eta * st.eta * st.sigma * st.sigma) * sum;
}

CyclicBound bound_thm56(const Setting& st, double alpha) {
  const std::int64_t N = static_cast<std::int64_t>(st.n / st.batch);
  // The record in the last batch is the worst: (j-1) x^2 + m (x + u/m)^2 = N x^2 + 2 x u + u^2/m
  // with m = N - j + 1 is largest at m = 1.
  CyclicBound out;
  if (st.steps == 0) return out;  // no step: both runs are at the same point
  out.window = st.steps;
  out.value = thm56_window(st, alpha, N, st.steps, 0.0);
  // Thm 5.6: T-bar = ceil(D n / (L eta)); the proof takes n/b | T-bar, here rounded up.
  const double L = st.shift / 2.0;
  const double tbar = std::ceil(st.diameter * st.n / (L * st.eta));
  if (std::isfinite(tbar) && tbar < static_cast<double>(st.steps)) {
    const std::int64_t W = ((static_cast<std::int64_t>(tbar) + N - 1) / N) * N;
    if (W >= N && W < st.steps) {
      const double v = thm56_window(st, alpha, N, W, st.diameter + st.eta * st.shift / st.batch);
      if (v < out.value) out = {v, W, false};
    }
  }
  return out;
}

double pabi_sc_full_batch(const Setting& st, double alpha, double c) {
  // Digest 4.3 [DERIVED]: A&T Prop. 5.4 with tau = 0, z_0 = 0 (same start), s_t = s; z_T = 0 means
  // sum_t c^{T-t} a_t = s (1 - c^T)/(1 - c); min sum a_t^2 (Cauchy-Schwarz, a_t ~ c^{T-t}) is
  // s^2 (1 - c^T)^2/(1 - c)^2 (1 - c^2)/(1 - c^{2T}) = s^2 (1+c)(1-c^T)/((1-c)(1+c^T)).
  if (st.steps == 0) return 0.0;
  const double s = st.eta * st.shift / st.n;
  const double one_step = alpha * s * s / (2.0 * st.eta * st.eta * st.sigma * st.sigma);
  const double cT = c == 0.0 ? 0.0 : std::exp(static_cast<double>(st.steps) * std::log(c));
  const double one_minus_cT = c == 0.0 ? 1.0 : -std::expm1(static_cast<double>(st.steps) * std::log(c));
  return one_step * (1.0 + c) * one_minus_cT / ((1.0 - c) * (1.0 + cT));
}

}  // namespace altschuler_talwar

namespace {

namespace at = altschuler_talwar;

AnalysisResult refused(const std::string& name, const std::string& citation, std::string reason) {
  AnalysisResult r;
  r.name = name;
  r.citation = citation;
  r.reason = std::move(reason);
  return r;
}

std::optional<std::string> diameter_problem(const TrainingRun& run, const std::string& bound) {
  if (!run.diameter)
    return "no diameter D: " + bound + " needs projection onto a convex set of finite diameter D (A&T Thm 3.1, L323)";
  if (!(*run.diameter > 0.0) || !std::isfinite(*run.diameter))
    return "diameter D = " + format_number(*run.diameter) + " must be positive and finite";
  return std::nullopt;
}

// Convex loss and eta <= 2/beta: the gradient step is a contraction (A&T Lemma 2.1).
std::optional<std::string> convex_smooth_problem(const TrainingRun& run) {
  if (auto why = convexity_refusal(run, "A&T's contraction, Lemma 2.1")) return why;
  if (!(run.lambda >= 0.0))
    return "lambda = " + format_number(run.lambda) + " < 0: A&T need convex losses (L101, Lemma 2.1)";
  if (!(run.beta > 0.0) || !std::isfinite(run.beta))
    return "smoothness beta unknown (beta = " + format_number(run.beta) +
           "): A&T need eta <= 2/beta so that the gradient step is a contraction (Lemma 2.1, L209)";
  if (run.eta > 2.0 / run.beta)
    return "eta = " + format_number(run.eta) + " > 2/beta = " + format_number(2.0 / run.beta) +
           ": the gradient step is not a contraction (A&T Lemma 2.1, L209)";
  return std::nullopt;
}

// lambda > 0, lambda <= beta and c = max(|1 - eta lambda|, |1 - eta beta|) < 1 (eta < 2/beta).
std::optional<std::string> strongly_convex_problem(const TrainingRun& run, const std::string& bound) {
  if (auto why = convexity_refusal(run, bound + "'s contraction, A&T Lemma 5.3")) return why;
  if (!(run.lambda > 0.0))
    return "lambda = " + format_number(run.lambda) + ": " + bound +
           " needs an m-strongly convex loss (A&T Thm 5.1, L512)";
  if (!(run.beta > 0.0) || !std::isfinite(run.beta))
    return "smoothness beta unknown (beta = " + format_number(run.beta) + "): " + bound +
           " needs the contraction factor max(|1 - eta lambda|, |1 - eta beta|) < 1 (A&T Lemma 5.3)";
  if (run.lambda > run.beta)
    return "lambda = " + format_number(run.lambda) + " > beta = " + format_number(run.beta) +
           ": strong convexity cannot exceed smoothness";
  const double c = at::contraction_factor(run.eta, run.lambda, run.beta);
  if (!(c < 1.0))
    return "eta = " + format_number(run.eta) + " >= 2/beta = " + format_number(2.0 / run.beta) +
           ": contraction factor max(|1 - eta lambda|, |1 - eta beta|) = " + format_number(c) +
           " is not < 1 (A&T Lemma 5.3)";
  return std::nullopt;
}

// (B.2)/(B.3) sampling: uniformly random size-b batches drawn afresh every step (A&T Sec. 1.2,
// eq. (3.1)), or the full batch (b = n, q = 1); remove adjacency only without subsampling.
std::optional<std::string> sgd_sampling_problem(const TrainingRun& run, const std::string& bound) {
  if (run.sampling != BatchSampling::FullBatch && run.sampling != BatchSampling::PerStep)
    return std::string("sampling = ") + batch_sampling_name(run.sampling) + ": " + bound +
           " assumes a uniformly random batch of size b drawn afresh at every step (A&T L103, "
           "eq. (3.1); sampling = per-step)";
  if (run.adjacency == Adjacency::Remove && run.sampling == BatchSampling::PerStep &&
      static_cast<double>(run.batch_size) < run.n)
    return "adjacency = add-remove with fixed-size batches (b = " + std::to_string(run.batch_size) +
           " < n): A&T Remark B.2 (2L -> L) does not cover it, the removed record's batch slot is "
           "refilled by another record; describe the run with replace adjacency";
  return std::nullopt;
}

AnalysisResult applied(const std::string& name, const std::string& citation, std::string note) {
  AnalysisResult r;
  r.name = name;
  r.citation = citation;
  r.applies = true;
  r.reason = std::move(note);
  return r;
}

const char* kUnits =
    "; sigma_AT = sigma sqrt(2/eta) (docs/math.md 1.4), A&T's 2L (replace) / L (remove, Remark B.2) = S_g";

}  // namespace

AnalysisResult altschuler_talwar_b1(const TrainingRun& run) {
  const std::string name = "altschuler-talwar-b1";
  const std::string citation = std::string(
                                   "Altschuler & Talwar 2022, (B.1) (App. B.1, L756-766; Prop. 2.17 and 3.2 with "
                                   "s_t = 2 eta L/n), projected full-batch noisy GD, convex, eta <= 2/M") +
                               kUnits;
  if (auto p = training_run_problem(run)) return refused(name, citation, *p);
  if (run.sampling != BatchSampling::FullBatch)
    return refused(name, citation,
                   std::string("sampling = ") + batch_sampling_name(run.sampling) +
                       ": (B.1) is the full-batch bound (b = n, A&T App. B.1); see altschuler-talwar-b2");
  if (auto p = diameter_problem(run, "(B.1)")) return refused(name, citation, *p);
  if (auto p = convex_smooth_problem(run)) return refused(name, citation, *p);
  const auto st = at::setting_of(run);
  const double s = st.eta * st.shift / st.n;
  auto r = applied(name, citation,
                   "sigma_AT = " + format_number(st.sigma) + ", s = eta S_g/n = " + format_number(s) +
                       ", plateau once steps >= (D + s)/s = " + format_number((st.diameter + s) / s));
  for (double alpha : run.orders) r.R.push_back(at::bound_b1(st, alpha));
  return r;
}

AnalysisResult altschuler_talwar_thm56(const TrainingRun& run) {
  const std::string name = "altschuler-talwar-thm5.6";
  const std::string citation =
      std::string(
          "Altschuler & Talwar 2022, Thm 5.6 (Sec. 5.2, Noisy-CSGD), its proof's (5.6) with the printed "
          "a_t, worst batch, min over the windows T and T-bar = ceil(D n/(L eta)); convex, eta <= 2/M") +
      kUnits;
  if (auto p = training_run_problem(run)) return refused(name, citation, *p);
  if (run.sampling != BatchSampling::Partition && run.sampling != BatchSampling::ShuffleOnce)
    return refused(name, citation,
                   std::string("sampling = ") + batch_sampling_name(run.sampling) +
                       ": Thm 5.6 is for cyclic batches in a fixed order (sampling = partition, or shuffle-once "
                       "given its draw)");
  if (run.adjacency != Adjacency::Replace)
    return refused(name, citation,
                   "adjacency = add-remove: Thm 5.6's proof compares datasets that agree on all but one "
                   "index (replace adjacency)");
  const auto N = run.batches_per_epoch();
  if (run.batch_size < 1 || N * run.batch_size != static_cast<std::int64_t>(run.n) ||
      static_cast<double>(static_cast<std::int64_t>(run.n)) != run.n)
    return refused(name, citation,
                   "needs b to divide n (the proof's simplifying assumption); n = " + format_number(run.n) +
                       ", b = " + std::to_string(run.batch_size));
  if (run.steps % N != 0)
    return refused(name, citation,
                   "needs whole epochs (the proof takes n/b | T): steps = " + std::to_string(run.steps) +
                       " is not a multiple of n/b = " + std::to_string(N));
  if (!run.diameter || !(*run.diameter > 0.0) || !std::isfinite(*run.diameter))
    return refused(name, citation,
                   "needs projection onto a convex set of finite diameter D > 0 (A&T Thm 5.6, K of diameter D); the "
                   "run declares " +
                       (run.diameter ? "D = " + format_number(*run.diameter) : std::string("none")));
  if (auto p = convex_smooth_problem(run)) return refused(name, citation, *p);
  const auto st = at::setting_of(run);
  // Both windows are linear in alpha, so the one attaining the minimum is the same at every order.
  const at::CyclicBound at2 = at::bound_thm56(st, 2.0);
  const std::string note = at2.whole_run
                               ? "window = the whole run (tau = 0)"
                               : "window T-bar = " + std::to_string(at2.window) + " steps from D~ = D + eta S_g/b";
  auto r =
      applied(name, citation, "n/b = " + std::to_string(N) + ", sigma_AT = " + format_number(st.sigma) + "; " + note);
  for (double alpha : run.orders) r.R.push_back(at::bound_thm56(st, alpha).value);
  return r;
}

/// The checks (B.2) and (B.3) share: a valid run, fresh batches, a diameter, and for b < n the
/// declared norm bound that amplification by sampling needs.
static std::optional<std::string> sampled_bound_problem(const TrainingRun& run, const char* bound) {
  if (auto p = training_run_problem(run)) return p;
  if (auto p = sgd_sampling_problem(run, bound)) return p;
  if (auto p = diameter_problem(run, bound)) return p;
  if (run.batch_size < static_cast<std::int64_t>(run.n)) return sampling_amplification_problem(run);
  return std::nullopt;
}

AnalysisResult altschuler_talwar_b2(const TrainingRun& run) {
  const std::string name = "altschuler-talwar-b2";
  const std::string citation = std::string(
                                   "Altschuler & Talwar 2022, (B.2) (App. B.2, L768-778; (3.7) with the noise "
                                   "split optimised), projected noisy SGD with fresh uniform batches, convex, "
                                   "eta <= 2/M; S_alpha = MTZ19 A_alpha >= A&T Def. 2.10; b < n needs per-record "
                                   "gradient norms <= S_g/2 (A&T's L-Lipschitz, [domain] lipschitz_loss)") +
                               kUnits;
  if (auto p = sampled_bound_problem(run, "(B.2)")) return refused(name, citation, *p);
  if (auto p = convex_smooth_problem(run)) return refused(name, citation, *p);
  const auto st = at::setting_of(run);
  auto r = applied(name, citation,
                   "q = b/n = " + format_number(st.batch / st.n) + ", sigma_AT = " + format_number(st.sigma));
  r.amplified_by_sampling = st.batch < st.n;
  try {
    for (double alpha : run.orders) r.R.push_back(at::bound_b2(st, alpha).value);
  } catch (const NumericalFailure& e) {
    return refused(name, citation, std::string("numerical evaluation failed: ") + e.what());
  }
  return r;
}

AnalysisResult altschuler_talwar_b3(const TrainingRun& run) {
  const std::string name = "altschuler-talwar-b3";
  const std::string citation = std::string(
                                   "Altschuler & Talwar 2022, (B.3) (App. B.3, L780-794; Prop. 5.4 with the a_t of "
                                   "footnote 11), strongly convex; c = max(|1 - eta m|, |1 - eta M|) (= (kappa-1)/"
                                   "(kappa+1) at eta = 2/(M+m), Lemma 5.3); window from L790 with (1 - c^2) "
                                   "([FIX], docs/analyses.md 3.3); b < n needs per-record gradient norms <= S_g/2 "
                                   "([domain] lipschitz_loss)") +
                               kUnits;
  if (auto p = sampled_bound_problem(run, "(B.3)")) return refused(name, citation, *p);
  if (auto p = strongly_convex_problem(run, "(B.3)")) return refused(name, citation, *p);
  const auto st = at::setting_of(run);
  const double c = at::contraction_factor(run.eta, run.lambda, run.beta);
  auto r = applied(name, citation,
                   "q = b/n = " + format_number(st.batch / st.n) + ", sigma_AT = " + format_number(st.sigma) +
                       ", c = " + format_number(c));
  r.amplified_by_sampling = st.batch < st.n;
  try {
    for (double alpha : run.orders) r.R.push_back(at::bound_b3(st, alpha, c).value);
  } catch (const NumericalFailure& e) {
    return refused(name, citation, std::string("numerical evaluation failed: ") + e.what());
  }
  return r;
}

AnalysisResult pabi_strongly_convex(const TrainingRun& run) {
  const std::string name = "pabi-strongly-convex";
  const std::string citation = std::string(
                                   "[DERIVED] (docs/analyses.md, pabi-strongly-convex) from Altschuler & Talwar 2022 "
                                   "Prop. 5.4 (tau = 0, "
                                   "z_0 = 0, s_t = 2 eta L/n, a_t ~ c^{T-t}): alpha (2 eta L/n)^2/(2 eta^2 sigma^2) "
                                   "(1+c)(1-c^T)/((1-c)(1+c^T)), c = max(|1 - eta m|, |1 - eta M|); full batch") +
                               kUnits;
  if (auto p = training_run_problem(run)) return refused(name, citation, *p);
  if (run.sampling != BatchSampling::FullBatch)
    return refused(name, citation,
                   std::string("sampling = ") + batch_sampling_name(run.sampling) +
                       ": this bound is for full-batch noisy GD (s_t = eta S_g / n at every step)");
  if (auto p = strongly_convex_problem(run, "pabi-strongly-convex")) return refused(name, citation, *p);
  const auto st = at::setting_of(run);
  const double c = at::contraction_factor(run.eta, run.lambda, run.beta);
  auto r = applied(name, citation,
                   "c = " + format_number(c) + ", sigma_AT = " + format_number(st.sigma) +
                       ", limit (1+c)/(1-c) = " + format_number((1.0 + c) / (1.0 - c)) + " one-step Gaussians");
  for (double alpha : run.orders) r.R.push_back(at::pabi_sc_full_batch(st, alpha, c));
  return r;
}

}  // namespace rdpdyn

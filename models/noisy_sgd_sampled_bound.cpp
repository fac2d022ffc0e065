#include "models/noisy_sgd_sampled_bound.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <stdexcept>

#include "accounting/gaussian_dp.hpp"
#include "models/amplification_by_iteration.hpp"
#include "models/privacy_model.hpp"
#include "numerics/format_number.hpp"
#include "numerics/outward_rounding.hpp"
#include "solver/interval_flow.hpp"

namespace rdpdyn {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
/// Beyond this many placements the shuffle-once f-DP route uses the worst placement's profile (valid
/// for every draw) instead of averaging the profiles (each epsilon evaluates all of them ~80 times).
constexpr std::size_t kGdpMixtureMaxPlacements = std::size_t{1} << 16;

/// One step of the run in the linear picture: u (= R / alpha) and the inverse LSI constant A of the
/// iterate law carried over it, with the record in the step's batch or not.
class LinearStep {
 public:
  explicit LinearStep(const ProgramStep& holding)
      : before_(holding.before), after_(holding.after), free_(holding.diffusion), held_(holding.diffusion) {
    free_.sensitivity = 0.0;
    for (const StepEvent& e : holding.before)
      std::visit(Overloaded{[&](const GaussianRelease& g) {
                              // The release of the record's batch (mean shift eta S_g / b, noise std
                              // sqrt(2 eta) sigma) is the PDI's source over the step with S_v = shift /
                              // eta: at gamma = 1 both give alpha shift^2 / (4 eta sigma^2) (YS22 eq.
                              // (70); C21 eq. (13)); other gamma can only lower it.
                              held_.sensitivity = g.sensitivity / holding.diffusion.duration;
                            },
                            [](const LipschitzMap&) {}, [](const LsiRestart&) {},
                            [](const InverseLsiCap&) {}},  // applied in advance()
                 e);
  }

  /// The step's maps on (u, A); A is the inverse LSI constant at the start (0 for a point mass).
  double advance(double u, double& A, bool holds_record) const {
    for (const StepEvent& e : before_)
      if (!is_release(e)) update_inverse_lsi(A, e);
    const DiffusionInterval& iv = holds_record ? held_ : free_;
    // The start time only matters for function schedules, which this bound does not take.
    u = optimal_gamma_flow(iv, u, A, 0.0, IntegrationTolerance{});
    A = end_inverse_lsi(iv, A, 0.0);
    for (const StepEvent& e : after_) update_inverse_lsi(A, e);
    return u;
  }

 private:
  std::vector<StepEvent> before_, after_;  // copies: the bound outlives the program
  DiffusionInterval free_;
  DiffusionInterval held_;
};

/// log(exp(a) + exp(b)).
double log_add_exp(double a, double b) {
  if (a == -kInf) return b;
  if (b == -kInf) return a;
  const double m = std::max(a, b);
  return m + std::log1p(std::exp(std::min(a, b) - m));
}

/// The run's steps by phases of identical steps (memory follows the phases, not the steps).
struct Run {
  std::vector<LinearStep> phase_steps;
  std::vector<std::int64_t> phase_ends;  ///< one past the last step of each phase
  std::int64_t total = 0;
  std::int64_t per_epoch = 1;  ///< n / b placements
  double initial_inverse_lsi = 0.0;
  double initial_slope = 0.0;  ///< u_0 = R_0 / alpha
  bool restarts = false;       ///< composition restarts allowed (Gaussian-convolution LSI throughout)
  /// Per phase, the step holding the record as a contractive noisy step (shared map's constant, the
  /// record's shift eta S_g / b, noise variance 2 eta sigma^2); empty when a constant is unknown or > 1.
  std::vector<ContractiveStep> phase_shifted;
  /// Step k, 0 <= k < total.
  const LinearStep& at(std::int64_t k) const {
    return phase_steps[std::upper_bound(phase_ends.begin(), phase_ends.end(), k) - phase_ends.begin()];
  }
};

/// u of the last iterate with the record in the steps k = position mod per_epoch: the carried bound
/// and, from each step holding the record to the next one, the restarted one; the smaller at every step.
double placement_slope(const Run& run, std::int64_t position) {
  double u = run.initial_slope, A = run.initial_inverse_lsi;
  double at_restart = 0.0, window_u = 0.0, window_A = 0.0;
  bool window = false;
  for (std::int64_t k = 0; k < run.total; ++k) {
    const bool holds = k % run.per_epoch == position;
    if (holds && run.restarts) {
      at_restart = u;  // YS22 eq. (100): release the iterate, restart from a point mass
      window_u = 0.0;
      window_A = 0.0;
      window = true;
    }
    u = run.at(k).advance(u, A, holds);
    if (window) {
      window_u = run.at(k).advance(window_u, window_A, holds);
      u = std::min(u, at_restart + window_u);
    }
  }
  return u;
}

/// The shifted-divergence energy E of one placement (models/amplification_by_iteration.hpp), or +inf
/// when the run's maps are not known contractions.
double placement_shifted_energy(const Run& run, std::int64_t position) {
  if (run.phase_shifted.empty()) return kInf;
  auto step = [&run, position](std::int64_t k) {
    const auto phase = std::upper_bound(run.phase_ends.begin(), run.phase_ends.end(), k) - run.phase_ends.begin();
    ContractiveStep s = run.phase_shifted[phase];
    if (k % run.per_epoch != position) s.shift = 0.0;
    return s;
  };
  return amplification_by_iteration_energy(run.total, step).value_or(kInf);
}

/// The Lipschitz constant of the map shared by both runs before a step's noise: the gradient map
/// (C21 Lemma 8's L as the program carries it, or max(|1 - eta lambda|, |1 - eta beta|) from the
/// declared constants), or nullopt when the run declares none.
std::optional<double> shared_map_contraction(const RunSpec& spec, const ProgramStep& step) {
  std::optional<double> L;
  for (const StepEvent& e : step.before)
    std::visit(Overloaded{[&](const LipschitzMap& m) { L = L.value_or(1.0) * m.lipschitz; },
                          [](const GaussianRelease&) {},  // the record's release: not part of the shared map
                          [](const LsiRestart&) {},       // declares c, moves no iterate
                          [](const InverseLsiCap&) {}},   // bounds c, moves no iterate
               e);
  if (L) return L;
  const double eta = step.diffusion.duration;
  switch (spec.lsi.kind) {
    case LsiKind::StronglyConvex:
      return std::max(std::abs(1.0 - eta * spec.lsi.lambda), std::abs(1.0 - eta * spec.lsi.beta));
    case LsiKind::SquaredLoss:
      return std::abs(1.0 - eta);  // lambda = beta = 1
    default:
      return std::nullopt;
  }
}

/// The epoch map of one placement for the shuffle recursion, precomputed for an epoch: the factors
/// of the steps before and after the record's step, its start LSI, and the restarted value.
struct EpochPlacement {
  bool holds = false;   ///< the record's step lies in the epoch
  double before = 1.0;  ///< product of the contraction factors before it
  double after = 1.0;   ///< ... after it
  double start_inverse_lsi = 0.0;
  std::int64_t step = 0;    ///< the record's step
  double restarted = kInf;  ///< v: the epoch's rest from a point mass (restarts only)
  double map(const Run& run, double u) const {
    if (!holds) return before * u;
    double A = start_inverse_lsi;
    const double carried = after * run.at(step).advance(before * u, A, true);
    return std::min(carried, before * u + restarted);
  }
};

std::vector<EpochPlacement> epoch_placements(const Run& run, std::int64_t begin, std::int64_t end, double& A) {
  const std::int64_t len = end - begin;
  std::vector<double> factor(len), start_A(len);
  for (std::int64_t i = 0; i < len; ++i) {
    start_A[i] = A;
    factor[i] = run.at(begin + i).advance(1.0, A, false);
  }
  std::vector<EpochPlacement> out(run.per_epoch);
  for (std::int64_t j = 0; j < run.per_epoch; ++j) {
    EpochPlacement& p = out[j];
    p.holds = j < len;
    for (std::int64_t i = 0; i < std::min(j, len); ++i) p.before *= factor[i];
    if (!p.holds) {
      for (std::int64_t i = j; i < len; ++i) p.before *= factor[i];
      continue;
    }
    for (std::int64_t i = j + 1; i < len; ++i) p.after *= factor[i];
    p.step = begin + j;
    p.start_inverse_lsi = start_A[j];
    if (run.restarts) {
      double w = 0.0, wA = 0.0;
      for (std::int64_t i = j; i < len; ++i) w = run.at(begin + i).advance(w, wA, i == j);
      p.restarted = w;
    }
  }
  return out;
}

/// Exponentiated recursion over epochs, a new partition each epoch (YS22 Thm 4.3 form), in log
/// space: l = log S, S_0 = exp(kappa u_0), S <- Avg_j g_j(S). Returns R at alpha, rounded outward.
double shuffle_recursion(const Run& run, const std::vector<std::vector<EpochPlacement>>& epochs, double alpha) {
  const double kappa = (alpha - 1.0) * alpha, log_n = std::log(static_cast<double>(run.per_epoch));
  double l = kappa * run.initial_slope;
  for (const auto& epoch : epochs) {
    double acc = -kInf;
    for (const EpochPlacement& p : epoch) acc = log_add_exp(acc, kappa * p.map(run, l / kappa));
    l = acc - log_n;
  }
  return outward::round_up(std::max(l, 0.0) / (alpha - 1.0), outward::recursion_margin(4 * run.total));
}

/// Per-step sampling (YS22 Thm 4.3's setting): the record is in a step's batch with probability p,
/// independently of the past; S <- p g(S) + (1 - p) S^rho (eqs. (148)-(150) with this tool's maps).
double per_step_recursion(const Run& run, double p, double alpha) {
  const double kappa = (alpha - 1.0) * alpha, log_p = std::log(p), log_q = std::log1p(-p);
  double l = kappa * run.initial_slope, A = run.initial_inverse_lsi;
  for (std::int64_t k = 0; k < run.total; ++k) {
    const LinearStep& step = run.at(k);
    double A_free = A, A_held = A;
    const double rho = step.advance(1.0, A_free, false);
    const double held = kappa * step.advance(l / kappa, A_held, true);
    l = p >= 1.0 ? held : log_add_exp(log_p + held, log_q + rho * l);
    A = A_free;  // the LSI sequence does not depend on the batches
  }
  return outward::round_up(std::max(l, 0.0) / (alpha - 1.0), outward::recursion_margin(4 * run.total));
}

std::string check_setting(const RunSpec& spec) {
  const auto& a = spec.algorithm;
  if (a.kind != AlgorithmKind::NoisySgd) return "needs noisy mini-batch GD";
  switch (a.sampling) {
    case BatchSampling::Partition:
    case BatchSampling::ShuffleOnce:
    case BatchSampling::Shuffle:
    case BatchSampling::PerStep:
      break;
    default:
      return std::string("sampling = \"") + batch_sampling_name(a.sampling) +
             "\": the batch size varies, so the gradient map's Lipschitz constant (hence the LSI sequence) "
             "depends on the batches";
  }
  if (!is_linear_in_alpha(spec.initial)) return "needs initial data linear in alpha (R_0 = kappa alpha or 0)";
  if (!spec.events.empty()) return "needs a run without boundary events";
  return "";
}

}  // namespace

std::variant<SampledBound, std::string> noisy_sgd_sampled_bound(const RunSpec& spec, std::span<const double> orders) {
  if (auto why = check_setting(spec); !why.empty()) return why;
  const PrivacyProgram program = build_noisy_sgd_program(spec, std::nullopt);  // every step holds the record
  const std::int64_t total = program.step_count();
  Run run;
  run.per_epoch = spec.algorithm.sampling == BatchSampling::PerStep
                      ? 1
                      : static_cast<std::int64_t>(spec.algorithm.n) / spec.algorithm.batch_size;
  // Work limits (each a few seconds at most): placements x steps for the per-placement bounds; steps
  // for the recursions, which run once per order (the epoch maps of `shuffle` are kept: one per step).
  const auto sampling = spec.algorithm.sampling;
  const bool per_placement = sampling == BatchSampling::Partition || sampling == BatchSampling::ShuffleOnce;
  const double work = per_placement
                          ? static_cast<double>(run.per_epoch) * static_cast<double>(total)
                          : static_cast<double>(total) * kSampledBoundMaxWork / kSampledBoundMaxRecursionSteps;
  if (work > kSampledBoundMaxWork)
    return "the run is too long for this bound (" +
           (per_placement ? std::to_string(run.per_epoch) + " placements x " : std::string()) + std::to_string(total) +
           " steps; limits: placements x steps <= 2^28, steps <= 2^20 for the recursions)";
  run.restarts = true;
  for (const ProgramPhase& phase : program.phases()) {
    const ProgramStep& s = phase.step;
    if (s.gamma.is_field()) return "gamma depends on the order";
    if (!lsi_has_closed_form(s.diffusion.lsi))
      return "needs the Gaussian-convolution LSI recursion or a constant LSI (a function schedule is evaluated "
             "by the engines only)";
    // A restart runs from a point mass, whose LSI only the Gaussian-convolution recursion follows.
    if (!starts_from_point_mass(s.diffusion.lsi, kPointMassInverseLsi)) run.restarts = false;
  }
  for (std::size_t i = 0; i < program.phases().size(); ++i) {
    run.phase_steps.emplace_back(program.phases()[i].step);
    run.phase_ends.push_back(program.phase_begin(i) + program.phases()[i].count);
  }
  // Shifted divergences need every step's map to be a known contraction (A&T Lemma 5.5, c <= 1).
  for (const ProgramPhase& phase : program.phases()) {
    const std::optional<double> c = shared_map_contraction(spec, phase.step);
    const auto release = std::find_if(phase.step.before.begin(), phase.step.before.end(), is_release);
    if (!c || !(*c <= 1.0) || release == phase.step.before.end() || !phase.step.after.empty()) {
      run.phase_shifted.clear();
      break;
    }
    const auto& g = std::get<GaussianRelease>(*release);
    const double eta = phase.step.diffusion.duration, sigma = phase.step.diffusion.sigma;
    run.phase_shifted.push_back({*c, g.sensitivity, 2.0 * eta * sigma * sigma});  // N(0, 2 eta sigma^2 I)
  }
  run.total = total;
  run.initial_inverse_lsi = program.initial_inverse_lsi;
  run.initial_slope = linear_initial_slope(spec.initial);

  auto shared = std::make_shared<const Run>(std::move(run));
  const std::string restarts = shared->restarts ? ", composition restarts at the record's steps (YS22 eq. (100))" : "";
  SampledBound out;
  std::string restarts_and_shifts = restarts;
  if (sampling == BatchSampling::Partition || sampling == BatchSampling::ShuffleOnce) {
    std::vector<double> u(shared->per_epoch);
    const double margin = outward::recursion_margin(2 * total);
    std::vector<double> mus;  // sqrt(E_j), while every placement has one
    std::int64_t shifted_smaller = 0;
    for (std::int64_t j = 0; j < shared->per_epoch; ++j) {
      const double lsi = outward::round_up(placement_slope(*shared, j), margin);
      const double energy = placement_shifted_energy(*shared, j);
      const double shifted = std::isfinite(energy)
                                 ? outward::round_up(shared->initial_slope + energy / 2.0, outward::recursion_margin(0))
                                 : kInf;
      u[j] = std::min(lsi, shifted);
      shifted_smaller += shifted < lsi;
      if (std::isfinite(energy)) mus.push_back(outward::round_up(std::sqrt(energy), outward::recursion_margin(0)));
    }
    if (!shared->phase_shifted.empty())
      restarts_and_shifts += "; shifted Renyi divergences (A&T 2022 Prop. 2.17, Lemma 5.5) smaller at " +
                             std::to_string(shifted_smaller) + " of " + std::to_string(u.size()) + " placements";
    // Gaussian-DP needs a common start (no initial divergence) and a shifted bound at every placement.
    if (mus.size() == u.size() && shared->initial_slope == 0.0 && !mus.empty()) {
      const double worst = *std::max_element(mus.begin(), mus.end());
      out.worst_mu = worst;
      if (sampling == BatchSampling::Partition || mus.size() > kGdpMixtureMaxPlacements) {
        out.fdp_epsilon = [worst](double delta) { return gdp_epsilon(worst, delta); };
        out.fdp_route = "gdp";
      } else {
        out.fdp_epsilon = [mus](double delta) { return gdp_mixture_epsilon(mus, delta); };
        out.fdp_route = "gdp-mixture";
      }
    }
    if (sampling == BatchSampling::Partition) {
      const double worst = *std::max_element(u.begin(), u.end());
      out.slope = worst;
      out.at_order = [worst](double alpha) { return outward::round_up(alpha * worst, outward::recursion_margin(0)); };
      out.method =
          "worst of the " + std::to_string(u.size()) + " placements, each linear in alpha" + restarts_and_shifts;
    } else {
      out.at_order = [u](double alpha) {
        // YS22 Lemma 4.1, eq. (133), with weights 1/(n/b): a record in no batch (n not a multiple of b)
        // has a bound below every placement's, so the uniform average is not below the true mixture.
        const double kappa = (alpha - 1.0) * alpha;
        double acc = -kInf;
        for (double uj : u) acc = log_add_exp(acc, kappa * uj);
        const double r = (acc - std::log(static_cast<double>(u.size()))) / (alpha - 1.0);
        return outward::round_up(std::max(r, 0.0), outward::recursion_margin(static_cast<std::int64_t>(u.size()) + 16));
      };
      out.method = "YS22 Lemma 4.1 (133) over the " + std::to_string(u.size()) + " placements" + restarts_and_shifts;
    }
  } else if (sampling == BatchSampling::Shuffle) {
    auto epochs = std::make_shared<std::vector<std::vector<EpochPlacement>>>();
    double A = shared->initial_inverse_lsi;
    for (std::int64_t begin = 0; begin < total; begin += shared->per_epoch)
      epochs->push_back(epoch_placements(*shared, begin, std::min(total, begin + shared->per_epoch), A));
    out.at_order = [shared, epochs](double alpha) { return shuffle_recursion(*shared, *epochs, alpha); };
    out.method = "exponentiated recursion over epochs (YS22 Thm 4.3 form, a new partition each epoch)" + restarts;
  } else {
    const double p = static_cast<double>(spec.algorithm.batch_size) / spec.algorithm.n;
    out.at_order = [shared, p](double alpha) { return per_step_recursion(*shared, p, alpha); };
    out.method = "exponentiated recursion per step (YS22 Thm 4.3 form, p = b/n)";
  }
  for (double alpha : orders) out.R.push_back(out.at_order(alpha));
  return out;
}

}  // namespace rdpdyn

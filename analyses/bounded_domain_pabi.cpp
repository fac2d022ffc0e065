#include "analyses/bounded_domain_pabi.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "models/gradient_map.hpp"
#include "models/noise_units.hpp"
#include "numerics/format_number.hpp"

namespace rdpdyn {
namespace bounded_domain_pabi {
namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
}  // namespace

double minimal_absorption_cost(double start_shift, std::span<const double> deltas, double lipschitz) {
  const std::size_t k = deltas.size();
  if (k == 0) return start_shift == 0.0 ? 0.0 : kInf;
  const double log_l = std::log(lipschitz);
  if (std::abs(2.0 * static_cast<double>(k) * log_l) > 690.0) return kInf;
  // Scaled variables: c_j = a_j / L^{j+1}, d_j = delta_j / L^{j+1}, weight w_j = L^{2(j+1)}. Then
  // sum_{i<j} c_i <= U_j = z_0 + sum_{i<j} d_i (z_j >= 0), with equality at j = k, and the cost is
  // sum_j w_j c_j^2. On the axis tau_j = sum_{i<j} 1/w_i the cumulative absorption is a path from
  // (0, 0) to (tau_k, U_k) under the points (tau_j, U_j); its cost is sum (dU)^2 / dtau, least for
  // the lower convex hull of the points.
  std::vector<double> tau(k + 1), ceiling(k + 1);
  tau[0] = 0.0;
  ceiling[0] = 0.0;
  double U = start_shift;
  for (std::size_t j = 0; j < k; ++j) {
    const double scale = std::exp(static_cast<double>(j + 1) * log_l);  // L^{j+1}
    U += deltas[j] / scale;
    tau[j + 1] = tau[j] + 1.0 / (scale * scale);
    ceiling[j + 1] = U;
  }
  // Lower convex hull from (0, 0) to the last point (monotone chain on increasing tau).
  std::vector<std::size_t> hull{0};
  for (std::size_t j = 1; j <= k; ++j) {
    while (hull.size() >= 2) {
      const std::size_t a = hull[hull.size() - 2], b = hull.back();
      // b lies on or above the chord from a to j: not a vertex of the lower hull.
      const double cross =
          (tau[b] - tau[a]) * (ceiling[j] - ceiling[a]) - (ceiling[b] - ceiling[a]) * (tau[j] - tau[a]);
      if (cross <= 0.0)
        hull.pop_back();
      else
        break;
    }
    hull.push_back(j);
  }
  // The hull's absorptions: on a segment of slope theta (in c per unit tau), c_j = theta / w_j, so
  // a_j = L^{j+1} c_j = theta / L^{j+1}. Over long windows with L > 1 the scaled sums lose the late
  // releases to rounding (below an ulp of z_0), so the hull only proposes; the cost is that of the
  // proposal made feasible and carried forward with every operation rounded up (docs/analyses.md,
  // "pabi-bounded-domain"): any feasible absorption bounds the divergence.
  std::vector<double> proposed(k, 0.0);
  for (std::size_t i = 1; i < hull.size(); ++i) {
    const double du = ceiling[hull[i]] - ceiling[hull[i - 1]];
    const double dt = tau[hull[i]] - tau[hull[i - 1]];
    const double theta = dt > 0.0 ? du / dt : 0.0;
    for (std::size_t j = hull[i - 1]; j < hull[i]; ++j)
      proposed[j] = theta * std::exp(-static_cast<double>(j + 1) * log_l);
  }
  return feasible_absorption_cost(start_shift, deltas, lipschitz, proposed);
}

double feasible_absorption_cost(double start_shift, std::span<const double> deltas, double lipschitz,
                                std::span<const double> proposed) {
  auto up = [](double x) { return std::nextafter(x, kInf); };
  double z = start_shift, cost = 0.0;
  for (std::size_t j = 0; j < deltas.size(); ++j) {
    const double available = up(up(lipschitz * z) + deltas[j]);  // at least L z + delta_j
    const double wanted = std::isfinite(proposed[j]) ? std::max(proposed[j], 0.0) : 0.0;
    // The last step absorbs what is left (z_k = 0); none absorbs more than there is.
    const double a = j + 1 == deltas.size() ? available : std::min(wanted, available);
    z = a == available ? 0.0 : up(available - a);
    cost = up(cost + up(a * a));
  }
  return cost;
}

}  // namespace bounded_domain_pabi

namespace {

namespace bdp = bounded_domain_pabi;
constexpr double kInf = std::numeric_limits<double>::infinity();

/// The windows tried: every length up to 64, then lengths growing by a quarter, then the whole run.
/// Each is a valid bound, so trying fewer windows only loosens the minimum.
std::vector<std::int64_t> window_lengths(std::int64_t steps) {
  std::vector<std::int64_t> ks;
  for (std::int64_t k = 1; k <= std::min<std::int64_t>(steps, 64); ++k) ks.push_back(k);
  for (double k = 80.0; k < static_cast<double>(steps); k *= 1.25) ks.push_back(static_cast<std::int64_t>(k));
  if (ks.back() != steps) ks.push_back(steps);
  return ks;
}

}  // namespace

AnalysisResult pabi_bounded_domain(const RunSpec& spec, const TrainingRun& run) {
  const std::string name = "pabi-bounded-domain";
  const std::string citation =
      "[DERIVED] (docs/analyses.md, \"pabi-bounded-domain\") from the shifted Renyi divergence of Feldman, Mironov, "
      "Talwar & Thakurta 2018 (arXiv:1808.06651) with the bounded-domain start of Altschuler & Talwar 2022 "
      "(arXiv:2205.13710), for L-Lipschitz gradient maps (L = 1 + eta m > 1 without convexity)";
  auto refuse = [&](std::string why) { return refusal(name, citation, std::move(why)); };
  if (auto why = undeclared(run, {RunConstant::StepSize, RunConstant::Sensitivity, RunConstant::Smoothness}))
    return refuse(*why);
  if (!run.diameter)
    return refuse(
        "needs [domain] diameter: without a bounded set to project onto, the last iterate of a non-convex run can "
        "leak as much as every iterate (Annamalai 2024, arXiv:2407.06496)");
  if (!(run.beta >= 0.0) || !std::isfinite(run.beta) || (run.beta == 0.0 && spec.lsi.kind != LsiKind::BoundedDomain))
    return refuse("needs the loss's smoothness beta ([lsi] beta); beta = " + format_number(run.beta));
  if (run.adjacency != Adjacency::Replace)
    return refuse("derived for replace-one neighbours (a step moves by eta S_g / b); the run is " +
                  adjacency_name(run.adjacency));
  if (!(run.sigma > 0.0) || !(run.eta > 0.0)) return refuse("needs eta > 0 and sigma > 0");
  const bool poisson = run.sampling == BatchSampling::Poisson;
  const double L = update_map_lipschitz(run.eta, run.lambda, run.beta,
                                        poisson ? std::optional<double>(run.sampling_rate) : std::nullopt);
  const double delta = noise_units::step_sensitivity(run.sensitivity, run.eta, run.normaliser());
  const double noise_variance = 2.0 * run.eta * run.sigma * run.sigma;
  const double D = *run.diameter;
  const std::int64_t K = run.steps;
  if (K < 1) return refuse("needs at least one step");

  // Where the record's steps are: partition and shuffle-once fix its position p in every epoch (the
  // bound is the worst p); fresh batches (shuffle, per-step, Poisson) may hold it at any step, and
  // holding it at every step bounds every placement (the cost grows with each delta_j).
  const bool fixed_position = run.sampling == BatchSampling::Partition || run.sampling == BatchSampling::ShuffleOnce;
  const std::int64_t per_epoch = fixed_position ? run.batches_per_epoch() : 1;
  constexpr std::int64_t kMaxPositions = 64;
  const bool every_step = !fixed_position || per_epoch > kMaxPositions;
  const std::vector<std::int64_t> windows = window_lengths(K);

  auto best_cost = [&](std::int64_t position) {  // position: the record's step within each epoch
    double best = kInf;
    std::vector<double> deltas;
    for (std::int64_t k : windows) {
      deltas.assign(static_cast<std::size_t>(k), 0.0);
      for (std::int64_t j = 0; j < k; ++j) {
        const std::int64_t step = K - k + j;
        if (every_step || step % per_epoch == position) deltas[static_cast<std::size_t>(j)] = delta;
      }
      const double start = k < K ? D : 0.0;  // the run's first step starts both iterates at one law
      best = std::min(best, bdp::minimal_absorption_cost(start, deltas, L));
    }
    // The whole run absorbing each step's shift at once (z stays 0): composition of the releases.
    double releases = 0.0;
    for (std::int64_t step = 0; step < K; ++step)
      if (every_step || step % per_epoch == position) releases += 1.0;
    return std::min(best, releases * delta * delta);
  };
  double cost = 0.0;
  if (every_step || !fixed_position) {
    cost = best_cost(0);
  } else {
    for (std::int64_t p = 0; p < per_epoch; ++p) cost = std::max(cost, best_cost(p));
  }
  if (!std::isfinite(cost)) return refuse("no window's shifts stay in the double range");
  AnalysisResult r;
  r.name = name;
  r.citation = citation;
  r.applies = true;
  r.reason = "L = " + format_number(L) + (poisson ? " (Poisson: the batch loss's constants up to 1/q)" : "") +
             ", shift per release eta S_g/b = " + format_number(delta) + ", D = " + format_number(D) +
             (every_step && fixed_position ? "; more than 64 positions: the record taken in every step" : "");
  const double slope = cost / (2.0 * noise_variance);
  r.slope = slope;
  for (double alpha : run.orders) r.R.push_back(alpha * slope);
  return r;
}

}  // namespace rdpdyn

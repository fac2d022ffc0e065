#include "analyses/closed_form_curves.hpp"

#include <functional>
#include <optional>

#include "models/privacy_model.hpp"
#include "analyses/chourasia_2021_closed_forms.hpp"

namespace rdpdyn {
namespace {

/// Evaluates f(alpha, record index) on the grid.
std::vector<double> on_grid(const Solution& s, const std::function<double(double, std::size_t)>& f) {
  std::vector<double> out;
  out.reserve(s.record_count() * s.orders.size());
  for (std::size_t r = 0; r < s.record_count(); ++r)
    for (double alpha : s.orders) out.push_back(f(alpha, r));
  return out;
}

/// The LSI constant a constant-LSI model asserts, if it is one (C21 Thm 2, Lemma 5, Cor 2).
std::optional<double> constant_lsi(const RunSpec& spec, double eta, double sigma) {
  switch (spec.lsi.kind) {
    case LsiKind::Constant: return spec.lsi.c;
    case LsiKind::StronglyConvex: return spec.lsi.lambda / (2.0 * sigma * sigma);
    case LsiKind::SquaredLoss: return (2.0 - eta) / (2.0 * sigma * sigma);
    default: return std::nullopt;
  }
}

bool point_initialisation(const RunSpec& spec) {
  return spec.lsi.kind != LsiKind::StronglyConvex &&
         !(spec.lsi.kind == LsiKind::Recursion && spec.lsi.c0.has_value());
}

}  // namespace

double thm2_gamma(const RunSpec& spec) {
  const auto& phases = spec.algorithm.phases;
  const GammaChoice g = phases.size() == 1 && phases[0].gamma ? GammaChoice::fixed(*phases[0].gamma) : spec.gamma;
  const bool fixed = !g.is_optimal() && g.value > 0.0 && g.value < 1.0;
  return fixed ? g.value : 0.5;
}

std::vector<ClosedFormCurves> applicable_closed_forms(const RunSpec& spec, const Solution& sol) {
  std::vector<ClosedFormCurves> out;
  if (!std::holds_alternative<ZeroCurve>(spec.initial) || !spec.events.empty()) return out;
  const auto& a = spec.algorithm;
  const double Sg = a.sensitivity, n = a.n, Sv = Sg / n;
  // Mini-batches: a step whose batch (of size b) holds the differing record moves by eta S_g / b,
  // so the composition baseline uses b where full batch uses n (worst case: the record in every
  // batch; Ye & Shokri 2022 Lemma 3.2, eq. (70)). The C21 forms for constant parameters are
  // full-batch results and are not reported.
  const bool mini_batch = a.kind == AlgorithmKind::NoisySgd;
  const double batch = mini_batch ? static_cast<double>(a.batch_size) : n;

  if (a.kind == AlgorithmKind::Langevin) {
    out.push_back({"thm1", "C21 Thm 1", "upper-bound", on_grid(sol, [&](double al, std::size_t r) {
                     return closed_forms::thm1(al, Sv, a.sigma, sol.times[r]);
                   })});
    if (spec.lsi.kind == LsiKind::Constant) {
      const double g = thm2_gamma(spec);
      out.push_back({"thm2", "C21 Thm 2 (eta K -> t)", "upper-bound",
                     on_grid(sol, [&](double al, std::size_t r) {
                       return closed_forms::thm2(al, Sg, n, a.sigma, spec.lsi.c, g, sol.times[r]);
                     })});
    }
    return out;
  }

  // Thm 1 and the composition baseline add up step by step, so they hold for any phases.
  std::vector<double> thm1_rate_sum(sol.record_count());  // sum_k S_g,k^2 eta_k / sigma_k^2 up to record
  {
    std::size_t r = 0;
    double acc = 0.0;
    std::int64_t k = 0;
    for (const auto& p : a.phases)
      for (std::int64_t i = 0; i < p.steps; ++i) {
        while (r < sol.record_count() && sol.steps[r] == k) thm1_rate_sum[r++] = acc;
        const double Sk = p.sensitivity.value_or(Sg);
        acc += Sk * Sk * p.eta / (p.sigma * p.sigma);
        ++k;
      }
    while (r < sol.record_count()) thm1_rate_sum[r++] = acc;
  }
  if (!mini_batch)
    out.push_back({"thm1", "C21 Thm 1", "upper-bound", on_grid(sol, [&](double al, std::size_t r) {
                     return closed_forms::thm1(al, 1.0 / n, 1.0, thm1_rate_sum[r]);
                   })});
  out.push_back({"composition",
                 mini_batch ? "C21 App. E (moments accountant) with batch size b for n: every step's batch holds the record"
                            : "C21 App. E (moments accountant)",
                 "baseline", on_grid(sol, [&](double al, std::size_t r) {
                   return closed_forms::composition(al, 1.0, batch, 1.0, thm1_rate_sum[r], 1.0);
                 })});

  if (mini_batch || a.phases.size() != 1 || a.phases[0].sensitivity) return out;
  if (spec.quadratic && a.kind == AlgorithmKind::NoisyGd) {
    // The iterates are Gaussian: exact divergences, worst case over pairs allowed by S_g and, if
    // given, the configured pair (models/quadratic_exact.hpp).
    const auto problem = quadratic_problem_of(spec);
    const std::int64_t K = sol.steps.empty() ? 0 : sol.steps.back();
    const std::vector<double> worst = quadratic::worst_case_rdp_slopes(problem, K);
    out.push_back({"quadratic-exact", "exact Renyi divergence of the Gaussian iterates, worst pair (|H (x-x')| <= S_g)",
                   "exact", on_grid(sol, [&](double al, std::size_t r) { return al * worst[static_cast<std::size_t>(sol.steps[r])]; })});
    if (spec.quadratic->pair) {
      const Eigen::VectorXd delta = Eigen::Map<const Eigen::VectorXd>(spec.quadratic->pair->data(),
                                                                      static_cast<Eigen::Index>(spec.quadratic->pair->size()));
      const std::vector<double> given = quadratic::exact_rdp_slopes(problem, delta, K);
      out.push_back({"quadratic-exact-pair", "exact Renyi divergence of the Gaussian iterates, the configured pair",
                     "exact", on_grid(sol, [&](double al, std::size_t r) { return al * given[static_cast<std::size_t>(sol.steps[r])]; })});
    }
  }
  const double eta = a.phases[0].eta, sigma = a.phases[0].sigma;
  auto K = [&](std::size_t r) { return static_cast<double>(sol.steps[r]); };

  if (const auto c = constant_lsi(spec, eta, sigma)) {
    const double g = thm2_gamma(spec);
    out.push_back({"thm2", "C21 Thm 2", "upper-bound", on_grid(sol, [&](double al, std::size_t r) {
                     return closed_forms::thm2(al, Sg, n, sigma, *c, g, eta * K(r));
                   })});
  }
  if (spec.lsi.kind == LsiKind::StronglyConvex)
    out.push_back({"cor1", "C21 Cor 1", "upper-bound", on_grid(sol, [&](double al, std::size_t r) {
                     return closed_forms::cor1(al, Sg, n, sigma, spec.lsi.lambda, eta, K(r));
                   })});
  if (a.loss == LossKind::Squared) {
    out.push_back({"cor2", "C21 Cor 2", "upper-bound", on_grid(sol, [&](double al, std::size_t r) {
                     return closed_forms::cor2(al, Sg, n, sigma, eta, K(r));
                   })});
    if (point_initialisation(spec)) {
      out.push_back({"thm3-exact", "C21 Thm 3 (exact divergence, last equality of the proof)",
                     "exact", on_grid(sol, [&](double al, std::size_t r) {
                       return closed_forms::thm3_exact(al, Sg, n, sigma, eta, K(r));
                     })});
      out.push_back({"thm3-lower", "C21 Thm 3 (stated lower bound)", "lower-bound",
                     on_grid(sol, [&](double al, std::size_t r) {
                       return closed_forms::thm3_lower(al, Sg, n, sigma, eta, K(r));
                     })});
    }
  }
  return out;
}

}  // namespace rdpdyn

#include "analyses/chourasia_2021.hpp"

#include <optional>

#include "analyses/chourasia_2021_closed_forms.hpp"
#include "models/langevin_strongly_convex.hpp"
#include "numerics/spec_error.hpp"

namespace rdpdyn {
namespace {

/// The LSI constant a constant-LSI model asserts, if it is one (C21 Thm 2; Lemma 5; Cor 2's proof).
std::optional<double> constant_lsi(const RunSpec& spec, double eta, double sigma) {
  switch (spec.lsi.kind) {
    case LsiKind::Constant:
      return spec.lsi.c;
    case LsiKind::StronglyConvex:
      return spec.lsi.lambda / (2.0 * sigma * sigma);
    case LsiKind::SquaredLoss:
      return (2.0 - eta) / (2.0 * sigma * sigma);
    default:
      return std::nullopt;
  }
}

bool point_initialisation(const RunSpec& spec) {
  return spec.lsi.kind != LsiKind::StronglyConvex && !(spec.lsi.kind == LsiKind::Recursion && spec.lsi.c0.has_value());
}

/// Why the run is outside every C21 closed form, or "": they assume identical initial laws and
/// no boundary events (C21 Sec. 3).
std::string common_refusal(const RunSpec& spec) {
  if (!std::holds_alternative<ZeroCurve>(spec.initial)) return "needs identical initial laws (R_0 = 0)";
  if (!spec.events.empty()) return "needs a run without boundary events";
  return "";
}

/// Why the run is outside the forms for constant parameters (full batch, one step size, one
/// noise level, one sensitivity), or "".
std::string constant_parameter_refusal(const RunSpec& spec) {
  const auto& a = spec.algorithm;
  if (a.kind == AlgorithmKind::NoisySgd)
    return "needs full-batch noisy GD (b = n); the run uses batch_size = " + std::to_string(a.batch_size);
  if (a.kind == AlgorithmKind::Langevin) return "stated for discrete steps; the run is a Langevin diffusion";
  if (a.kind == AlgorithmKind::Pdi)
    return "stated for training runs; the run is a coefficient-level PDI (kind = \"pdi\")";
  if (a.phases.size() != 1)
    return "needs one step size and one noise level; the run has " + std::to_string(a.phases.size()) +
           " schedule phases";
  if (a.phases[0].sensitivity) return "needs one sensitivity S_g for the whole run";
  return "";
}

}  // namespace

double thm2_gamma(const RunSpec& spec) {
  const auto& phases = spec.algorithm.phases;
  const GammaChoice g = phases.size() == 1 && phases[0].gamma ? GammaChoice::fixed(*phases[0].gamma) : spec.gamma;
  const bool fixed = !g.is_optimal() && !g.is_field() && g.value > 0.0 && g.value < 1.0;
  return fixed ? g.value : 0.5;
}

std::vector<C21Form> c21_closed_forms(const RunSpec& spec, double gamma) {
  const auto& a = spec.algorithm;
  const double Sg = a.sensitivity, n = a.n;
  const std::string common = common_refusal(spec);
  std::vector<C21Form> out;
  auto add = [&](std::string name, std::string citation, std::string role, std::string refusal,
                 std::function<double(double, const C21Point&)> value) {
    if (refusal.empty()) refusal = common;
    out.push_back(
        {std::move(name), std::move(citation), std::move(role), refusal, refusal.empty() ? std::move(value) : nullptr});
  };

  if (a.kind == AlgorithmKind::Langevin || a.kind == AlgorithmKind::Pdi) {
    // A pdi run is the Langevin diffusion's PDI with S_v = sensitivity (n = 1) when sigma and S_v
    // are numbers; with sigma(t) or S_v(t) no closed form is stated.
    const std::string varying =
        a.coefficients.varies() ? "needs constant sigma and S_v (numbers, not expressions in t)" : "";
    add("thm1", "C21 Thm 1", "upper-bound", varying,
        [=](double al, const C21Point& p) { return closed_forms::thm1(al, Sg / n, a.sigma, p.time); });
    // strongly-convex on a Langevin run: c = lambda/sigma^2 (models/langevin_strongly_convex.hpp).
    const bool sc = spec.lsi.kind == LsiKind::StronglyConvex && a.kind == AlgorithmKind::Langevin;
    const double c = sc ? langevin_strongly_convex::lsi_constant(spec.lsi.lambda, a.sigma) : spec.lsi.c;
    add("thm2", "C21 Thm 2 (eta K -> t), eq. (68) at gamma = " + format_number(gamma), "upper-bound",
        !varying.empty() ? varying
        : spec.lsi.kind == LsiKind::Constant || sc
            ? ""
            : "needs a constant LSI constant (lsi.kind = \"constant\" or \"strongly-convex\")",
        [=](double al, const C21Point& p) { return closed_forms::thm2(al, Sg, n, a.sigma, c, gamma, p.time); });
    return out;
  }

  // Thm 1 and the composition baseline add up step by step, so they hold for any phases. A
  // mini-batch step whose batch holds the record moves by eta S_g / b, so the baseline uses b
  // where full batch uses n (worst case: the record in every batch; Ye & Shokri 2022,
  // arXiv:2203.05363, Lemma 3.2, eq. (70)).
  const bool mini_batch = a.kind == AlgorithmKind::NoisySgd;
  const double batch = !mini_batch                            ? n
                       : a.sampling == BatchSampling::Poisson ? a.sampling_rate * n  // expected batch size
                                                              : static_cast<double>(a.batch_size);
  add("thm1", "C21 Thm 1", "upper-bound", mini_batch ? "stated for full-batch noisy GD" : "",
      [=](double al, const C21Point& p) { return closed_forms::thm1(al, 1.0 / n, 1.0, p.rate_sum); });
  add("composition",
      mini_batch ? "C21 App. E (moments accountant) with batch size b for n: every step's batch holds the record"
                 : "C21 App. E (moments accountant)",
      "baseline", "",
      [=](double al, const C21Point& p) { return closed_forms::composition(al, 1.0, batch, 1.0, p.rate_sum, 1.0); });

  const std::string constant = constant_parameter_refusal(spec);
  const double eta = a.phases.empty() ? 0.0 : a.phases[0].eta, sigma = a.phases.empty() ? 0.0 : a.phases[0].sigma;
  const std::optional<double> c = constant_lsi(spec, eta, sigma);
  add("thm2", "C21 Thm 2, eq. (68) at gamma = " + format_number(gamma) + (gamma == 0.5 ? " (the stated theorem)" : ""),
      "upper-bound",
      !constant.empty() ? constant
      : c               ? ""
          : "needs a constant LSI constant throughout (lsi.kind constant, strongly-convex or squared-loss); "
            "lsi.kind gives a varying schedule",
      [=](double al, const C21Point& p) {
        return closed_forms::thm2(al, Sg, n, sigma, c.value_or(0.0), gamma, eta * p.steps);
      });
  std::string cor1_refusal = constant;
  if (cor1_refusal.empty() && !(spec.lsi.lambda > 0.0))
    cor1_refusal = "needs a strongly convex loss (lambda > 0); lambda = " + format_number(spec.lsi.lambda);
  if (cor1_refusal.empty() && !(spec.lsi.beta > 0.0 && eta < 1.0 / spec.lsi.beta))
    cor1_refusal = "needs beta-smoothness with eta < 1/beta (C21 Lemma 5); eta = " + format_number(eta) +
                   ", beta = " + format_number(spec.lsi.beta);
  if (cor1_refusal.empty() && spec.lsi.kind != LsiKind::StronglyConvex)
    cor1_refusal =
        "needs the initialisation Pi(N(0, 2 sigma^2/lambda)) of C21 Lemma 5 (lsi.kind = "
        "\"strongly-convex\"); the run declares another initial law";
  add("cor1", "C21 Cor 1", "upper-bound", cor1_refusal, [=, lambda = spec.lsi.lambda](double al, const C21Point& p) {
    return closed_forms::cor1(al, Sg, n, sigma, lambda, eta, p.steps);
  });
  const std::string squared = !constant.empty() ? constant
                              : a.loss == LossKind::Squared
                                  ? ""
                                  : "needs the squared loss |theta - x|^2/2 (algorithm.loss = \"squared\")";
  add("cor2", "C21 Cor 2", "upper-bound", squared,
      [=](double al, const C21Point& p) { return closed_forms::cor2(al, Sg, n, sigma, eta, p.steps); });
  // Thm 3's value is the divergence of two Gaussians: it needs the unprojected iterates (a projection
  // is post-processing and could put the exact value below the stated lower bound) and two datasets
  // of the same size n (C21's neighbours differ in one record).
  const std::string point = !squared.empty()              ? squared
                            : !point_initialisation(spec) ? "needs the point initialisation theta_0 = 0 of C21 Thm 3"
                            : spec.diameter
                                ? "needs unconstrained iterates on R^d (C21 Thm 3 has no projection); the run "
                                  "declares a diameter D = " +
                                      format_number(*spec.diameter)
                            : spec.adjacency != Adjacency::Replace
                                ? "needs adjacency = replace (C21 Thm 3 compares datasets of the same size n)"
                                : "";
  add("thm3-exact", "C21 Thm 3 (exact divergence, last equality of the proof)", "exact", point,
      [=](double al, const C21Point& p) { return closed_forms::thm3_exact(al, Sg, n, sigma, eta, p.steps); });
  add("thm3-lower", "C21 Thm 3 (stated lower bound)", "lower-bound", point,
      [=](double al, const C21Point& p) { return closed_forms::thm3_lower(al, Sg, n, sigma, eta, p.steps); });
  return out;
}

namespace {

/// A catalogue form at the run's last step, as a registry analysis.
AnalysisResult at_last_step(const RunSpec& spec, const TrainingRun& run, const std::string& form, double gamma,
                            std::string note = "") {
  for (const auto& f : c21_closed_forms(spec, gamma)) {
    if (f.name != form) continue;
    AnalysisResult r;
    r.citation = f.citation;
    r.applies = f.refusal.empty();
    if (!r.applies) {
      r.reason = f.refusal;
      return r;
    }
    const C21Point end{static_cast<double>(run.steps), run.eta * static_cast<double>(run.steps), 0.0};
    for (double alpha : run.orders) r.R.push_back(f.value(alpha, end));
    r.reason = std::move(note);
    return r;
  }
  return {};
}

}  // namespace

AnalysisResult chourasia_thm2(const RunSpec& spec, const TrainingRun& run) {
  const auto c = constant_lsi(spec, run.eta, run.sigma);
  return at_last_step(spec, run, "thm2", 0.5, c ? "c = " + format_number(*c) : "");
}
AnalysisResult chourasia_cor1(const RunSpec& spec, const TrainingRun& run) {
  return at_last_step(spec, run, "cor1", 0.5);
}
AnalysisResult chourasia_cor2(const RunSpec& spec, const TrainingRun& run) {
  return at_last_step(spec, run, "cor2", 0.5);
}
AnalysisResult chourasia_thm3_exact(const RunSpec& spec, const TrainingRun& run) {
  return at_last_step(spec, run, "thm3-exact", 0.5, "the two last iterates are Gaussians of equal covariance");
}
AnalysisResult chourasia_thm3_lower(const RunSpec& spec, const TrainingRun& run) {
  return at_last_step(spec, run, "thm3-lower", 0.5, "a lower bound: no valid upper bound is below it");
}

}  // namespace rdpdyn

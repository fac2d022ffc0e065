#include "models/known_constants.hpp"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <variant>

#include "dynamics/initial_curve.hpp"
#include "numerics/numerical_failure.hpp"
#include "numerics/spec_error.hpp"

namespace rdpdyn {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kUnit = std::numeric_limits<double>::epsilon() / 2.0;  // u = 2^-53, round to nearest

/// x >= 0 made smaller by k ulps-worth: fl(x (1 - k u)) <= x (1 - k u)(1 + u) < x for k >= 2.
double rounded_down(double x, double k = 4.0) { return x * (1.0 - k * kUnit); }
/// x >= 0 made larger: fl(x (1 + k u)) >= x (1 + k u)(1 - u) > x for k >= 2.
double rounded_up(double x, double k = 4.0) { return x * (1.0 + k * kUnit); }

/// A lower bound of min_{h in [lo, hi]} |1 - eta h|: 0 if 1/eta lies in the interval, else the
/// nearer end, less a bound on the rounding of 1 - eta h.
double min_abs_one_minus(double eta, double lo, double hi) {
  const double a = 1.0 - eta * lo, b = 1.0 - eta * hi;  // a >= b
  if (a >= 0.0 && b <= 0.0) return 0.0;
  const double m = std::min(std::abs(a), std::abs(b));
  return std::max(0.0, m - 4.0 * kUnit * (1.0 + eta * std::max(std::abs(lo), std::abs(hi))));
}

/// Two significant digits, for error radii.
std::string short_number(double x) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2g", x);
  return text;
}

bool changes_the_law(const StepEvent& e) {
  return std::visit(Overloaded{[](const LipschitzMap&) { return true; }, [](const LsiRestart&) { return true; },
                               [](const InverseLsiCap&) { return true; }, [](const GaussianRelease&) { return false; }},
                    e);
}

/// Lipschitz maps or LSI restarts make the iterate law differ from the loss's own dynamics.
bool law_changing_events(const RunSpec& spec) {
  return std::any_of(spec.events.begin(), spec.events.end(),
                     [](const ScheduledEvent& e) { return changes_the_law(e.event); });
}

std::string of_source(const KnownDynamics& k) {
  return k.squared ? "the squared loss |theta - x|^2/2 (Hessian I)" : "quadratic.hessian";
}

void check_strong_convexity(const LsiSpec& lsi, const KnownDynamics& k) {
  // l = (theta - x)^T H (theta - x)/2 is lambda-strongly convex and beta-smooth iff
  // lambda I <= H <= beta I.
  if (!(lsi.lambda <= k.spectrum.min_upper()))
    throw SpecError("lsi.lambda", format_number(lsi.lambda),
                    "must be <= h_min = " + format_number(k.spectrum.eigenvalues.front()) +
                        ", the smallest eigenvalue of " + of_source(k) +
                        " (lambda-strong convexity of this loss is H >= lambda I; a larger lambda claims a "
                        "contraction the iterates do not have, C21 Lemma 8)");
  if (!(lsi.beta >= k.spectrum.max_lower()))
    throw SpecError("lsi.beta", format_number(lsi.beta),
                    "must be >= h_max = " + format_number(k.spectrum.eigenvalues.back()) +
                        ", the largest eigenvalue of " + of_source(k) +
                        " (beta-smoothness of this loss is H <= beta I; a smaller beta understates the "
                        "gradient map's Lipschitz constant max(|1 - eta lambda|, |1 - eta beta|), C21 Lemma 8)");
}

void check_lipschitz(const RunSpec& spec, const KnownDynamics& k) {
  const double L = *spec.lsi.lipschitz;
  for (const auto& phase : spec.algorithm.phases) {
    if (phase.steps == 0) continue;
    const LipschitzBounds known = gradient_map_lipschitz_of(k.spectrum, phase.eta);
    if (L >= known.lower) continue;
    const std::string what =
        k.squared
            ? "|1 - eta| at eta = " + format_number(phase.eta) + phase.steps_note() + " (" + phase.origin +
                  ".eta), the Lipschitz constant of the squared loss's gradient map theta - eta (theta - x) "
                  "(C21 Thm 3 proof)"
            : "max_i |1 - eta h_i| at eta = " + format_number(phase.eta) + phase.steps_note() + " (" + phase.origin +
                  ".eta), the Lipschitz constant of the gradient map theta - eta H (theta - x) of "
                  "quadratic.hessian (eigenvalues h_i)";
    throw SpecError("lsi.lipschitz", format_number(L),
                    "must be >= " + format_number(known.nominal) + " = " + what +
                        "; a smaller lipschitz claims a contraction the iterates do not have (C21 Lemma 8)");
  }
}

/// The LSI constant a constant model uses at every step must not exceed the exact one.
void check_constant_lsi(const std::string& key, const std::string& value, const std::string& model_c, double c,
                        const std::string& lemma, const RunSpec& spec, const KnownDynamics& k) {
  const LsiInfimum known = exact_lsi_infimum(k, spec.algorithm.phases);
  if (c <= known.upper) return;
  throw SpecError(key, value,
                  model_c + " must be <= " + format_number(known.nominal) +
                      ", the smallest exact LSI constant of the iterates over the run (1/lambda_max of their "
                      "covariance, " +
                      (known.step == 0 ? std::string("the initial law") : "after step " + std::to_string(known.step)) +
                      "; the iterates of " +
                      (k.squared ? std::string("the squared loss") : "the quadratic loss quadratic.hessian") +
                      " are Gaussian" +
                      (k.initial_std ? " from the start N(mu, s^2 I), s = quadratic.initial_std" : "") +
                      "); a larger constant claims more concentration than the iterates have (" + lemma + ")");
}

}  // namespace

SpectrumEnclosure enclose_symmetric_spectrum(const Eigen::MatrixXd& S) {
  const Eigen::Index d = S.rows();
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(S);
  if (eig.info() != Eigen::Success) throw NumericalFailure("eigensolver did not converge on the Hessian");
  // Rounding of the residual's evaluation: S x - mu x costs gamma_{d+2} (|S| |x| + |mu| |x|)
  // componentwise, so at most gamma_{d+2} (|S|_F + |mu|) |x| in norm; the two norms and the
  // division add a relative gamma_{2d+3}. 4 (d + 3) u covers both with a factor 2 to spare
  // (gamma_n = n u / (1 - n u); |x| = 1 to rounding).
  const double slack = 4.0 * static_cast<double>(d + 3) * kUnit;
  const double frobenius = S.norm();
  SpectrumEnclosure out;
  for (Eigen::Index i = 0; i < d; ++i) {
    const Eigen::VectorXd x = eig.eigenvectors().col(i);
    const double mu = eig.eigenvalues()(i);
    const double residual = (S * x - mu * x).norm() / x.norm();
    out.eigenvalues.push_back(mu);
    out.radius.push_back(residual * (1.0 + slack) + slack * (frobenius + std::abs(mu)));
  }
  return out;
}

std::optional<KnownDynamics> known_dynamics(const RunSpec& spec) {
  const auto& a = spec.algorithm;
  if (a.kind == AlgorithmKind::Langevin || a.kind == AlgorithmKind::Pdi) return std::nullopt;
  KnownDynamics k;
  if (a.loss == LossKind::Squared) {
    // l = |theta - x|^2/2: H = I exactly; C21 Thm 3 starts at theta_0 = 0.
    k.source = "the squared loss";
    k.squared = true;
    k.spectrum.eigenvalues = {1.0};
    k.spectrum.radius = {0.0};
    return k;
  }
  if (a.loss != LossKind::Quadratic || !spec.quadratic) return std::nullopt;
  const auto& H = spec.quadratic->hessian;
  const auto d = static_cast<Eigen::Index>(H.size());
  Eigen::MatrixXd M(d, d);
  for (Eigen::Index i = 0; i < d; ++i)
    for (Eigen::Index j = 0; j < d; ++j) M(i, j) = H[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)];
  // The matrix the exact model uses (models/quadratic_exact.cpp symmetrises the same way).
  const Eigen::MatrixXd symmetric = 0.5 * (M + M.transpose());
  k.source = "quadratic.hessian";
  k.spectrum = enclose_symmetric_spectrum(symmetric);
  k.initial_std = spec.quadratic->initial_std;
  return k;
}

std::optional<double> stated_initial_variance(const RunSpec& spec) {
  if (spec.algorithm.loss == LossKind::Quadratic && spec.quadratic && spec.quadratic->initial_std)
    return *spec.quadratic->initial_std * *spec.quadratic->initial_std;
  return std::nullopt;
}

LipschitzBounds gradient_map_lipschitz_of(const SpectrumEnclosure& spectrum, double eta) {
  LipschitzBounds out;
  for (std::size_t i = 0; i < spectrum.eigenvalues.size(); ++i) {
    const double h = spectrum.eigenvalues[i], r = spectrum.radius[i];
    out.nominal = std::max(out.nominal, std::abs(1.0 - eta * h));
    // Some exact eigenvalue h* lies in [h - r, h + r], and L >= |1 - eta h*|.
    out.lower = std::max(out.lower, min_abs_one_minus(eta, h - r, h + r));
  }
  return out;
}

LsiInfimum exact_lsi_infimum(const KnownDynamics& known, const std::vector<Phase>& phases) {
  const std::size_t d = known.spectrum.eigenvalues.size();
  const double s = known.initial_std.value_or(0.0);
  std::vector<double> v_nominal(d, s * s), v_lower(d, rounded_down(s * s));
  double max_nominal = s * s, max_lower = v_lower.empty() ? 0.0 : v_lower.front();
  std::int64_t step = 0, at = 0;
  for (const auto& p : phases) {
    std::vector<double> q_nominal(d), q_lower(d);
    for (std::size_t i = 0; i < d; ++i) {
      const double h = known.spectrum.eigenvalues[i], r = known.spectrum.radius[i];
      q_nominal[i] = (1.0 - p.eta * h) * (1.0 - p.eta * h);
      const double m = min_abs_one_minus(p.eta, h - r, h + r);
      q_lower[i] = rounded_down(m * m);
    }
    const double noise = 2.0 * p.eta * p.sigma * p.sigma;  // variance added by one step (C21 Alg. 1)
    const double noise_lower = rounded_down(noise, 8.0);
    for (std::int64_t k = 0; k < p.steps; ++k) {
      ++step;
      for (std::size_t i = 0; i < d; ++i) {
        v_nominal[i] = q_nominal[i] * v_nominal[i] + noise;
        // Inputs are lower bounds and every operation rounds down: fl(fl(q v) + a) (1 - 4u) <= q v + a.
        v_lower[i] = rounded_down(q_lower[i] * v_lower[i] + noise_lower);
        if (v_nominal[i] > max_nominal) {
          max_nominal = v_nominal[i];
          at = step;
        }
        max_lower = std::max(max_lower, v_lower[i]);
      }
    }
  }
  LsiInfimum out;
  out.nominal = max_nominal > 0.0 ? 1.0 / max_nominal : kInf;
  out.upper = max_lower > 0.0 ? rounded_up(1.0 / max_lower) : kInf;
  out.step = at;
  return out;
}

void check_declared_constants(const RunSpec& spec) {
  const std::optional<KnownDynamics> known = known_dynamics(spec);
  if (!known) return;  // a generic loss: only the user can vouch (constant_provenance says so)
  const LsiSpec& lsi = spec.lsi;
  const bool smooth = lsi.kind == LsiKind::StronglyConvex || lsi.kind == LsiKind::BoundedDomain ||
                      (lsi.kind == LsiKind::Recursion && !lsi.lipschitz);
  if (smooth) check_strong_convexity(lsi, *known);
  if (lsi.kind == LsiKind::Recursion && lsi.lipschitz) check_lipschitz(spec, *known);
  if ((lsi.kind == LsiKind::Recursion || lsi.kind == LsiKind::BoundedDomain) && lsi.c0 && known->initial_std) {
    // C21 Def. 3.2 convention: N(0, s^2 I) is 1/s^2-LSI (and a shift does not change it).
    const double s = *known->initial_std;
    const double exact = 1.0 / (s * s);
    if (!(*lsi.c0 <= rounded_up(exact, 8.0)))
      throw SpecError(
          "lsi.c0", format_number(*lsi.c0),
          "must be <= 1/s^2 = " + format_number(exact) +
              ", the LSI constant of the stated initial law N(mu, s^2 I) with s = quadratic.initial_std = " +
              format_number(s) +
              " (C21 Def. 3.2: N(0, s^2 I) is 1/s^2-LSI); a larger c0 claims a more "
              "concentrated start than the run has");
  }
  // Without events that change the iterate law, the law is the loss's own Gaussian dynamics.
  if (law_changing_events(spec)) return;
  if (lsi.kind == LsiKind::Constant)
    check_constant_lsi("lsi.c", format_number(lsi.c), "the LSI constant c", lsi.c,
                       "C21 Thm 2 needs every iterate law c-LSI", spec, *known);
  if (lsi.kind == LsiKind::StronglyConvex && !spec.algorithm.phases.empty()) {
    const double sigma = spec.algorithm.phases.front().sigma;  // one sigma for all phases (checked)
    const double c = lsi.lambda / (2.0 * sigma * sigma);
    check_constant_lsi("lsi.lambda", format_number(lsi.lambda),
                       "the model's LSI constant lambda/(2 sigma^2) = " + format_number(c), c,
                       "C21 Lemma 5 needs every iterate law lambda/(2 sigma^2)-LSI", spec, *known);
  }
}

ConstantProvenance constant_provenance(const RunSpec& spec) {
  ConstantProvenance p;
  const auto& a = spec.algorithm;
  const auto& lsi = spec.lsi;
  const std::optional<KnownDynamics> known = known_dynamics(spec);
  const std::string generic = "generic loss: not checkable";
  auto declared = [&](const std::string& key, const std::string& value, const std::string& why) {
    std::string entry = key + " = " + value + " (" + why + ")";
    std::replace(entry.begin(), entry.end(), '\n', ' ');  // one line per entry (HDF5 lists)
    p.declared.push_back(entry);
  };
  auto derived = [&](const std::string& key, const std::string& value, const std::string& why) {
    p.derived.push_back(key + " = " + value + " (" + why + ")");
  };

  if (!a.steps_derivation.empty()) p.derived.push_back(a.steps_derivation);
  if (a.dropped_records > 0)
    p.derived.push_back("algorithm.n = " + format_number(a.n) + " (drop_last: " + format_number(a.n) + " + " +
                        std::to_string(a.dropped_records) +
                        " records, the last partial batch of each epoch dropped; the run on the records the epochs "
                        "use bounds every record)");
  if (a.kind == AlgorithmKind::Pdi)  // a coefficient-level run states S_v itself, possibly as S_v(t)
    declared("algorithm.sensitivity",
             a.coefficients.sensitivity.f ? "\"" + a.coefficients.sensitivity.description + "\""
                                          : format_number(a.sensitivity),
             "S_v(t) bounds the difference of the two runs' vector fields at every t (C21 App. B Def. B.9, eq. (37)); "
             "it depends on the data");
  else if (a.declares_sensitivity)  // an accounting-only run declares none: nothing to vouch for
    declared("algorithm.sensitivity", format_number(a.sensitivity),
             "S_g bounds the gradient difference of neighbouring records; it depends on the data" +
                 std::string(spec.quadratic && spec.quadratic->pair ? "; quadratic.pair is checked against it" : ""));
  for (std::size_t i = 0; i < a.phases.size(); ++i)
    if (a.phases[i].sensitivity)
      declared(a.phases[i].origin + ".sensitivity", format_number(*a.phases[i].sensitivity), "S_g of the phase");

  if (known && !known->squared) {
    const auto& sp = known->spectrum;
    derived("h_min", format_number(sp.eigenvalues.front()),
            "smallest eigenvalue of quadratic.hessian, Eigen SelfAdjointEigenSolver, enclosed to +-" +
                short_number(sp.radius.front()));
    derived("h_max", format_number(sp.eigenvalues.back()),
            "largest eigenvalue of quadratic.hessian, enclosed to +-" + short_number(sp.radius.back()));
  }
  const bool law_known = known && !law_changing_events(spec);
  const std::string from = known ? of_source(*known) : "";

  // No [lsi] (accounting alone): no LSI constant was declared, none is listed.
  if (spec.declares_lsi) switch (lsi.kind) {
      case LsiKind::Constant:
        if (a.kind != AlgorithmKind::Langevin && a.kind != AlgorithmKind::Pdi && law_known)
          derived("lsi.c", format_number(lsi.c),
                  "declared; checked <= the smallest exact LSI constant of the iterates of " + from);
        else
          declared("lsi.c", format_number(lsi.c),
                   known ? "the iterate laws are not known with lipschitz or lsi-restart events: not checkable"
                         : "LSI constant of every iterate law (C21 Thm 2); " + generic);
        break;
      case LsiKind::StronglyConvex:
      case LsiKind::Recursion: {
        if (a.kind == AlgorithmKind::Langevin) {  // strongly-convex only (check_model_assumptions)
          declared("lsi.lambda", format_number(lsi.lambda),
                   "strong convexity of the loss, and the start N(0, (sigma^2/lambda) I); " + generic);
          derived("LSI constant", "lambda/sigma^2",
                  "from lsi.lambda: the start is lambda/sigma^2-LSI and the diffusion keeps it (Bakry-Emery; "
                  "docs/analyses.md, \"ganesh-lemma-i2\")");
          break;
        }
        if (lsi.kind == LsiKind::Recursion && lsi.lipschitz) {
          if (known)
            derived("lsi.lipschitz", format_number(*lsi.lipschitz),
                    "declared; checked >= the gradient map's Lipschitz constant max_i |1 - eta h_i| of " + from);
          else
            declared("lsi.lipschitz", format_number(*lsi.lipschitz),
                     "Lipschitz constant of the gradient map; " + generic);
        } else {
          for (const auto& [key, value] : {std::pair{"lsi.lambda", lsi.lambda}, std::pair{"lsi.beta", lsi.beta}}) {
            const bool is_lambda = std::string(key) == "lsi.lambda";
            if (known && known->squared)
              derived(key, format_number(value), "the squared loss: lambda = beta = 1");
            else if (known)
              derived(
                  key, format_number(value),
                  std::string("declared; checked ") + (is_lambda ? "<= h_min" : ">= h_max") + " of quadratic.hessian");
            else
              declared(key, format_number(value),
                       std::string(is_lambda ? "strong convexity" : "smoothness") + " of the loss; " + generic);
          }
          if (lsi.kind == LsiKind::Recursion)
            derived("gradient-map Lipschitz constant", "max(|1 - eta lambda|, |1 - eta beta|)",
                    "from lsi.lambda and lsi.beta, for every eta; C21 Lemma 8");
          else
            derived(
                "LSI constant", "lambda/(2 sigma^2)",
                "from lsi.lambda; C21 Lemma 5" + std::string(law_known ? "; checked against the exact schedule" : ""));
        }
        if (lsi.kind == LsiKind::Recursion) {
          const auto start = stated_initial_variance(spec);
          if (lsi.c0 && start)
            derived("lsi.c0", format_number(*lsi.c0),
                    "declared; checked <= 1/s^2 of the start N(mu, s^2 I), s = quadratic.initial_std");
          else if (lsi.c0 && known)
            derived("lsi.c0", format_number(*lsi.c0),
                    "declared; the run starts at a point (c = +inf), so any c0 is safe");
          else if (lsi.c0)
            declared("lsi.c0", format_number(*lsi.c0), "LSI constant of the initial law; " + generic);
          else if (start)
            derived("lsi.c0", format_number(1.0 / *start),
                    "1/s^2 of the start N(mu, s^2 I), s = quadratic.initial_std");
          else if (known)
            derived("initial law", "a point mass",
                    known->squared ? "the squared loss starts at theta_0 = 0 (C21 Thm 3)"
                                   : "the quadratic model starts at a point without quadratic.initial_std");
          else
            declared("initial law", "a point mass", "lsi.c0 omitted: the run starts at a data-independent point");
        }
        break;
      }
      case LsiKind::SquaredLoss:
        derived("LSI constant", "(2 - eta)/(2 sigma^2)", "the squared loss from theta_0 = 0 (C21 Cor 2 proof)");
        break;
      case LsiKind::BoundedDomain:
        declared("lsi.beta", format_number(lsi.beta), "smoothness of the loss; " + generic);
        declared("lsi.lambda", format_number(lsi.lambda),
                 "lower bound of the loss's Hessian (< 0: weakly convex; -beta: smooth only); " + generic);
        derived("gradient-map Lipschitz constant", "max(|1 - eta lambda|, |1 - eta beta|)",
                "from lsi.lambda and lsi.beta, for every eta (Poisson: the batch's scaling up to 1/q); C21 Lemma 8");
        derived("LSI bound at each step's end", "s^2 [2 + (1 + (e^{Dg^2/s^2} - 1)/4)(1 + Dg^2/(2 s^2))]",
                "1/c of a law on a set of diameter Dg = min(Lip D, D + 2 eta G) convolved with N(0, s^2 I), s^2 = "
                "2 eta sigma^2 (Chen, Chewi & Niles-Weed 2021; docs/math.md section 2.7)");
        break;
      case LsiKind::Function:
        declared("lsi.c", "\"" + lsi.function.description() + "\"", "a user LSI schedule; not checked");
        break;
      case LsiKind::ExactQuadratic:
        derived("LSI schedule", "1/lambda_max(covariance of the iterates)",
                "exact, from quadratic.hessian" +
                    std::string(known && known->initial_std ? " and quadratic.initial_std" : ""));
        break;
    }
  if (spec.diameter) declared("domain.diameter", format_number(*spec.diameter), "diameter of the constraint set");
  if (spec.gradients_norm_bounded) declared("domain.lipschitz_loss", "true", "per-record gradient norms <= S_g/2");
  if (spec.records_per_user > 1)
    declared("domain.records_per_user", std::to_string(spec.records_per_user),
             "no user has more records: every bound is user-level (group privacy)");
  if (!std::holds_alternative<ZeroCurve>(spec.initial))
    declared("initial", "\"" + initial_curve_kind(spec.initial) + "\"", "R_0 bounds the initial divergence");
  for (const auto& e : spec.events) {
    const std::string at = "events (after_step " + std::to_string(e.after_step) + ")";
    std::visit(Overloaded{[&](const LipschitzMap& m) {
                            declared(at + ".lipschitz", format_number(m.lipschitz), "a data-independent Lipschitz map");
                          },
                          [&](const LsiRestart& r) {
                            declared(at + ".c", format_number(r.c), "LSI constant of the law at the restart");
                          },
                          [&](const InverseLsiCap& cap) {
                            declared(at + ".inverse_lsi", format_number(cap.inverse_lsi),
                                     "bound on the inverse LSI constant of the law");
                          },
                          [&](const GaussianRelease& g) {
                            declared(at + ".sensitivity", format_number(g.sensitivity),
                                     "sensitivity of the released Gaussian");
                          }},
               e.event);
  }
  return p;
}

}  // namespace rdpdyn

#include "analyses/ganesh_thakurta_upadhyay_2022.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

#include "models/noise_units.hpp"
#include "numerics/spec_error.hpp"

namespace rdpdyn {
namespace gtu {

double lemma_c1(double alpha, double delta, double beta, double time) {
  if (!(alpha > 1.0 && delta >= 0.0 && beta > 0.0 && time >= 0.0))
    throw std::invalid_argument("gtu::lemma_c1: needs alpha > 1, Delta >= 0, beta > 0, T >= 0");
  // GTU (arXiv:2204.01585) Lemma C.1: alpha Delta^2 / 4 * int_0^T beta_t^2 dt, beta constant.
  return alpha * delta * delta * beta * beta * time / 4.0;
}

double lemma_i2(double alpha, double delta, double beta, double m, double time) {
  if (!(alpha >= 1.0 && delta >= 0.0 && beta > 0.0 && m > 0.0 && time >= 0.0))
    throw std::invalid_argument("gtu::lemma_i2: needs alpha >= 1, Delta >= 0, beta > 0, m > 0, T >= 0");
  // GTU (arXiv:2204.01585) Lemma I.2: alpha beta Delta^2 / m * (1 - e^{-beta m T/2}); expm1 keeps
  // the small-T value (about alpha beta^2 Delta^2 T / 2) accurate.
  return alpha * beta * delta * delta / m * -std::expm1(-beta * m * time / 2.0);
}

}  // namespace gtu

std::string gtu_langevin_setting_failure(const RunSpec& spec) {
  if (spec.algorithm.kind == AlgorithmKind::Pdi)
    return "stated for the Langevin diffusion (algorithm.kind = \"langevin\"); the run is a coefficient-level PDI "
           "(kind = \"pdi\"), not a diffusion of a loss";
  if (spec.algorithm.kind != AlgorithmKind::Langevin)
    return "stated for the Langevin diffusion (algorithm.kind = \"langevin\"); the run has discrete steps";
  if (!std::holds_alternative<ZeroCurve>(spec.initial)) return "needs identical initial laws (R_0 = 0)";
  if (!spec.events.empty()) return "needs a run without boundary events";
  if (spec.adjacency != Adjacency::Replace)
    return "needs adjacency = replace (GTU's neighbouring datasets differ in one point)";
  return "";
}

namespace {

struct GtuUnits {
  double beta, time, delta, m;
};

GtuUnits units_of(const RunSpec& spec) {
  const auto& a = spec.algorithm;
  return {noise_units::gtu_beta_from_c21_sigma(a.sigma), noise_units::gtu_time_from_c21(a.time, a.sigma),
          noise_units::gtu_delta_from_c21(a.sensitivity, a.n), noise_units::gtu_m_from_c21_lambda(spec.lsi.lambda)};
}

/// A GTU entry: refused with `why`, else R at every order in GTU units and the units in the reason.
AnalysisResult gtu_entry(const char* name, const char* citation, const std::string& why, const RunSpec& spec,
                         const TrainingRun& run, double (*bound)(double alpha, const GtuUnits& u),
                         const std::string& note) {
  AnalysisResult r;
  r.name = name;
  r.citation = citation;
  if (!why.empty()) {
    r.reason = why;
    return r;
  }
  const GtuUnits u = units_of(spec);
  for (double alpha : run.orders) r.R.push_back(bound(alpha, u));
  r.applies = true;
  r.reason = "beta = 1/sigma^2 = " + format_number(u.beta) + ", T = sigma^2 t = " + format_number(u.time) +
             ", Delta = S_g/n = " + format_number(u.delta) + note;
  return r;
}

}  // namespace

AnalysisResult ganesh_lemma_c1(const RunSpec& spec, const TrainingRun& run) {
  return gtu_entry(
      "ganesh-lemma-c1", "Ganesh, Thakurta & Upadhyay 2022 (arXiv:2204.01585) Lemma C.1 (path-level), constant beta",
      gtu_langevin_setting_failure(spec), spec, run,
      [](double alpha, const GtuUnits& u) { return gtu::lemma_c1(alpha, u.delta, u.beta, u.time); },
      "; bounds the whole trajectory");
}

std::string gtu_lemma_i2_setting_failure(const RunSpec& spec) {
  if (auto why = gtu_langevin_setting_failure(spec); !why.empty()) return why;
  if (spec.lsi.kind != LsiKind::StronglyConvex)
    return "needs m-strongly convex losses and the start N(0, I/(beta m)) (GTU Lemma I.2): declare "
           "lsi.kind = \"strongly-convex\" with lambda = m";
  if (!(spec.lsi.lambda > 0.0))
    return "needs a strongly convex loss (lambda > 0); lambda = " + format_number(spec.lsi.lambda);
  if (spec.diameter)
    return "stated for the unconstrained diffusion (GTU eq. (1)) from an unconstrained Gaussian start; the run "
           "declares a diameter D = " +
           format_number(*spec.diameter);
  return "";
}

AnalysisResult ganesh_lemma_i2(const RunSpec& spec, const TrainingRun& run) {
  // In C21 units alpha S_g^2/(lambda sigma^2 n^2) (1 - e^{-lambda t/2}), C21 Cor 1 with eta K -> t.
  return gtu_entry(
      "ganesh-lemma-i2", "Ganesh, Thakurta & Upadhyay 2022 (arXiv:2204.01585) Lemma I.2",
      gtu_lemma_i2_setting_failure(spec), spec, run,
      [](double alpha, const GtuUnits& u) { return gtu::lemma_i2(alpha, u.delta, u.beta, u.m, u.time); },
      ", m = lambda = " + format_number(spec.lsi.lambda) +
          "; start N(0, I/(beta m)) as declared by lsi.kind = \"strongly-convex\"");
}

}  // namespace rdpdyn

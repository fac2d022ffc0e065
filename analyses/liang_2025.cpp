#include "analyses/liang_2025.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "models/noise_units.hpp"
#include "numerics/format_number.hpp"

namespace rdpdyn {

namespace liang_2025 {
double thm3_4(double alpha, double clip, double sigma_dp, double eta, double smoothness, double diameter, double n,
              double batch, double steps) {
  const double s2 = sigma_dp * sigma_dp;
  const double linear = 2.0 * alpha * clip * clip * steps / (n * batch * s2);
  const double a = 2.0 * alpha * clip * clip / (n * batch * s2);
  const double grown = (1.0 + eta * smoothness) * diameter;
  const double c = alpha * grown * grown / (2.0 * eta * eta * s2);
  const double plateau = (std::sqrt(a) + std::sqrt(c)) * (std::sqrt(a) + std::sqrt(c));
  return std::min(linear, plateau);
}
}  // namespace liang_2025

AnalysisResult liang_thm3_4(const TrainingRun& run) {
  const std::string name = "liang-2025-thm3.4";
  const std::string citation =
      "Liang, Zhang, He, Wu & Xing 2025 (arXiv:2502.17772) Thm 3.4, as transcribed in the authors' scripts "
      "(HauLiang/DPSGD-DC ae9946f, plot_figure_1.py)";
  auto refuse = [&](std::string why) { return refusal(name, citation, std::move(why)); };
  if (auto why = undeclared(run, {RunConstant::StepSize, RunConstant::Sensitivity, RunConstant::Smoothness}))
    return refuse(*why);
  if (!run.diameter) return refuse("needs [domain] diameter (DP-SGD projected onto a bounded domain)");
  if (run.sampling == BatchSampling::Poisson || run.sampling == BatchSampling::PerStep)
    return refuse(
        "the authors' setting is shuffled fixed-size batches (their scripts and training code); the run "
        "samples " +
        batch_sampling_name(run.sampling));
  if (run.adjacency != Adjacency::Replace)
    return refuse("the transcription's sensitivity 2C/b is replace-one's; the run is " + adjacency_name(run.adjacency));
  if (!(run.beta > 0.0) || !std::isfinite(run.beta))
    return refuse("needs the loss's smoothness L = beta > 0 ([lsi] beta); beta = " + format_number(run.beta) +
                  (run.beta == 0.0 ? " (unknown)" : ""));
  const double sigma_dp = noise_units::liang_sigma_dp_from_c21(run.sigma, run.eta);
  const double clip = run.sensitivity / 2.0;  // replace-one: S_g = 2C
  const double b = run.normaliser();
  AnalysisResult r;
  r.name = name;
  r.citation = citation;
  r.applies = true;
  r.reason =
      "sigma_DP = " + format_number(sigma_dp) + ", C = S_g/2 = " + format_number(clip) + ", D taken as the diameter";
  for (double alpha : run.orders)
    r.R.push_back(liang_2025::thm3_4(alpha, clip, sigma_dp, run.eta, run.beta, *run.diameter, run.n, b,
                                     static_cast<double>(run.steps)));
  return r;
}

}  // namespace rdpdyn

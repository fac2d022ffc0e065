#include "analyses/kong_ribero_2024.hpp"

#include <cmath>
#include <string>

#include "models/noise_units.hpp"
#include "numerics/format_number.hpp"

namespace rdpdyn {

namespace kong_ribero_2024 {
double transcribed_bound(double alpha, double clip, double sigma, double eta, double smoothness, double weak_convexity,
                         double diameter, double batch) {
  const double m = weak_convexity;
  const double expansion = std::sqrt(1.0 + 2.0 * eta * m * (1.0 + m / (2.0 * (smoothness + m))));
  const double shift = diameter * expansion + 2.0 * eta * clip / batch;
  return alpha / (2.0 * sigma * sigma * eta * eta) * shift * shift;
}
}  // namespace kong_ribero_2024

AnalysisResult kong_ribero_transcribed(const TrainingRun& run) {
  const std::string name = "kong-ribero-2024";
  const std::string citation =
      "Kong & Ribero 2024 (arXiv:2407.05237), as transcribed in Liang et al. 2025's scripts (HauLiang/DPSGD-DC "
      "ae9946f, plot_figure_1.py)";
  auto refuse = [&](std::string why) { return refusal(name, citation, std::move(why)); };
  if (auto why = undeclared(run, {RunConstant::StepSize, RunConstant::Sensitivity, RunConstant::Smoothness}))
    return refuse(*why);
  if (!run.diameter) return refuse("needs [domain] diameter (the transcription's D)");
  if (run.sampling != BatchSampling::Partition && run.sampling != BatchSampling::FullBatch)
    return refuse("stated for cyclic batches (algorithm.sampling = \"partition\"); the run samples " +
                  batch_sampling_name(run.sampling));
  if (run.adjacency != Adjacency::Replace)
    return refuse("the transcription's sensitivity 2C/b is replace-one's; the run is " + adjacency_name(run.adjacency));
  if (!(run.beta > 0.0) || !std::isfinite(run.beta)) return refuse("needs the smoothness L = beta > 0");
  const double sigma = noise_units::kong_ribero_sigma_from_c21(run.sigma, run.eta);
  const double m = run.lambda < 0.0 ? -run.lambda : 0.0;  // weak convexity; a convex loss is 0-weakly convex
  AnalysisResult r;
  r.name = name;
  r.citation = citation;
  r.applies = true;
  r.reason = "m = " + format_number(m) + " (weak convexity, -lambda), sigma = " + format_number(sigma) +
             ", C = S_g/2, D taken as the diameter";
  for (double alpha : run.orders)
    r.R.push_back(kong_ribero_2024::transcribed_bound(alpha, run.sensitivity / 2.0, sigma, run.eta, run.beta, m,
                                                      *run.diameter, run.normaliser()));
  return r;
}

}  // namespace rdpdyn

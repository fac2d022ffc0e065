#include "analyses/pdi.hpp"

#include <algorithm>
#include <stdexcept>

#include "models/configured_solve.hpp"
#include "models/noisy_sgd_sampled_bound.hpp"
#include "numerics/format_number.hpp"
#include "numerics/spec_error.hpp"

namespace rdpdyn {
namespace {

class DiscardRecords final : public RecordObserver {
 public:
  void record(const EngineRecord&) override {}
};

/// Noisy mini-batch GD: the pointwise minimum of the engine's worst case over placements and the
/// bound that averages over the sampling (models/noisy_sgd_sampled_bound.hpp); both are bounds.
void take_sampled_bound(const RunConfig& config, std::span<const double> orders, AnalysisResult& r) {
  auto sampled = noisy_sgd_sampled_bound(config.spec, orders);
  if (const auto* why = std::get_if<std::string>(&sampled)) {
    r.reason +=
        "; worst case over the differing record's batch (joint quasi-convexity); averaged bound not used: " + *why;
    return;
  }
  const SampledBound& s = std::get<SampledBound>(sampled);
  if (s.fdp_epsilon) {  // valid whichever R is smaller: a statement about the run's profile
    r.fdp_epsilon = s.fdp_epsilon;
    r.fdp_route = s.fdp_route;
  }
  bool lower_somewhere = false, lower_everywhere = true;
  for (std::size_t i = 0; i < r.R.size(); ++i) {
    if (s.R[i] < r.R[i])
      lower_somewhere = true;
    else
      lower_everywhere = false;
    r.R[i] = std::min(r.R[i], s.R[i]);
  }
  if (!lower_somewhere) {
    r.reason +=
        "; worst case over the differing record's batch (joint quasi-convexity), not above the averaged bound (" +
        s.method + ")";
    return;
  }
  // The slope (R = alpha w at every order) survives only where the result is one linear curve; R at
  // any order is known where both parts are (the engine's part through its slope).
  if (lower_everywhere) {
    r.slope = s.slope;
    r.at_order = s.at_order;
  } else if (r.slope && s.slope) {
    r.slope = std::min(*r.slope, *s.slope);
  } else if (r.slope) {
    r.at_order = [w = *r.slope, at = s.at_order](double alpha) { return std::min(linear_rdp_at(alpha, w), at(alpha)); };
    r.slope.reset();
  } else {
    r.slope.reset();
  }
  r.reason += std::string("; ") + (lower_everywhere ? "" : "minimum of the worst case over placements and ") + s.method;
  // Fresh batches every step: the averaged bound is amplification by subsampling.
  r.amplified_by_sampling = config.spec.algorithm.sampling == BatchSampling::PerStep;
  if (s.worst_mu)
    r.reason += "; Gaussian-DP per placement (BSA 2024 shifted interpolation, the same shifts), worst mu = " +
                format_number(*s.worst_mu) + (s.fdp_route == "gdp-mixture" ? ", profiles averaged over the draw" : "");
}

}  // namespace

AnalysisResult pdi_analysis(const AnalysisInput& input, std::span<const double> orders) {
  AnalysisResult r;
  r.applies = true;
  RunConfig config = input.config;
  config.spec.orders.assign(orders.begin(), orders.end());
  config.spec.record = RecordPlan{0, {}};  // the final row only
  try {
    DiscardRecords discard;
    r.R = solve_configured_run(config, input.engines, discard).final_R;  // rounded outward there
    r.slope = linear_rdp_slope(config, configured_engine(config, input.engines), orders, r.R);
    r.reason = "engine " + config.engine;
    if (config.spec.algorithm.kind == AlgorithmKind::NoisySgd) take_sampled_bound(config, orders, r);
  } catch (const SpecError& e) {  // input the PDI cannot solve, by its key: a refusal (other errors are bugs)
    r.applies = false;
    r.reason = e.what();
    r.R.clear();
  }
  return r;
}

}  // namespace rdpdyn

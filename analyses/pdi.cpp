#include "analyses/pdi.hpp"

#include <stdexcept>

#include "models/configured_solve.hpp"

namespace rdpdyn {
namespace {

class DiscardRecords final : public RecordObserver {
 public:
  void record(const EngineRecord&) override {}
};

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
    r.slope = linear_rdp_slope(config, orders, r.R);
    r.reason = "engine " + config.engine;
    if (config.spec.algorithm.kind == AlgorithmKind::NoisySgd)
      r.reason += "; worst case over the differing record's batch (joint quasi-convexity)";
  } catch (const std::invalid_argument& e) {  // SpecError included: the run is outside the PDI's reach
    r.applies = false;
    r.reason = e.what();
    r.R.clear();
  }
  return r;
}

}  // namespace rdpdyn

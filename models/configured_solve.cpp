#include "models/configured_solve.hpp"

#include "accounting/bound_epsilon.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "accounting/epsilon_over_orders.hpp"
#include "accounting/zcdp.hpp"
#include "models/noisy_sgd_worst_case.hpp"
#include "models/privacy_model.hpp"
#include "numerics/spec_error.hpp"
#include "numerics/outward_rounding.hpp"

namespace rdpdyn {
namespace {

/// Passes every record on with R rounded outward: the margin of a record after k steps is
/// outward::recursion_margin(k) (numerics/outward_rounding.hpp; docs/math.md section 6). The
/// engines' extra series (e.g. the uncertified finite-difference value) are not bounds and pass
/// unchanged.
class OutwardRounding final : public RecordObserver {
 public:
  explicit OutwardRounding(RecordObserver& next) : next_(next) {}
  void record(const EngineRecord& row) override {
    // No engine reports NaN for representable constants; extreme ones (eta = 1e308: t = K eta is
    // infinite, inf - inf in a flow) are input beyond double precision, never a bound.
    if (std::any_of(row.R.begin(), row.R.end(), [](double r) { return std::isnan(r); }))
      throw SpecError("algorithm", "its constants",
                      "the PDI's bound is not a number at step " + std::to_string(row.step) +
                          ": the step size, noise, sensitivity or number of steps are beyond what double precision "
                          "carries (e.g. eta x steps and eta sigma^2 must be finite)");
    rounded_.assign(row.R.begin(), row.R.end());
    outward::round_up(rounded_, outward::recursion_margin(row.step));
    EngineRecord out = row;
    out.R = rounded_;
    next_.record(out);
  }

 private:
  RecordObserver& next_;
  std::vector<double> rounded_;
};

/// The final row rounded like the last record (every rank computes the same).
void round_final_row(EngineSummary& summary, std::int64_t last_step) {
  outward::round_up(summary.final_R, outward::recursion_margin(last_step));
}

}  // namespace

const Engine& configured_engine(const RunConfig& config, const EngineRegistry& engines) {
  const Engine* engine = engines.find(config.engine);
  if (!engine) {
    std::string known;
    for (const auto& n : engines.names()) known += (known.empty() ? "\"" : ", \"") + n + "\"";
    throw SpecError("analysis.engine", "\"" + config.engine + "\"", "must be one of " + known);
  }
  return *engine;
}

EngineSummary solve_configured_run(const RunConfig& config, const EngineRegistry& engines, RecordObserver& observer,
                                   const StepProgress& progress) {
  const RunSpec& spec = config.spec;
  if (spec.adjacency != Adjacency::Replace) {
    std::string also;
    for (const auto& m : missing_pdi_constants(spec)) {
      if (!also.empty()) also += ", ";
      also += m == "lsi" ? std::string("[lsi]") : m;
    }
    std::string rule =
        "the PDI is derived for replace-one neighbours (same dataset size, C21 Sec. 2): use \"replace\" here, or "
        "`rdpdyn compare` for the accountants of add/remove and zero-out neighbours";
    if (!also.empty()) rule += "; the run also does not declare " + also + ", which the PDI needs";
    throw SpecError("domain.adjacency", "\"" + std::string(adjacency_name(spec.adjacency)) + "\"", rule);
  }
  require_pdi_constants(spec);
  const Engine& engine = configured_engine(config, engines);
  const EngineSettings settings{spec.record, {config.integration_rtol}, config.grid, progress};
  OutwardRounding rounding(observer);
  try {
    if (spec.algorithm.kind == AlgorithmKind::NoisySgd) {
      // Worst case over the differing record's batch, solved per placement then combined.
      EngineSettings placements = settings;
      placements.progress = {};  // one solve per placement: no single progress line
      const Solution worst = solve_noisy_sgd_worst_case(spec, engine, placements);
      EngineSummary summary;
      for (std::size_t r = 0; r < worst.record_count(); ++r)
        rounding.record({worst.steps[r], worst.times[r], worst.lsi_constant[r], worst.row(r), {}});
      const auto last = worst.final_row();
      summary.final_R.assign(last.begin(), last.end());
      round_final_row(summary, worst.steps.back());
      return summary;
    }
    const PrivacyProgram program = build_program(spec);
    EngineSummary summary = engine.solve(program, spec.initial, spec.orders, settings, rounding);
    round_final_row(summary, program.step_count());
    return summary;
  } catch (const std::domain_error& e) {  // a user function left its domain
    const bool gamma = std::string(e.what()).rfind("gamma", 0) == 0;
    throw SpecError(gamma ? "analysis.gamma" : "lsi.c",
                    "\"" + (gamma ? spec.gamma.description() : spec.lsi.function.description()) + "\"", e.what());
  }
}

std::optional<double> linear_rdp_slope(const RunConfig& config, const Engine& engine, std::span<const double> orders,
                                       std::span<const double> R) {
  if (!engine.keeps_linear_data_exact() || !is_linear_in_alpha(config.spec.initial) || orders.empty() ||
      orders.size() != R.size())
    return std::nullopt;
  double slope = std::numeric_limits<double>::infinity();
  for (std::size_t j = 0; j < orders.size(); ++j) {
    if (std::isnan(R[j])) return std::nullopt;
    // R_j >= alpha_j w (outward rounding); the quotient rounded to nearest, then up one double.
    const double q = R[j] / orders[j];
    slope = std::min(slope, q == 0.0 || std::isinf(q) ? q : std::nextafter(q, std::numeric_limits<double>::infinity()));
  }
  return slope;
}

double linear_rdp_at(double alpha, double slope) {
  const double r = alpha * slope;
  return r == 0.0 || !std::isfinite(r) ? r : std::nextafter(r, std::numeric_limits<double>::infinity());
}

EpsilonAtOrder row_epsilon(const RunConfig& config, const Engine& engine, std::span<const double> R, double delta,
                           bool* over_continuum) {
  // The epsilon of every command (accounting/bound_epsilon.hpp) of the outward-rounded row: over the
  // recorded orders and, when the bound is alpha w at every order, over alpha in [1.001, 1e4] and by
  // the zCDP route.
  const auto& orders = config.spec.orders;
  const std::optional<double> slope = linear_rdp_slope(config, engine, orders, R);
  RdpAtOrders at_any_order;
  if (slope)
    at_any_order = [w = *slope](std::span<const double> alphas) {
      std::vector<double> values;
      for (double alpha : alphas) values.push_back(linear_rdp_at(alpha, w));
      return values;
    };
  if (over_continuum) *over_continuum = slope.has_value();
  return epsilon_of_bound({orders, R, at_any_order, slope, std::nullopt, {}, {}}, delta).best;
}

}  // namespace rdpdyn

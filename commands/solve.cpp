#include "commands/solve.hpp"

#include "accounting/epsilon_delta.hpp"
#include "accounting/epsilon_over_orders.hpp"
#include "analyses/closed_form_curves.hpp"
#include "models/configured_solve.hpp"
#include "models/known_constants.hpp"
#include "models/spec_error.hpp"
#include "rdpdyn_version.hpp"

namespace rdpdyn {
namespace {

std::string lsi_model_name(LsiKind kind) {
  switch (kind) {
    case LsiKind::Constant: return "constant";
    case LsiKind::StronglyConvex: return "strongly-convex";
    case LsiKind::Recursion: return "recursion";
    case LsiKind::SquaredLoss: return "squared-loss";
    case LsiKind::Function: return "function";
    case LsiKind::ExactQuadratic: return "exact-quadratic";
  }
  return "unknown";
}

std::string gamma_mode(const RunSpec& spec) {
  for (const auto& p : spec.algorithm.phases)
    if (p.gamma) return "per-step";
  if (spec.gamma.is_field()) return "field";
  return spec.gamma.is_optimal() ? "optimal" : "fixed";
}

std::string gamma_text(const RunSpec& spec) {
  const std::string by_default = spec.gamma_by_default ? " (the default: analysis.gamma not given)" : "";
  if (spec.gamma.is_optimal()) return "pointwise minimiser min(1, sqrt(P/(Q (w + w_y))))" + by_default;
  if (spec.gamma_by_default) return "fixed 1/2" + by_default + ", C21 Thm 2's choice: the optimal gamma needs data linear in alpha on this engine";
  if (spec.gamma.is_field()) return "field gamma(alpha, t) = " + spec.gamma.description;
  return "fixed " + format_number(spec.gamma.value);
}

/// Keeps the record index (for the closed forms) and passes every record on to the sink.
class RecordKeeper final : public RecordObserver {
 public:
  explicit RecordKeeper(ReportSink* sink) : sink_(sink) {}
  Solution index;  // orders, times, steps, lsi constants; R stays empty
  void record(const EngineRecord& row) override {
    index.steps.push_back(row.step);
    index.times.push_back(row.t);
    index.lsi_constant.push_back(row.lsi_constant);
    if (sink_) sink_->record(row);
  }

 private:
  ReportSink* sink_;
};

}  // namespace

RunMetadata metadata_of(const RunConfig& config, const Engine& engine) {
  const RunSpec& spec = config.spec;
  RunMetadata m;
  m.config_text = config.text;
  m.config_path = config.path;
  m.program_version = kVersion;
  m.engine = engine.name();
  m.gamma_mode = gamma_mode(spec);
  m.algorithm = spec.algorithm.kind == AlgorithmKind::Langevin   ? "langevin"
                : spec.algorithm.kind == AlgorithmKind::NoisySgd ? "noisy-sgd"
                                                                 : "noisy-gd";
  m.lsi_model = lsi_model_name(spec.lsi.kind);
  m.initial_curve = initial_curve_kind(spec.initial);
  m.method = engine.method({spec.record, {config.integration_rtol}, config.grid}) + "; gamma: " + gamma_text(spec);
  ConstantProvenance constants = constant_provenance(spec);
  m.declared_constants = std::move(constants.declared);
  m.derived_constants = std::move(constants.derived);
  return m;
}

RunReport solve_run(const RunConfig& config, const EngineRegistry& engines, ReportSink* sink) {
  const RunSpec& spec = config.spec;
  const Engine& engine = configured_engine(config, engines);
  RunReport report;
  report.metadata = metadata_of(config, engine);
  if (sink) sink->begin(report.metadata, spec.orders, engine.row_series());
  RecordKeeper keeper(sink);
  keeper.index.orders = spec.orders;
  EngineSummary summary = solve_configured_run(config, engines, keeper);
  report.per_order = std::move(summary.per_order);
  report.extra_attributes = std::move(summary.attributes);

  if (spec.report_delta) {
    // The improved conversion (Balle et al. 2020, arXiv:1905.09982, Thm 21) of the outward-rounded
    // final row, minimised over the recorded orders and, when the bound is alpha w at every order
    // (models/configured_solve.hpp), over alpha in [1.001, 1e4] (accounting/epsilon_over_orders.hpp).
    EpsilonAtOrder eo = minimise_epsilon_on_grid(spec.orders, summary.final_R, *spec.report_delta);
    const std::optional<double> slope = linear_rdp_slope(config, spec.orders, summary.final_R);
    if (slope) {
      const EpsilonAtOrder continuous =
          minimise_epsilon([w = *slope](double alpha) { return linear_rdp_at(alpha, w); }, *spec.report_delta);
      if (continuous.epsilon < eo.epsilon) eo = continuous;
    }
    auto& a = report.extra_attributes;
    a["delta"] = format_number(*spec.report_delta);
    a["epsilon"] = format_number(eo.epsilon);
    a["best_order"] = format_number(eo.order);
    a["epsilon_conversion"] =
        std::string("improved RDP conversion (Balle et al. 2020 Thm 21; Canonne, Kamath, Steinke 2020), rounded "
                    "outward, at the final time, minimised over ") +
        (slope ? "alpha in [1.001, 10000] (R = alpha w, data linear in alpha) and the recorded orders"
               : "the recorded orders");
  }
  const std::vector<ClosedFormCurves> closed_forms = applicable_closed_forms(spec, keeper.index);
  if (sink) sink->finish(closed_forms, report.per_order, report.extra_attributes);

  // The final record: what the JSON summary and the table print.
  const Solution& ix = keeper.index;
  report.solution.orders = ix.orders;
  if (ix.record_count() == 0) return report;  // ranks other than 0 of a distributed solve
  const std::size_t last = ix.record_count() - 1, K = ix.orders.size();
  report.solution.times = {ix.times[last]};
  report.solution.steps = {ix.steps[last]};
  report.solution.lsi_constant = {ix.lsi_constant[last]};
  report.solution.R = summary.final_R;
  for (const auto& cf : closed_forms)
    report.closed_forms.push_back({cf.name, cf.citation, cf.role,
                                   std::vector<double>(cf.R.begin() + static_cast<std::ptrdiff_t>(last * K), cf.R.end())});
  return report;
}

}  // namespace rdpdyn

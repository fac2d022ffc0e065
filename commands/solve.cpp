#include "commands/solve.hpp"

#include "accounting/epsilon_delta.hpp"
#include "analyses/closed_form_curves.hpp"
#include "models/configured_solve.hpp"
#include "models/known_constants.hpp"
#include "models/privacy_model.hpp"
#include "numerics/spec_error.hpp"
#include "rdpdyn_version.hpp"

namespace rdpdyn {
namespace {

std::string gamma_mode(const RunSpec& spec) {
  for (const auto& p : spec.algorithm.phases)
    if (p.gamma) return "per-step";
  if (spec.gamma.is_field()) return "field";
  return spec.gamma.is_optimal() ? "optimal" : "fixed";
}

std::string gamma_text(const RunSpec& spec) {
  const std::string by_default = spec.gamma_by_default ? " (the default: analysis.gamma not given)" : "";
  if (spec.gamma.is_optimal()) return "pointwise minimiser min(1, sqrt(P/(Q (w + w_y))))" + by_default;
  if (spec.gamma_by_default)
    return "fixed 1/2" + by_default +
           ", C21 Thm 2's choice: the optimal gamma needs data linear in alpha on this engine";
  if (spec.gamma.is_field()) return "field gamma(alpha, t) = " + spec.gamma.description();
  return "fixed " + format_number(spec.gamma.value);
}

/// Evaluates the closed forms at each record, passes both on to the sink and keeps the last
/// record (its R is EngineSummary::final_R).
class RecordKeeper final : public RecordObserver {
 public:
  RecordKeeper(const RunSpec& spec, ReportSink* sink) : closed_forms(spec), sink_(sink) {}
  ClosedFormRows closed_forms;
  bool recorded = false;
  std::int64_t last_step = 0;
  double last_t = 0.0, last_lsi_constant = 0.0;

  void record(const EngineRecord& row) override {
    const auto& rows = closed_forms.evaluate(row.step, row.t);
    recorded = true;
    last_step = row.step;
    last_t = row.t;
    last_lsi_constant = row.lsi_constant;
    if (!sink_) return;
    spans_.assign(rows.begin(), rows.end());
    sink_->record(row, spans_);
  }

 private:
  ReportSink* sink_;
  std::vector<std::span<const double>> spans_;
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
  m.algorithm = spec.algorithm.kind == AlgorithmKind::Pdi        ? "pdi"
                : spec.algorithm.kind == AlgorithmKind::Langevin ? "langevin"
                : spec.algorithm.kind == AlgorithmKind::NoisySgd ? "noisy-sgd"
                                                                 : "noisy-gd";
  m.lsi_model = lsi_kind_name(spec.lsi.kind);
  m.initial_curve = initial_curve_kind(spec.initial);
  m.method = engine.method({spec.record, {config.integration_rtol}, config.grid}) + "; gamma: " + gamma_text(spec);
  ConstantProvenance constants = constant_provenance(spec);
  m.declared_constants = std::move(constants.declared);
  m.derived_constants = std::move(constants.derived);
  m.terms = run_terms(spec);
  const BatchSampling s = spec.algorithm.sampling;
  if (spec.algorithm.kind == AlgorithmKind::NoisySgd &&
      (s == BatchSampling::Partition || s == BatchSampling::ShuffleOnce || s == BatchSampling::Shuffle))
    m.quantity =
        "R is the worst case over where the differing record falls (the maximum over its batch positions); "
        "`rdpdyn compare` also gives pdi averaged over the placements of the random batches, often lower "
        "(docs/analyses.md, pdi)";
  return m;
}

RunReport solve_run(const RunConfig& config, const EngineRegistry& engines, ReportSink* sink,
                    const StepProgress& progress) {
  const RunSpec& spec = config.spec;
  if (spec.records_per_user > 1)
    throw SpecError("domain.records_per_user", std::to_string(spec.records_per_user),
                    "solve reports the record-level R of the PDI; `rdpdyn compare` gives user-level bounds (group "
                    "privacy, docs/analyses.md \"Users: group privacy\")");
  const Engine& engine = configured_engine(config, engines);
  RunReport report;
  report.metadata = metadata_of(config, engine);
  RecordKeeper keeper(spec, sink);
  if (sink) sink->begin(report.metadata, spec.orders, engine.row_series(), keeper.closed_forms.labels());
  EngineSummary summary = solve_configured_run(config, engines, keeper, progress);
  report.per_order = std::move(summary.per_order);
  report.extra_attributes = std::move(summary.attributes);

  if (spec.report_delta) {
    // The outward-rounded final row converted (models/configured_solve.hpp, row_epsilon).
    bool slope = false;
    const EpsilonAtOrder eo = row_epsilon(config, engine, summary.final_R, *spec.report_delta, &slope);
    auto& a = report.extra_attributes;
    a["delta"] = format_number(*spec.report_delta);
    a["epsilon"] = format_number(eo.epsilon);
    a["best_order"] = format_number(eo.order);
    a["conversion"] = conversion_name(eo.conversion);
    a["epsilon_conversion"] =
        std::string(
            "smallest of the RDP conversions (Mironov 2017 Prop. 3; Balle et al. 2020 Thm 21 = Canonne, "
            "Kamath, Steinke 2020 Prop. 12; Asoodeh et al. 2021") +
        (slope ? "; the zCDP route, Bun & Steinke 2016 Prop. 1.3 and CKS 2020 Cor. 13" : "") +
        "), rounded outward, at the final time, minimised over " +
        (slope ? "alpha in [1.001, 10000] (R = alpha w, data linear in alpha) and the recorded orders"
               : "the recorded orders") +
        "; attribute conversion names the one attaining epsilon";
  }
  if (spec.report_epsilon) {
    // delta at [report] epsilon: the smallest of the single-order conversions in their delta form
    // (rdp_to_delta, rounded outward) over the recorded orders of the outward-rounded final row.
    const DeltaAtOrder d = best_delta(spec.orders, summary.final_R, *spec.report_epsilon, RdpConversion::Best);
    auto& a = report.extra_attributes;
    a["report_epsilon"] = format_number(*spec.report_epsilon);
    a["delta_at_epsilon"] = format_number(d.delta);
    a["delta_at_epsilon_order"] = format_number(d.order);
  }
  if (sink) sink->finish(report.per_order, report.extra_attributes);

  // The final record: what the JSON summary and the table print.
  report.solution.orders = spec.orders;
  if (!keeper.recorded) return report;  // ranks other than 0 of a distributed solve
  report.solution.times = {keeper.last_t};
  report.solution.steps = {keeper.last_step};
  report.solution.lsi_constant = {keeper.last_lsi_constant};
  report.solution.R = summary.final_R;
  const auto& labels = keeper.closed_forms.labels();
  for (std::size_t i = 0; i < labels.size(); ++i)
    report.closed_forms.push_back({labels[i].name, labels[i].citation, labels[i].role, keeper.closed_forms.rows()[i]});
  return report;
}

}  // namespace rdpdyn

#include "io/run.hpp"

#include <cmath>
#include <memory>
#include <stdexcept>

#include "io/hdf5_output.hpp"
#include "models/privacy_model.hpp"
#include "models/spec_error.hpp"
#include "rdpdyn_version.hpp"
#include "solver/characteristics_engine.hpp"
#include "solver/finite_difference_engine.hpp"
#include "solver/mini_batch_worst_case.hpp"
#include "models/epsilon_delta.hpp"
#include "validation/closed_form_catalog.hpp"

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
  if (spec.gamma.is_optimal()) return "pointwise minimiser min(1, sqrt(P/(Q (w + w_y))))";
  if (spec.gamma.is_field()) return "field gamma(alpha, t) = " + spec.gamma.description;
  return "fixed " + format_number(spec.gamma.value);
}

RunMetadata metadata_of(const RunConfig& config) {
  const RunSpec& spec = config.spec;
  RunMetadata m;
  m.config_text = config.text;
  m.config_path = config.path;
  m.program_version = kVersion;
  m.engine = config.engine;
  m.gamma_mode = gamma_mode(spec);
  m.algorithm = spec.algorithm.kind == AlgorithmKind::Langevin   ? "langevin"
                : spec.algorithm.kind == AlgorithmKind::NoisySgd ? "noisy-sgd"
                                                                 : "noisy-gd";
  m.lsi_model = lsi_model_name(spec.lsi.kind);
  m.initial_curve = initial_curve_kind(spec.initial);
  if (config.engine == "characteristics") {
    m.method =
        "method of characteristics in y = ln(alpha-1), w = R/alpha (C21 eq. (13), math.md s.2): "
        "exact closed forms per interval for constant and Gaussian-convolution LSI schedules; "
        "Boost.Odeint Dormand-Prince 5(4) with rtol = " + format_number(config.integration_rtol) +
        " and a conservative a-posteriori bias for function schedules; tabulated initial data "
        "interpolated from above (monotone in alpha, chord of the convex (alpha-1) R_alpha); gamma: " +
        gamma_text(spec);
  } else {
    const auto& g = config.grid;
    m.method =
        "finite differences (method of lines) on a PETSc DMDA over y = ln(alpha-1): " +
        std::to_string(g.cells) + " cells, limiter " + limiter_name(g.limiter) + ", cfl " +
        format_number(g.cfl) + ", TS SSP-RK3 (4 stages) unless -ts_type says otherwise; inflow "
        "closure R(alpha < alpha_min) <= R(alpha_min). /R is CERTIFIED: each value integrates the "
        "linear PDI exactly along a characteristic (Boost.Odeint, rtol = " +
        format_number(config.integration_rtol) + ", conservative bias) with the gamma field of the "
        "finite-difference solution, landing at or above the order; the finite-difference value "
        "is /extras/R_finite_difference. gamma: " + gamma_text(spec);
  }
  return m;
}

/// Keeps the record index (for the closed forms) and the last row (for the summaries).
struct RecordKeeper {
  Solution index;  // orders, times, steps, lsi constants; R stays empty
  std::vector<double> last_row;
  void add(std::int64_t step, double t, double c, std::span<const double> R) {
    index.steps.push_back(step);
    index.times.push_back(t);
    index.lsi_constant.push_back(c);
    last_row.assign(R.begin(), R.end());
  }
};

/// The final-record report from the keeper and the full closed forms.
RunReport final_report(const RecordKeeper& keeper, const std::vector<ClosedFormCurves>& closed_forms,
                       RunMetadata metadata) {
  RunReport report;
  report.metadata = std::move(metadata);
  const Solution& ix = keeper.index;
  report.solution.orders = ix.orders;
  if (ix.record_count() == 0) return report;  // ranks other than 0 of a distributed solve
  const std::size_t last = ix.record_count() - 1, K = ix.orders.size();
  report.solution.times = {ix.times[last]};
  report.solution.steps = {ix.steps[last]};
  report.solution.lsi_constant = {ix.lsi_constant[last]};
  report.solution.R = keeper.last_row;
  for (const auto& cf : closed_forms)
    report.closed_forms.push_back({cf.name, cf.citation, cf.role,
                                   std::vector<double>(cf.R.begin() + static_cast<std::ptrdiff_t>(last * K), cf.R.end())});
  return report;
}

}  // namespace

RunReport solve_run(const RunConfig& config, const std::optional<std::filesystem::path>& hdf5_output,
                    MPI_Comm comm) {
  const RunSpec& spec = config.spec;
  if (spec.adjacency == Adjacency::Remove)
    throw SpecError("domain.adjacency", "\"remove\"",
                    "the PDI is derived for replace-one neighbours (same dataset size, C21 Sec. 2): use "
                    "\"replace\" here, or `rdpdyn compare` for the accountants of remove-one neighbours");
  const PrivacyProgram program = build_program(spec);
  int rank = 0;
  int mpi_up = 0;
  MPI_Initialized(&mpi_up);
  if (mpi_up) MPI_Comm_rank(comm, &rank);
  const RunMetadata metadata = metadata_of(config);
  const bool fd = config.engine == "finite-difference";

  std::unique_ptr<Hdf5ReportStream> stream;
  if (hdf5_output && rank == 0) {
    std::vector<RowSeriesSpec> series;
    if (fd) {
      series.push_back({"R_finite_difference", "finite-difference value of R (not certified)", kUnitsRdp});
      series.push_back({"certified_landing_order",
                        "order reached by the characteristic behind each certified value (>= the "
                        "order; R is non-decreasing in alpha)", kUnitsOrder});
    }
    stream = std::make_unique<Hdf5ReportStream>(*hdf5_output, spec.orders, metadata, series);
  }
  RecordKeeper keeper;
  keeper.index.orders = spec.orders;
  IntegrationTolerance tol;
  tol.relative = config.integration_rtol;

  std::vector<PerOrderVector> per_order;
  std::map<std::string, std::string> attributes;
  try {
    if (spec.algorithm.kind == AlgorithmKind::NoisySgd) {
      // Worst case over the differing record's batch, solved per placement then combined.
      const Solution worst = solve_noisy_sgd_worst_case(spec, {spec.record, tol});
      for (std::size_t r = 0; r < worst.record_count(); ++r) {
        keeper.add(worst.steps[r], worst.times[r], worst.lsi_constant[r], worst.row(r));
        if (stream) stream->append_record(worst.steps[r], worst.times[r], worst.lsi_constant[r], worst.row(r));
      }
    } else if (!fd) {
      CharacteristicsOptions options{spec.record, tol};
      solve_by_characteristics(program, spec.initial, spec.orders, options,
                               [&](std::int64_t step, double t, double c, std::span<const double> R) {
                                 keeper.add(step, t, c, R);
                                 if (stream) stream->append_record(step, t, c, R);
                               });
    } else {
      FiniteDifferenceOptions options{config.grid, spec.record, tol};
      const FiniteDifferenceSummary summary = solve_by_finite_differences(
          comm, program, spec.initial, spec.orders, options,
          [&](std::int64_t step, double t, double c, std::span<const double> certified,
              std::span<const double> finite_difference, std::span<const double> landing) {
            keeper.add(step, t, c, certified);
            if (stream) stream->append_record(step, t, c, certified, {finite_difference, landing});
          });
      per_order.push_back({"boundary_influenced",
                           "1 where the inflow closure at alpha_min can reach the order (the "
                           "finite-difference value there depends on it; the certified /R does not)",
                           summary.boundary_influenced});
      attributes["fd_cells"] = std::to_string(config.grid.cells);
      attributes["fd_dy"] = format_number(summary.dy);
      attributes["fd_time_steps"] = std::to_string(summary.time_steps);
      attributes["fd_max_relative_gap"] = format_number(summary.max_relative_gap);
      attributes["fd_inflow_reach_alpha"] = format_number(1.0 + std::exp(summary.inflow_reach_y));
    }
  } catch (const std::domain_error& e) {  // a user function left its domain
    const bool gamma = std::string(e.what()).rfind("gamma", 0) == 0;
    throw SpecError(gamma ? "analysis.gamma" : "lsi.c",
                    "\"" + (gamma ? spec.gamma.description : spec.lsi.function.description) + "\"", e.what());
  }

  if (spec.report_delta && rank == 0 && !keeper.last_row.empty()) {
    const EpsilonAtOrder eo = best_epsilon(spec.orders, keeper.last_row, *spec.report_delta);
    attributes["delta"] = format_number(*spec.report_delta);
    attributes["epsilon"] = format_number(eo.epsilon);
    attributes["best_order"] = format_number(eo.order);
    attributes["epsilon_conversion"] =
        "improved RDP conversion (Balle et al. 2020 Thm 21; Canonne, Kamath, Steinke 2020) at the final "
        "time, minimised over the orders";
  }
  std::vector<ClosedFormCurves> closed_forms;
  if (rank == 0) {
    closed_forms = applicable_closed_forms(spec, keeper.index);
    if (stream) stream->finish(closed_forms, per_order, attributes);
  }
  RunReport report = final_report(keeper, closed_forms, metadata);
  report.per_order = per_order;
  report.extra_attributes = attributes;
  return report;
}

}  // namespace rdpdyn

#include "io/compare.hpp"

#include <H5Cpp.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>

#include "io/atomic_output.hpp"
#include "io/run.hpp"
#include "io/run_report.hpp"
#include "models/altschuler_talwar.hpp"
#include "models/chourasia_analyses.hpp"
#include "models/composition_accountants.hpp"
#include "models/epsilon_delta.hpp"
#include "models/privacy_model.hpp"
#include "models/spec_error.hpp"
#include "models/ye_shokri.hpp"
#include "rdpdyn_version.hpp"

namespace rdpdyn {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

/// This tool's own solution of the configured run (the `solve` engine, final time).
AnalysisResult pdi_analysis(const RunConfig& config, MPI_Comm comm) {
  AnalysisResult r{"pdi", "this tool: the PDI of C21 eq. (13) solved for the configured run", true, "", {}};
  if (config.spec.adjacency == Adjacency::Remove) {
    r.applies = false;
    r.reason = "the PDI is derived for replace-one neighbours (same dataset size, C21 Sec. 2); the run uses adjacency = remove";
    return r;
  }
  try {
    const RunReport report = solve_run(config, std::nullopt, comm);
    r.R = report.solution.R;
    // A distributed solve leaves the rows on rank 0: share them, so that every rank compares
    // (and calibrates) the same curves.
    int mpi_up = 0, size = 1;
    MPI_Initialized(&mpi_up);
    if (mpi_up) MPI_Comm_size(comm, &size);
    if (size > 1) {
      r.R.resize(config.spec.orders.size());
      MPI_Bcast(r.R.data(), static_cast<int>(r.R.size()), MPI_DOUBLE, 0, comm);
    }
    r.reason = "engine " + config.engine + ", gamma " + report.metadata.gamma_mode;
    if (config.spec.algorithm.kind == AlgorithmKind::NoisySgd)
      r.reason += "; worst case over the differing record's batch (joint quasi-convexity)";
  } catch (const std::invalid_argument& e) {
    r.applies = false;
    r.reason = e.what();
  }
  return r;
}

using Analysis = std::function<AnalysisResult(const RunSpec&, const TrainingRun&)>;

/// The catalogue, in the stable order of the output.
std::vector<Analysis> catalogue() {
  return {
      chourasia_thm2,
      chourasia_cor1,
      chourasia_cor2,
      [](const RunSpec&, const TrainingRun& run) { return ye_shokri::thm3_3(run); },
      [](const RunSpec&, const TrainingRun& run) { return ye_shokri::thm4_2(run); },
      [](const RunSpec&, const TrainingRun& run) { return ye_shokri::thm4_3(run); },
      [](const RunSpec&, const TrainingRun& run) { return ye_shokri::d6(run); },
      [](const RunSpec&, const TrainingRun& run) { return altschuler_talwar_b1(run); },
      [](const RunSpec&, const TrainingRun& run) { return altschuler_talwar_b2(run); },
      [](const RunSpec&, const TrainingRun& run) { return altschuler_talwar_b3(run); },
      [](const RunSpec&, const TrainingRun& run) { return pabi_strongly_convex(run); },
      [](const RunSpec&, const TrainingRun& run) { return composition_gaussian(run); },
      [](const RunSpec&, const TrainingRun& run) { return composition_sgm(run); },
  };
}

/// Analyses of identical initial laws without events: every paper's setting.
std::string paper_setting_failure(const RunSpec& spec) {
  if (!std::holds_alternative<ZeroCurve>(spec.initial)) return "needs identical initial laws (R_0 = 0)";
  if (!spec.events.empty()) return "needs a run without boundary events";
  if (spec.algorithm.kind == AlgorithmKind::Langevin) return "stated for discrete steps; the run is a Langevin diffusion";
  if (spec.algorithm.phases.size() > 1) return "needs one step size and one noise level";
  return "";
}

}  // namespace

Comparison run_comparison(const RunConfig& config, MPI_Comm comm) {
  const RunSpec& spec = config.spec;
  const TrainingRun run = training_run_of(spec);
  Comparison c;
  c.orders = spec.orders;
  c.delta = spec.report_delta;
  const std::string setting = paper_setting_failure(spec);
  for (const auto& analysis : catalogue()) {
    AnalysisResult r = setting.empty() ? analysis(spec, run) : AnalysisResult{};
    if (!setting.empty()) {
      r = analysis(spec, run);
      r.applies = false;
      r.R.clear();
      r.reason = setting;
    }
    c.entries.push_back({std::move(r), kNaN, kNaN});
  }
  c.entries.push_back({pdi_analysis(config, comm), kNaN, kNaN});

  c.best_R.assign(c.orders.size(), std::numeric_limits<double>::infinity());
  double best_key = std::numeric_limits<double>::infinity();
  for (auto& e : c.entries) {
    if (!e.result.applies) continue;
    if (c.delta) {
      const EpsilonAtOrder eo = best_epsilon(c.orders, e.result.R, *c.delta);
      e.epsilon = eo.epsilon;
      e.best_order = eo.order;
    }
    for (std::size_t j = 0; j < c.orders.size(); ++j) c.best_R[j] = std::min(c.best_R[j], e.result.R[j]);
    const double key = c.delta ? e.epsilon : e.result.R.back();
    if (key < best_key) {
      best_key = key;
      c.best_name = e.result.name;
    }
  }
  if (spec.quadratic && spec.algorithm.kind == AlgorithmKind::NoisyGd && spec.algorithm.phases.size() == 1) {
    const std::vector<double> slopes = quadratic::worst_case_rdp_slopes(quadratic_problem_of(spec), run.steps);
    for (double alpha : c.orders) c.exact_R.push_back(alpha * slopes.back());
  }
  c.best_epsilon = kNaN;
  c.best_order = kNaN;
  if (c.delta && !c.best_name.empty()) {
    const EpsilonAtOrder eo = best_epsilon(c.orders, c.best_R, *c.delta);
    c.best_epsilon = eo.epsilon;
    c.best_order = eo.order;
  }
  return c;
}

namespace {
nlohmann::json number_or_null(double x) { return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(); }
nlohmann::json numbers(const std::vector<double>& v) {
  auto a = nlohmann::json::array();
  for (double x : v) a.push_back(number_or_null(x));
  return a;
}
}  // namespace

std::string comparison_to_json(const Comparison& c) {
  nlohmann::json j;
  j["orders"] = c.orders;
  j["delta"] = c.delta ? nlohmann::json(*c.delta) : nlohmann::json();
  j["analyses"] = nlohmann::json::array();
  for (const auto& e : c.entries)
    j["analyses"].push_back({{"name", e.result.name},
                             {"applies", e.result.applies},
                             {"reason", e.result.reason},
                             {"citation", e.result.citation},
                             {"R", numbers(e.result.R)},
                             {"epsilon", number_or_null(e.epsilon)},
                             {"best_order", number_or_null(e.best_order)}});
  j["best"] = {{"name", c.best_name},
               {"R", numbers(c.best_R)},
               {"epsilon", number_or_null(c.best_epsilon)},
               {"best_order", number_or_null(c.best_order)}};
  if (!c.exact_R.empty()) j["exact"] = {{"name", "quadratic-exact"}, {"R", numbers(c.exact_R)}};
  return j.dump();
}

std::string comparison_table(const Comparison& c) {
  std::ostringstream out;
  char buf[256];
  std::snprintf(buf, sizeof buf, "%-26s %-9s", "analysis", "applies");
  out << buf;
  for (double a : c.orders) {
    std::snprintf(buf, sizeof buf, " %12s", ("R@" + format_number(a)).c_str());
    out << buf;
  }
  out << (c.delta ? "      epsilon" : "") << "\n";
  for (const auto& e : c.entries) {
    const bool best = e.result.applies && e.result.name == c.best_name;
    std::snprintf(buf, sizeof buf, "%-26s %-9s", (e.result.name + (best ? " *" : "")).c_str(),
                  e.result.applies ? "yes" : "no");
    out << buf;
    if (e.result.applies) {
      for (double r : e.result.R) {
        std::snprintf(buf, sizeof buf, " %12.5g", r);
        out << buf;
      }
      if (c.delta) {
        std::snprintf(buf, sizeof buf, " %12.5g", e.epsilon);
        out << buf;
      }
      out << "\n";
    } else {
      out << "  " << e.result.reason << "\n";
    }
  }
  out << "* tightest valid analysis";
  if (c.delta) out << " (smallest epsilon at delta = " << format_number(*c.delta) << ")";
  out << "; pointwise minimum over the valid analyses:";
  for (double r : c.best_R) {
    std::snprintf(buf, sizeof buf, " %.5g", r);
    out << buf;
  }
  if (c.delta) {
    std::snprintf(buf, sizeof buf, "  (epsilon %.5g at alpha = %g)", c.best_epsilon, c.best_order);
    out << buf;
  }
  out << "\n";
  if (!c.exact_R.empty()) {
    out << "exact divergence of the worst pair (quadratic loss; a lower bound of every valid analysis):";
    for (double r : c.exact_R) {
      std::snprintf(buf, sizeof buf, " %.5g", r);
      out << buf;
    }
    out << "\n";
  }
  return out.str();
}

namespace {

void string_attribute(const H5::H5Object& o, const char* name, const std::string& value) {
  const H5::StrType type(H5::PredType::C_S1, H5T_VARIABLE);
  o.createAttribute(name, type, H5::DataSpace(H5S_SCALAR)).write(type, value);
}
void number_attribute(const H5::H5Object& o, const char* name, double value) {
  o.createAttribute(name, H5::PredType::IEEE_F64LE, H5::DataSpace(H5S_SCALAR)).write(H5::PredType::NATIVE_DOUBLE, &value);
}
H5::DataSet vector_dataset(const H5::Group& g, const std::string& name, const std::vector<double>& v) {
  const hsize_t dims[1] = {static_cast<hsize_t>(v.size())};
  H5::DataSet d = g.createDataSet(name, H5::PredType::IEEE_F64LE, H5::DataSpace(1, dims));
  if (!v.empty()) d.write(v.data(), H5::PredType::NATIVE_DOUBLE);
  return d;
}

}  // namespace

void write_comparison_hdf5(const std::filesystem::path& path, const Comparison& c, const RunConfig& config) {
  write_atomically(path, [&](const std::filesystem::path& tmp) {
    try {
      H5::Exception::dontPrint();
      H5::H5File file(tmp.string(), H5F_ACC_TRUNC);
      string_attribute(file, "program", "rdpdyn");
      string_attribute(file, "command", "compare");
      string_attribute(file, "program_version", kVersion);
      string_attribute(file, "config", config.text);
      string_attribute(file, "config_path", config.path);
      string_attribute(file, "units_R", kUnitsRdp);
      string_attribute(file, "units_orders", kUnitsOrder);
      number_attribute(file, "delta", c.delta ? *c.delta : kNaN);
      string_attribute(file, "epsilon_conversion",
                       "improved conversion (Balle et al. 2020 Thm 21; Canonne, Kamath, Steinke 2020), best order of /orders");
      vector_dataset(file, "orders", c.orders);
      H5::Group analyses = file.createGroup("analyses");
      for (const auto& e : c.entries) {
        H5::DataSet d = vector_dataset(analyses, e.result.name, e.result.R);
        number_attribute(d, "applies", e.result.applies ? 1.0 : 0.0);
        string_attribute(d, "reason", e.result.reason);
        string_attribute(d, "citation", e.result.citation);
        number_attribute(d, "epsilon", e.epsilon);
        number_attribute(d, "best_order", e.best_order);
      }
      H5::Group best = file.createGroup("best");
      H5::DataSet d = vector_dataset(best, "R", c.best_R);
      string_attribute(d, "name", c.best_name);
      string_attribute(d, "description", "pointwise minimum over the valid analyses");
      number_attribute(d, "epsilon", c.best_epsilon);
      number_attribute(d, "best_order", c.best_order);
    } catch (const H5::Exception& e) {
      throw std::runtime_error("HDF5 comparison '" + path.string() + "': " + e.getDetailMsg());
    }
  });
}

}  // namespace rdpdyn

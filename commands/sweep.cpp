#include "commands/sweep.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

#include "commands/compare.hpp"
#include "models/privacy_model.hpp"
#include "numerics/spec_error.hpp"

namespace rdpdyn {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

SweepSurface empty_surface(const std::string& name, std::size_t points, std::size_t orders) {
  SweepSurface s;
  s.name = name;
  if (name == kBestAnalysis) {
    s.citation = "per point, the tightest analysis eligible for best in `rdpdyn compare` (docs/analyses.md)";
    s.status = "per point";
    s.status_note = "the status of the analysis named in `chosen` at each point";
    s.chosen.assign(points, "");
  } else {
    const Analysis& a = *find_analysis(name);
    s.citation = a.citation;
    s.status = status_name(a.status);
    s.status_note = status_note_of(a);
  }
  s.R.assign(points * orders, kNaN);
  s.epsilon.assign(points, kNaN);
  s.best_order.assign(points, kNaN);
  s.conversion.assign(points, "");
  s.reason.assign(points, "not evaluated by this process");
  return s;
}

/// One registered analysis at one valid point.
void evaluate_analysis(const Analysis& analysis, const AnalysisInput& input, std::span<const double> orders,
                       std::optional<double> delta, SweepSurface& s, std::size_t point) {
  ComparisonEntry e;
  e.result = analysis.assess(input, orders);
  if (!e.result.applies) {
    s.reason[point] = e.result.reason.empty() ? "does not apply" : e.result.reason;
    return;
  }
  std::copy(e.result.R.begin(), e.result.R.end(), s.R.begin() + static_cast<std::ptrdiff_t>(point * orders.size()));
  if (delta) {
    assign_epsilon(e, analysis, input, orders, *delta);
    s.epsilon[point] = e.epsilon;
    s.best_order[point] = e.best_order;
    s.conversion[point] = e.conversion;
  }
  s.reason[point].clear();
}

/// The tightest eligible analysis at one valid point, as `compare` picks it.
void evaluate_best(const RunConfig& config, const EngineRegistry& engines, SweepSurface& s, std::size_t point) {
  const Comparison c = run_comparison(config, engines, {}, /*curves=*/false);  // epsilon only
  if (c.best_name.empty()) {
    s.reason[point] = "no analysis eligible for best applies";
    return;
  }
  std::copy(c.best_R.begin(), c.best_R.end(), s.R.begin() + static_cast<std::ptrdiff_t>(point * c.orders.size()));
  s.epsilon[point] = c.best_epsilon;
  s.best_order[point] = c.best_order;
  s.conversion[point] = c.best_conversion;
  s.chosen[point] = c.best_name;
  s.reason[point].clear();
}

}  // namespace

std::size_t SweepSpec::point_count() const {
  std::size_t n = 1;
  for (const auto& a : axes) n *= a.values.size();
  return n;
}

std::vector<double> SweepSpec::point(std::size_t index) const {
  std::vector<double> v(axes.size());
  for (std::size_t i = axes.size(); i-- > 0;) {
    v[i] = axes[i].values[index % axes[i].values.size()];
    index /= axes[i].values.size();
  }
  return v;
}

void check_sweep_analyses(const SweepSpec& spec) {
  if (spec.analyses.empty()) throw SpecError("sweep.analyses", "[]", "must name at least one analysis");
  for (std::size_t i = 0; i < spec.analyses.size(); ++i) {
    const std::string& name = spec.analyses[i];
    if (name != kBestAnalysis && !find_analysis(name))
      throw SpecError("sweep.analyses[" + std::to_string(i) + "]", "\"" + name + "\"",
                      unknown_analysis_rule(name, true));
    if (std::find(spec.analyses.begin(), spec.analyses.begin() + static_cast<std::ptrdiff_t>(i), name) !=
        spec.analyses.begin() + static_cast<std::ptrdiff_t>(i))
      throw SpecError("sweep.analyses[" + std::to_string(i) + "]", "\"" + name + "\"", "is listed twice");
  }
}

SweepResult run_sweep(const SweepSpec& spec, std::span<const double> orders, const PointConfiguration& configure,
                      const EngineRegistry& engines, std::span<const std::size_t> points,
                      const SweepProgress& progress) {
  check_sweep_analyses(spec);
  const std::size_t total = spec.point_count(), K = orders.size();
  SweepResult out;
  out.spec = spec;
  out.orders.assign(orders.begin(), orders.end());
  out.delta.assign(total, kNaN);
  out.computed.assign(total, 0);
  out.invalid.assign(total, "");
  for (const auto& name : spec.analyses) out.surfaces.push_back(empty_surface(name, total, K));

  std::size_t done = 0;
  for (const std::size_t p : points) {
    out.computed[p] = 1;
    std::string invalid;
    std::optional<RunConfig> config;
    try {
      config = configure(spec.point(p));
      if (!std::equal(config->spec.orders.begin(), config->spec.orders.end(), orders.begin(), orders.end()))
        invalid = "the orders differ from the sweep's (they are the last dimension of R)";
    } catch (const SpecError& e) {  // the point breaks a rule
      invalid = e.what();
    }
    out.invalid[p] = invalid;
    if (invalid.empty()) {
      out.delta[p] = config->spec.report_delta.value_or(kNaN);
      const TrainingRun run = training_run_of(config->spec);
      const AnalysisInput input{*config, run, engines};
      for (auto& s : out.surfaces) {
        try {
          if (s.name == kBestAnalysis)
            evaluate_best(*config, engines, s, p);
          else
            evaluate_analysis(*find_analysis(s.name), input, orders, config->spec.report_delta, s, p);
        } catch (const SpecError& e) {  // refused by an engine, by its key
          s.reason[p] = e.what();
        } catch (const std::domain_error& e) {  // a user function left its domain
          s.reason[p] = e.what();
        }
      }
    } else {
      for (auto& s : out.surfaces) s.reason[p] = "invalid configuration: " + invalid;
    }
    if (progress) progress(++done, points.size());
  }
  return out;
}

std::size_t SweepResult::valid_points() const {
  std::size_t n = 0;
  for (std::size_t p = 0; p < computed.size(); ++p) n += computed[p] && invalid[p].empty();
  return n;
}

std::string SweepResult::first_invalid() const {
  for (std::size_t p = 0; p < computed.size(); ++p)
    if (computed[p] && !invalid[p].empty()) return invalid[p];
  return "";
}

std::vector<int> balance_points(std::span<const double> costs, int ranks) {
  std::vector<std::size_t> order(costs.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return costs[a] > costs[b]; });
  std::vector<double> load(static_cast<std::size_t>(std::max(ranks, 1)), 0.0);
  std::vector<int> owner(costs.size(), 0);
  for (const std::size_t p : order) {
    const auto r = static_cast<std::size_t>(std::min_element(load.begin(), load.end()) - load.begin());
    owner[p] = static_cast<int>(r);
    load[r] += costs[p];
  }
  return owner;
}

}  // namespace rdpdyn

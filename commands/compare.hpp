#pragma once
// `rdpdyn compare`: every registered analysis of the configured run side by side (analyses/
// registry.cpp), with its status, the reason each one that does not apply gives, epsilon at the
// requested delta, delta at the requested epsilon, the privacy profiles and trade-off curves of the
// entries that know them, and the tightest bound among the trusted ones.
#include <functional>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "accounting/epsilon_delta.hpp"
#include "commands/run_terms.hpp"
#include "analyses/analysis.hpp"
#include "models/known_constants.hpp"
#include "models/run_config.hpp"
#include "solver/engine.hpp"

namespace rdpdyn {

struct ComparisonEntry {
  AnalysisResult result;
  AnalysisStatus status = AnalysisStatus::Published;  ///< for this run
  std::string status_note;                            ///< disputed: where the gap is; derived: where the derivation is
  /// At the report delta: the smallest of the RDP -> (epsilon, delta) conversions (Mironov,
  /// improved, Asoodeh et al. at each order; the zCDP route when R = alpha slope) minimised over
  /// the orders (continuous where the bound is known at any order, see epsilon_orders); NaN
  /// without delta.
  double epsilon = 0.0;
  /// The conversion attaining epsilon: "improved", "asoodeh", "mironov", "zcdp" (conversion_name of
  /// accounting/epsilon_delta.hpp), "gdp" for a Gaussian-DP entry; "" without delta.
  std::string conversion;
  double best_order = 0.0;  ///< the order attaining epsilon (the conversion is evaluated there)
  /// epsilon minimised over the configured orders only, as opacus' get_privacy_spent and
  /// dp_accounting do (>= epsilon); NaN without delta.
  double epsilon_recorded_orders = 0.0;
  double best_recorded_order = 0.0;        ///< the configured order attaining it
  std::string conversion_recorded_orders;  ///< the conversion attaining epsilon_recorded_orders
  /// "continuous": minimised over alpha in [1 + 1e-3, 1e4] and the recorded orders (the analysis
  /// is any_order, or R = alpha * slope); "recorded": over the recorded orders only; "gdp": a
  /// Gaussian-DP entry (result.mu), epsilon its exact profile inverted (both epsilons, no order);
  /// "" without delta.
  std::string epsilon_orders;
  /// At the report epsilon ([report] epsilon; dp_accounting's get_delta): the smallest certified delta
  /// among the entry's routes (assign_delta_at_epsilon); NaN without epsilon, or where the entry does
  /// not apply or does not bound the run (a lower bound, a record-specific bound).
  double delta_at_epsilon = std::numeric_limits<double>::quiet_NaN();
  /// The privacy profile delta(epsilon) and the trade-off curve of an entry that knows them
  /// (result.fdp_curves: the PLD accountant), computed once; nullopt otherwise.
  std::optional<pld::PrivacyCurves> curves;
};

struct Comparison {
  std::vector<double> orders;
  std::optional<double> delta;
  std::vector<ComparisonEntry> entries;  ///< every analysis, in the stable order of the registry
  bool include_disputed = false;         ///< [report] include_disputed: disputed entries may be best
  std::string best_name;          ///< the eligible valid analysis with the smallest epsilon (or R at the largest order)
  std::optional<double> best_mu;  ///< best_name's GDP parameter when it is a Gaussian-DP entry
  AnalysisStatus best_status = AnalysisStatus::Published;
  std::vector<double> best_R;  ///< pointwise minimum over the eligible valid analyses (recorded orders)
  double best_epsilon = 0.0;   ///< the smallest epsilon of the eligible entries: best_name's, at best_order
  double best_order = 0.0;
  std::string best_conversion;    ///< the conversion attaining best_epsilon (ComparisonEntry::conversion)
  std::optional<double> epsilon;  ///< [report] epsilon: each entry's delta_at_epsilon is taken there
  /// The smallest delta_at_epsilon of the eligible entries (NaN without epsilon) and the entry attaining
  /// it (it may differ from best_name, which is chosen by epsilon at delta).
  double best_delta = std::numeric_limits<double>::quiet_NaN();
  std::string best_delta_name;
  /// A sampled run (per-step, Poisson) whose eligible entries that apply all ignore the sampling:
  /// the loud line of unamplified_sampling_warning; empty otherwise.
  std::string amplification_warning;
  /// For a quadratic loss: the exact divergence of the worst pair (a lower bound every valid
  /// analysis must respect), else empty.
  std::vector<double> exact_R;
  /// Which constants the user vouches for and which the tool derived or checked.
  ConstantProvenance constants;
  /// The neighbouring relation, sampling and user level the numbers are for (issue 37).
  RunTerms terms;
};

/// Whether an entry may enter `best`: published and derived always, disputed only when included,
/// exact never (it is the floor the analyses are measured against, reported beside `best`), nor a
/// lower bound or a record-specific bound (not upper bounds on the run; bounds_the_run).
bool eligible_for_best(AnalysisStatus status, bool include_disputed);

/// epsilon of one valid entry at `delta`. A Gaussian-DP entry (result.mu set): the exact mu-GDP
/// profile inverted (Dong, Roth & Su 2022 Cor 2.13; accounting/gaussian_dp.hpp), rounded outward.
/// Otherwise the smallest of the single-order conversions (Mironov 2017 Prop. 3; Balle et al. 2020,
/// arXiv:1905.09982, Thm 21; Asoodeh et al. 2021; RdpConversion::Best) minimised over the recorded
/// orders and, when R is known at any order (analysis.any_order, or result.slope), over alpha in
/// [1 + 1e-3, 1e4] by accounting/epsilon_over_orders.hpp; when R = alpha slope also the zCDP route
/// (accounting/zcdp.hpp), taken when lower by more than the minimiser's tolerance (relative 1e-9:
/// otherwise it is the same minimum). Sets entry.epsilon, best_order, conversion and epsilon_orders.
/// `conversion` other than Best: that conversion alone, without the zCDP route (the library
/// conventions of python/dpsgd_accounting.hpp: opacus and dp_accounting use the improved one).
void assign_epsilon(ComparisonEntry& entry, const Analysis& analysis, const AnalysisInput& input,
                    std::span<const double> orders, double delta, RdpConversion conversion = RdpConversion::Best);

/// delta at `epsilon` of one valid entry, the smallest certified delta among its routes: its own
/// profile (result.fdp_delta, the PLD accountant); for a Gaussian-DP entry (result.mu) the exact
/// mu-GDP profile rounded outward (gdp_delta_upper); otherwise the smallest of the single-order
/// conversions in their delta form (Mironov, improved, Asoodeh et al.; rdp_to_delta, rounded
/// outward) over the recorded orders (best_delta). Sets entry.delta_at_epsilon.
void assign_delta_at_epsilon(ComparisonEntry& entry, std::span<const double> orders, double epsilon);

/// The line compare and calibrate print when the run draws a fresh random batch at every step
/// (sampling = per-step or poisson, q < 1) and no eligible analysis that applies uses it
/// (`amplified`: some has AnalysisResult::amplified_by_sampling): its epsilon counts the record in
/// every step. Starts with "WARNING:" and names the keys that let an amplified analysis apply
/// (domain.lipschitz_loss, domain.adjacency). Empty when the run is not sampled or `amplified`.
std::string unamplified_sampling_warning(const TrainingRun& run, bool amplified);

/// One conversion's epsilon of an entry: the conversion alone minimised as assign_epsilon minimises
/// their minimum (recorded orders, and alpha in [1.001, 1e4] where R is known at any order).
struct ConversionEpsilon {
  RdpConversion conversion;
  EpsilonAtOrder epsilon;
};

/// For docs/analyses.md section 4's table and its tests: epsilon of a valid RDP entry (no mu) by
/// Mironov, improved and Asoodeh et al. separately and, when R = alpha slope, by the zCDP route
/// and by Bun & Steinke's closed form alone (conversion Zcdp, order NaN). Their minimum is at most
/// assign_epsilon's epsilon (equal up to the zCDP route's tolerance).
std::vector<ConversionEpsilon> epsilon_by_conversion(const ComparisonEntry& entry, const Analysis& analysis,
                                                     const AnalysisInput& input, std::span<const double> orders,
                                                     double delta);

/// One row of `compare`: `analysis` evaluated at `orders`, its status for this run and, with a
/// delta, its epsilon (assign_epsilon); with an epsilon, its delta there (assign_delta_at_epsilon);
/// with `curves`, the profile and trade-off curve of an entry that knows them. A result that does not
/// apply keeps only its reason; its epsilons and delta are NaN, as they are without a delta or
/// epsilon.
ComparisonEntry compare_entry(const Analysis& analysis, const AnalysisInput& input, std::span<const double> orders,
                              std::optional<double> delta, std::optional<double> epsilon = std::nullopt,
                              bool curves = false);

/// Called after each analysis with (analyses done, analyses in the registry).
using ComparisonProgress = std::function<void(std::size_t done, std::size_t total)>;

/// Evaluates every registered analysis (the `pdi` entry runs the configured engine from
/// `engines`; collective over its communicator for the finite-difference engine), at the report
/// delta and epsilon of the configuration. `curves`: also the profiles and trade-off curves (off
/// where only epsilon is wanted, e.g. a sweep's points: without a delta a PLD is composed for them).
Comparison run_comparison(const RunConfig& config, const EngineRegistry& engines,
                          const ComparisonProgress& progress = {}, bool curves = true);

}  // namespace rdpdyn

#pragma once
// The analysis interface: one bound on the Rényi divergence of a run's last iterate, with its
// citation, its proof status, an applicability check that says why it does not apply, and an
// evaluation at any orders. Every analysis is registered once in analyses/registry.cpp; `compare`,
// `calibrate` and the tests enumerate the registry (docs/analyses.md lists them).
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "accounting/pld/pld_accountant.hpp"
#include "models/run_config.hpp"
#include "solver/engine.hpp"

namespace rdpdyn {

/// How far a result can be trusted.
enum class AnalysisStatus {
  Published,  ///< a paper's result reproduced as printed (with the typo fixes of docs/analyses.md)
  Derived,    ///< this project's own result or improvement, derived step by step in docs/
  Disputed,   ///< published, with a known or suspected gap in its proof (the note says where)
  /// the exact privacy of the run, computed from its two known laws (quadratic losses: Gaussians):
  /// a valid bound and the floor of every valid one
  Exact,
  /// a lower bound on the run's exact privacy (a pair of neighbouring datasets attains it): not an
  /// upper bound, every valid one is at or above it
  LowerBound,
  /// a bound for only the records its note names (e.g. those in the first batch), not for the run's
  /// worst record: not an upper bound on the run's privacy
  RecordSpecific,
  /// a principled heuristic, exact for a special case its note names (e.g. linear losses) but not a
  /// bound for general losses: never best, never calibrated (an entry reports `exact` instead for a
  /// run in its special case)
  Heuristic,
  /// a lower bound on the privacy of the run with every iterate released (the setting of the
  /// composition entries and of the DP-SGD accountants): no accounting that ignores hidden state can
  /// certify less; the last iterate alone may be more private, so it is not a floor of the
  /// last-iterate bounds; never best, never calibrated
  ReleasedLowerBound,
};

/// Every status, in the order of the outputs' legends.
inline constexpr AnalysisStatus kAllStatuses[] = {AnalysisStatus::Published,  AnalysisStatus::Derived,
                                                  AnalysisStatus::Disputed,   AnalysisStatus::Exact,
                                                  AnalysisStatus::LowerBound, AnalysisStatus::RecordSpecific,
                                                  AnalysisStatus::Heuristic,  AnalysisStatus::ReleasedLowerBound};

/// Whether a result of this status bounds the privacy of every record of the run from above
/// (exact values do; lower bounds, record-specific bounds and heuristics do not). Only such results may be
/// best, calibrated, or held to "at or above the exact divergence".
constexpr bool bounds_the_run(AnalysisStatus s) {
  return s != AnalysisStatus::LowerBound && s != AnalysisStatus::RecordSpecific && s != AnalysisStatus::Heuristic &&
         s != AnalysisStatus::ReleasedLowerBound;
}

/// "published", "derived", "disputed", "exact", "lower-bound", "record-specific", "heuristic",
/// "released-lower-bound".
const char* status_name(AnalysisStatus status);
/// One sentence for people reading a table.
const char* status_meaning(AnalysisStatus status);

/// One analysis of a run: whether its assumptions hold (if not, which one fails and why) and,
/// if they do, its bound on R_alpha at every requested order (nats). Through the registry every
/// R is rounded outward (numerics/outward_rounding.hpp; docs/analyses.md, "Outward rounding").
struct AnalysisResult {
  std::string name;      ///< the registry name, e.g. "ye-shokri-thm3.3"
  std::string citation;  ///< paper and equation (may name the case that applied)
  bool applies = false;
  std::string reason;     ///< when !applies: the assumption that fails; else a short note
  std::vector<double> R;  ///< per order; empty when !applies
  /// Set when the bound is R(alpha) = alpha * slope at every order alpha > 1 (data linear in
  /// alpha; the `pdi` entry on the characteristics engine): R is then known at any order
  /// (models/configured_solve.hpp, linear_rdp_at) although the analysis is not `any_order`.
  std::optional<double> slope;
  /// Set by a Gaussian-DP analysis (an f-DP bound, Dong, Roth & Su 2022, arXiv:1905.02383): the run
  /// is mu-GDP. R is then alpha mu^2 / 2 at every order (slope = mu^2 / 2; accounting/gaussian_dp.hpp)
  /// and epsilon is the exact GDP profile inverted (gdp_epsilon), not an RDP conversion. Rounded
  /// outward like R.
  std::optional<double> mu;
  /// Set where R is cheap at any order > 1 from the state the evaluation built once (pdi's averaged
  /// bound on mini-batch runs): R(alpha), rounded outward. compare then minimises epsilon over a
  /// continuum of orders, as for `any_order` analyses.
  std::function<double(double alpha)> at_order;
  /// A route to (epsilon, delta) beside R, from an f-DP argument (pdi on partition and shuffle-once:
  /// Gaussian-DP per placement, models/noisy_sgd_sampled_bound.hpp): a certified epsilon at delta.
  /// compare takes it where it is below the RDP conversions (with the best conversion requested).
  std::function<double(double delta)> fdp_epsilon;
  std::string fdp_route;  ///< its name in `conversion` ("gdp", "gdp-mixture", "pld")
  /// Set by entries that know their privacy profile (the PLD accountant): a certified delta at
  /// epsilon ([report] epsilon; dp_accounting's get_delta).
  std::function<double(double epsilon)> fdp_delta;
  /// The grid spacing such an entry refined its PLD to at delta (nats), so that a search over nearby
  /// runs (calibrate) can keep it instead of refining again.
  std::function<double(double delta)> fdp_grid;
  /// Their privacy profile delta(epsilon) and the trade-off curve it certifies, for the outputs.
  std::function<pld::PrivacyCurves()> fdp_curves;
  /// Set when the bound gains from a batch drawn at random at every step (sampling per-step or
  /// poisson, the record in a step's batch with probability q < 1): amplification by subsampling.
  /// compare and calibrate warn when such a run has no bound of this kind among those that may be
  /// best (commands/compare.hpp, unamplified_sampling_warning).
  bool amplified_by_sampling = false;
  /// When the status differs for this run from the analysis' own (e.g. a disputed bound whose
  /// doubtful step is not used by the run), the status that holds here and why.
  std::optional<AnalysisStatus> status_here;
  std::string status_note_here;
  /// Set (by the registry, for the entries it marks composes_by_fft) when the result's profile
  /// (fdp_epsilon, fdp_delta, fdp_curves) comes from the PLD accountant, composed by FFT
  /// (accounting/pld/fourier_composition.hpp), whose round-off bound is assumed, not proved, for
  /// FFTW's transforms (docs/pld.md section 4): the outputs' status note then carries
  /// kFftRoundOffLabel (status_note_of).
  bool fft_round_off_assumed = false;
};

/// What the outputs add to the status note of an entry whose numbers come through the PLD
/// accountant's FFT composition: its round-off bound extends Higham's radix-2 theorem to FFTW's
/// mixed-radix real codelets by an assumed factor, measured but not proved (docs/pld.md section 4).
inline constexpr const char* kFftRoundOffLabel =
    "certified up to an assumed FFT round-off bound (docs/pld.md section 4)";

/// A result that does not apply: the entry's name and citation, and why.
inline AnalysisResult refusal(std::string name, std::string citation, std::string why) {
  AnalysisResult r;
  r.name = std::move(name);
  r.citation = std::move(citation);
  r.reason = std::move(why);
  return r;
}

/// What an analysis sees: the configured run, the same run in C21 units, and the engines (for
/// this tool's own PDI solution).
struct AnalysisInput {
  const RunConfig& config;
  const TrainingRun& run;
  const EngineRegistry& engines;
};

/// A registered analysis.
struct Analysis {
  std::string name;      ///< stable identifier "<first-author>-<result>"
  std::string citation;  ///< paper (arXiv id), theorem, equation
  AnalysisStatus status = AnalysisStatus::Published;
  std::string status_note;  ///< disputed: where the gap is; derived: where the derivation is
  /// Cheap at any order (closed forms) and independent of the other requested orders: epsilon is
  /// then minimised over a continuum of orders (accounting/epsilon_over_orders.hpp), not only
  /// over the recorded ones. False where evaluation is expensive or tied to a grid.
  bool any_order = false;
  /// Evaluates at `orders` (each > 1, increasing); refuses with a reason when it does not apply.
  std::function<AnalysisResult(const AnalysisInput& input, std::span<const double> orders)> assess;
  /// Non-decreasing in the number of steps wherever it applies. False where a bound legitimately
  /// drops when a step is added (an epoch completing, a worst case over batch positions): then
  /// `calibrate --for steps` says that a smaller count than the one it returns may miss the target.
  /// The conformance suite (tests/analyses/test_conformance.cpp) checks both ways.
  bool monotone_in_steps = true;
  /// Composes phase by phase with each phase's own sampling rate (Poisson phases of
  /// [[algorithm.schedule]] that set sampling_rate or batch_size). Every other entry refuses such a
  /// run by name before it is evaluated (analyses/registry.cpp): its formula takes one rate.
  bool takes_changing_rates = false;
  /// Bounds groups of records itself when [domain] records_per_user = k > 1 (ganesh-group-pld). Every
  /// other entry is evaluated for one record and made user-level by the registry
  /// (analyses/group_privacy.hpp), or refused when it is a lower bound.
  bool takes_groups = false;
  /// Accounts zero-out neighbours (a record against a null record of zero gradient, [domain]
  /// adjacency = "zero-out"): the composition entries, poisson-as-if, chua-shuffle-lower and
  /// ganesh-group-pld. Every other entry refuses such a run by name (analyses/registry.cpp).
  bool takes_zero_out = false;
  /// Its privacy profile, where it has one, comes from the PLD accountant's FFT composition (the
  /// registry's pld_profile marks such entries and their results, AnalysisResult::fft_round_off_assumed).
  bool composes_by_fft = false;

  /// The status that holds for one result of this analysis.
  AnalysisStatus status_of(const AnalysisResult& r) const { return r.status_here.value_or(status); }
};

/// The status note the outputs print for one result: the note of the status that holds here
/// (status_note_here, or the analysis' own), with kFftRoundOffLabel appended when the result's
/// numbers come through the FFT composition (AnalysisResult::fft_round_off_assumed).
std::string status_note_of(const Analysis& analysis, const AnalysisResult& result);
/// The status note of the analysis itself, as `rdpdyn analyses` and `sweep` list it: its own, with
/// kFftRoundOffLabel appended when it composes by FFT (Analysis::composes_by_fft).
std::string status_note_of(const Analysis& analysis);

/// Every analysis, in the stable order of the outputs.
const std::vector<Analysis>& analysis_registry();
/// nullptr for an unknown name.
const Analysis* find_analysis(std::string_view name);
/// "a, b, c": the registered names, for messages.
std::string analysis_names();
/// The rule an unknown analysis name breaks: 'must be one of ...' (with "best" first when
/// `best_allowed`), and "did you mean" the registered name nearest to `name` when it is a near miss.
std::string unknown_analysis_rule(std::string_view name, bool best_allowed);

}  // namespace rdpdyn

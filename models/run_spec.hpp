#pragma once
// A run as the user describes it (C21 conventions), before it becomes a privacy program.
// io/config/ reads it from TOML, models/run_validation.hpp checks it once, models/ turn it into a
// PrivacyProgram.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "dynamics/gamma_choice.hpp"
#include "dynamics/initial_curve.hpp"
#include "dynamics/lsi_schedule.hpp"
#include "dynamics/step_event.hpp"
#include "dynamics/time_coefficients.hpp"
#include "models/training_run.hpp"
#include "dynamics/solution.hpp"
#include "numerics/name_table.hpp"

namespace rdpdyn {

/// A phase of noisy GD: `steps` steps with step size eta and C21 noise sigma
/// (theta <- theta - (eta/n) g + sqrt(2 eta) N(0, sigma^2 I)), optionally its own gamma.
struct Phase {
  std::int64_t steps = 0;
  double eta = 0.0;
  double sigma = 0.0;
  std::optional<double> gamma;
  std::optional<double> sensitivity;  ///< S_g for these steps (default: AlgorithmSpec::sensitivity)
  /// Poisson sampling: these steps' q, when a phase of [[algorithm.schedule]] sets its own
  /// (default: AlgorithmSpec::sampling_rate). Only the accountants that compose phase by phase take
  /// such a run (composition-gaussian, composition-sgm, composition-pld); the others refuse it.
  std::optional<double> sampling_rate;
  /// A run configured for accounting alone (sigma = 0): these steps' DP-SGD noise multiplier, when
  /// the phase sets its own (default: AlgorithmSpec::noise_multiplier).
  std::optional<double> noise_multiplier;
  std::string origin = "algorithm";  ///< config table it came from, for messages
  /// For a phase expanded from values given per step, its first step k (else -1): messages then
  /// name the steps (steps_note), without a string kept per phase.
  std::int64_t first_step = -1;

  /// " at steps k = 17 to 19" for a phase expanded from values given per step, else "".
  std::string steps_note() const {
    if (first_step < 0) return "";
    if (steps == 1) return " at step k = " + std::to_string(first_step);
    return " at steps k = " + std::to_string(first_step) + " to " + std::to_string(first_step + steps - 1);
  }

  static Phase of(std::int64_t steps, double eta, double sigma) {
    Phase p;
    p.steps = steps;
    p.eta = eta;
    p.sigma = sigma;
    return p;
  }
};

/// Pdi: a coefficient-level run, the PDI of C21 eq. (13) on [0, time] with sigma(t), S_v(t) and the
/// LSI schedule given directly (docs/config.md, kind = "pdi").
enum class AlgorithmKind { NoisyGd, NoisySgd, Langevin, Pdi };
/// The configuration's names of algorithm.kind (read and printed from this table alone).
inline constexpr NameTable<AlgorithmKind, 4> kAlgorithmKindNames{{{AlgorithmKind::NoisyGd, "noisy-gd"},
                                                                  {AlgorithmKind::NoisySgd, "noisy-sgd"},
                                                                  {AlgorithmKind::Langevin, "langevin"},
                                                                  {AlgorithmKind::Pdi, "pdi"}}};
/// Linear: l(theta; x) = <g(x), theta> (the last-iterate heuristic of Steinke et al. 2025 is exact
/// for it; every other analysis treats it as a generic loss). NonConvex: the user states that the
/// loss is not convex; the analyses that need convexity refuse the run by name, and the hidden-state
/// bounds left are those that rest on a declared structure (a bounded domain, smoothness): without
/// one the last iterate may leak as much as the whole transcript (Annamalai 2024, arXiv:2407.06496).
enum class LossKind { Generic, Squared, Quadratic, Linear, NonConvex };
/// The configuration's names of algorithm.loss.
inline constexpr NameTable<LossKind, 5> kLossKindNames{{{LossKind::Generic, "generic"},
                                                        {LossKind::Squared, "squared"},
                                                        {LossKind::Quadratic, "quadratic"},
                                                        {LossKind::Linear, "linear"},
                                                        {LossKind::NonConvex, "nonconvex"}}};

/// l(theta; x) = (theta - x)^T H (theta - x) / 2 in d dimensions ([quadratic] in the
/// configuration): the iterates are Gaussian, so the exact divergence is known
/// (models/quadratic_exact.hpp).
struct QuadraticLoss {
  std::vector<std::vector<double>> hessian;  ///< H, symmetric positive definite
  std::optional<std::vector<double>> pair;   ///< x - x' of a given neighbouring pair (else worst case)
  /// s of a stated shared start N(mu, s^2 I), the same for both runs (else a point start)
  std::optional<double> initial_std;
};

struct AlgorithmSpec {
  AlgorithmKind kind = AlgorithmKind::NoisyGd;
  std::int64_t batch_size = 0;                        ///< noisy SGD: b (n/b batches per epoch);
                                                      ///< Poisson: q n rounded, for messages only
  BatchSampling sampling = BatchSampling::FullBatch;  ///< noisy SGD: partition, shuffle, per-step, poisson
  double sampling_rate = 0.0;                         ///< Poisson: q (expected batch size q n)
  /// algorithm.noise_multiplier as configured (DP-SGD: noise std / clipping norm C), if given.
  std::optional<double> noise_multiplier;
  /// Whether algorithm.eta and algorithm.sensitivity were given. A noisy-sgd run with its noise as
  /// noise_multiplier may omit both (accounting alone, docs/config.md); its phases then carry
  /// eta = 0 (unknown) and sigma = 0 (no C21 units), and the PDI refuses it.
  bool declares_eta = true;
  bool declares_sensitivity = true;
  LossKind loss = LossKind::Generic;
  std::vector<Phase> phases;  ///< noisy GD: the schedule, in order
  double n = 0.0;             ///< dataset size
  double sensitivity = 0.0;   ///< S_g, l2-sensitivity of the total gradient (C21 Sec. 3)
  // Langevin diffusion (continuous time, C21 Thm 1/2 with eta K -> time):
  double time = 0.0;
  double sigma = 0.0;
  std::int64_t intervals = 100;  ///< recording intervals of the Langevin (or pdi) run
  /// kind = "pdi": sigma(t) and S_v(t) where they are expressions in t (else `sigma` and
  /// `sensitivity` hold them, `sensitivity` being S_v itself and n = 1).
  TimeCoefficients coefficients;
  /// How the steps were derived when the configuration gave `epochs` ("algorithm.steps = 19532
  /// (epochs x 1 / sampling_rate = ...)"), for the outputs' derived constants; else empty.
  std::string steps_derivation;
  /// drop_last: the records each epoch leaves out (n mod b); `n` is then b floor(n/b), the records
  /// the epochs use (docs/config.md, "drop_last").
  std::int64_t dropped_records = 0;
};

/// BoundedDomain: projected noisy GD on a set of diameter D ([domain] diameter), any smooth loss,
/// convex or not: the recursion through the (1 + eta m)-Lipschitz gradient map, capped at every step
/// by the LSI of a law of bounded support convolved with the step's noise
/// (models/bounded_domain_lsi.hpp; docs/math.md section 2.7).
enum class LsiKind { Constant, StronglyConvex, Recursion, SquaredLoss, Function, ExactQuadratic, BoundedDomain };
/// The configuration's names of lsi.kind.
inline constexpr NameTable<LsiKind, 7> kLsiKindNames{{{LsiKind::Constant, "constant"},
                                                      {LsiKind::StronglyConvex, "strongly-convex"},
                                                      {LsiKind::Recursion, "recursion"},
                                                      {LsiKind::SquaredLoss, "squared-loss"},
                                                      {LsiKind::Function, "function"},
                                                      {LsiKind::ExactQuadratic, "exact-quadratic"},
                                                      {LsiKind::BoundedDomain, "bounded-domain"}}};

struct LsiSpec {
  LsiKind kind = LsiKind::Constant;
  double c = 0.0;  ///< constant
  /// the loss's Hessian lower bound: strong convexity (0: convex) for strongly-convex / recursion;
  /// bounded-domain also takes lambda = -m < 0, an m-weakly convex loss (default -beta: smooth only)
  double lambda = 0.0;
  double beta = 0.0;                ///< smoothness
  std::optional<double> c0;         ///< recursion: LSI constant of the initial law (default point)
  std::optional<double> lipschitz;  ///< recursion: Lipschitz constant of the gradient map
  FunctionLsi function;             ///< function

  static LsiSpec constant(double c) { return with_kind(LsiKind::Constant, c); }
  static LsiSpec strongly_convex(double lambda, double beta) {
    LsiSpec s = with_kind(LsiKind::StronglyConvex);
    s.lambda = lambda;
    s.beta = beta;
    return s;
  }
  static LsiSpec recursion(double lambda, double beta, std::optional<double> c0 = std::nullopt) {
    LsiSpec s = with_kind(LsiKind::Recursion);
    s.lambda = lambda;
    s.beta = beta;
    s.c0 = c0;
    return s;
  }
  static LsiSpec squared_loss() { return with_kind(LsiKind::SquaredLoss); }
  static LsiSpec of_function(FunctionLsi f) {
    LsiSpec s = with_kind(LsiKind::Function);
    s.function = std::move(f);
    return s;
  }

 private:
  static LsiSpec with_kind(LsiKind kind, double c = 0.0) {
    LsiSpec s;
    s.kind = kind;
    s.c = c;
    return s;
  }
};

/// An event of the configuration, applied after `after_step` completed steps (0: before the first).
struct ScheduledEvent {
  std::int64_t after_step = 0;
  StepEvent event;
  std::string origin = "events";  ///< its configuration table ("events[2]"), for messages
};

struct RunSpec {
  AlgorithmSpec algorithm;
  LsiSpec lsi;
  GammaChoice gamma = GammaChoice::fixed(0.5);
  /// True when the configuration did not choose gamma: validate_run then takes the best
  /// certified choice of the engine (the pointwise-optimal gamma where it applies, else 1/2).
  bool gamma_by_default = false;
  InitialCurve initial = ZeroCurve{};
  std::vector<double> orders;
  bool orders_by_default = false;  ///< [orders] left out of an accounting-only run: opacus' orders
  std::vector<ScheduledEvent> events;
  RecordPlan record;
  std::optional<double> diameter;            ///< [domain] diameter D of the constraint set
  Adjacency adjacency = Adjacency::Replace;  ///< [domain] adjacency
  bool adjacency_given = false;              ///< written in the configuration (else the default above)
  bool gradients_norm_bounded = false;       ///< [domain] lipschitz_loss: per-record gradient norms <= S_g/2
  /// [domain] records_per_user: neighbouring datasets differ in one user's records, at most this many
  /// (group privacy; analyses/group_privacy.hpp). 1: record-level.
  std::int64_t records_per_user = 1;
  bool records_per_user_given = false;   ///< written in the configuration
  std::optional<double> report_delta;    ///< [report] delta: add epsilon at this delta
  std::optional<double> report_epsilon;  ///< [report] epsilon: add delta at this epsilon (profile entries)
  /// [analysis] pld_accuracy, pld_grid: the PLD accountant's refinement target (relative accuracy of
  /// epsilon) or a fixed grid spacing (2^k or 3 x 2^k, nats); accounting/pld/pld_accountant.hpp.
  struct PldSettings {
    double accuracy = 1e-4;
    std::optional<double> grid;
  } pld;
  bool include_disputed = false;           ///< [report] include_disputed: disputed analyses may be best
  std::optional<QuadraticLoss> quadratic;  ///< algorithm.loss = "quadratic"
  bool declares_lsi = true;                ///< [lsi] given (optional for noisy-sgd; the PDI needs it)

  std::int64_t total_steps() const;
};

}  // namespace rdpdyn

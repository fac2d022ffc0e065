#pragma once
// Certification of a bound by exact integration along characteristics.
//
// For ANY gamma field gamma(alpha, t) in (0, 1] the PDI (C21 eq. (13)) holds, and along the
// (curved, when gamma depends on alpha) characteristics dy/dt = a1(y, t) the true w = R/alpha
// satisfies dw/dt <= a2 - a1 w (docs/math.md sections 2.3, 2.4). Integrating that ODE with the same
// field, from the initial data at the foot of the characteristic, therefore bounds the true R at
// the characteristic's landing order. The Certifier shoots two characteristics per order, landing
// just above and just below it, and bounds R at the order by the smaller of the upper bound (R is
// non-decreasing in alpha) and the chord of (alpha - 1) R through both (it is convex in alpha).
// It integrates with Boost.Odeint at tight tolerance and biases each landing in the safe
// direction (lower order, larger w) by 10x the observed difference to a 1000x tighter run.
//
// That shooting is the reference method. By default (CertificationMethod::Composed) the Certifier
// avoids Odeint wherever the flow has closed forms (docs/finite-difference.md §5, "Cost"):
//  - straight steps (fixed gamma, order-independent LSI schedule; also point-mass intervals) are
//    summarised by their y-independent flow (A, psi), composed over maximal straight stretches once
//    at construction (solver/flow_composition.hpp): O(1) per stretch;
//  - optimal-gamma steps with a constant or Gaussian-convolution LSI are followed with a gamma that
//    is constant on each piece between gamma snapshots (its value at the piece's midpoint on the
//    path): any gamma along a path certifies (docs/finite-difference.md §4), and each piece then has
//    the closed-form flow of fixed_gamma_piece. The landing is exact up to rounding, so one path per
//    order suffices;
//  - when such paths would cost more (many records on a long curved run: O(steps) per value), a
//    cloud of paths is carried forwards once per step from t = 0, refined where the flow spreads it
//    (new paths valued by chords, valid initial data from then on) and read by chords between
//    neighbours: O(cloud size) per step, ~1e-4 looser on the examples.
// Every closed form is rounded outward. Values that need a gamma field or an order-dependent LSI
// schedule fall back to the shooting.
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "dynamics/initial_curve.hpp"
#include "dynamics/privacy_program.hpp"
#include "solver/flow_composition.hpp"
#include "solver/interval_flow.hpp"

namespace rdpdyn {

/// The gamma the certification uses on an optimal-gamma step: gamma(step, y, t) in (0, 1], and
/// the times inside the step where that field jumps (the integration restarts there, so the
/// error control never steps across a discontinuity). Fixed and field gammas of the program are
/// used as they are.
struct OptimalGammaLookup {
  std::function<double(std::int64_t step, double y, double t)> gamma;
  std::function<std::vector<double>(std::int64_t step)> switch_times;
};

struct CertifiedValue {
  double rdp;            ///< certified upper bound of R at the requested order
  double landing_order;  ///< the upper of the two orders the characteristics reached (>= the order)
};

enum class CertificationMethod {
  Composed,  ///< closed-form flows; on curved runs paths or the cloud, whichever costs less (default)
  Paths,     ///< closed-form flows; one path back to t = 0 per value (no cloud)
  Cloud,     ///< closed-form flows; the cloud of paths on curved runs whatever the cost
  Shooting,  ///< Odeint shooting back to t = 0 for every value (the reference)
};

/// Settings of the cloud of paths (docs/finite-difference.md §5, "Cloud").
struct CloudSettings {
  /// Spacing of the paths at t = 0 where alpha - 1 >= 1, in y = ln(alpha - 1); below, spacing / sqrt(alpha - 1)
  /// (up to 1/2): the chord of (alpha - 1) R is tighter there.
  double spacing = 1.0 / 96.0;
  double y_min = -10.0;  ///< the lowest path at t = 0
  /// A value is taken from the cloud only when its two neighbouring paths are at most this many
  /// spacings apart; otherwise (and below or above the cloud) it gets its own path.
  double max_gap = 2.0;
  std::int64_t expected_records = 0;  ///< records of the run (0: unknown): chooses paths or cloud
  /// Records after at most this many steps take their own paths (short walks; kinks of tabulated
  /// data not yet damped); -1: while a record's paths cost at most 4 cloud steps.
  std::int64_t path_steps = -1;
};

class Certifier {
 public:
  /// Keeps pointers into `program`, which must outlive the Certifier.
  Certifier(const PrivacyProgram& program, const InitialCurve& initial, IntegrationTolerance tol,
            CertificationMethod method = CertificationMethod::Composed, CloudSettings cloud = {});

  /// Values taken from the cloud and values that needed their own path so far (for tests).
  std::int64_t cloud_values() const { return cloud_values_; }
  std::int64_t path_values() const { return path_values_; }

  /// Certified bounds after `steps` completed steps (including that step's after-events).
  std::vector<CertifiedValue> certify(std::int64_t steps, std::span<const double> orders,
                                      const OptimalGammaLookup& optimal_gamma) const;

 private:
  /// How a step's flow is certified by the composed method.
  enum class Kind {
    Straight,   ///< y-independent flow: `flow` (and the stretch's composition in prefix_)
    Piecewise,  ///< optimal gamma, closed-form pieces between snapshots
    Shooting,   ///< gamma field or order-dependent LSI: Odeint only
  };
  struct Frame {
    const ProgramStep* step = nullptr;  ///< the program's step (a phase's: nothing is copied per step)
    Kind kind = Kind::Shooting;
    double t_start = 0.0;
    double inverse_lsi = 0.0;  ///< at the start of the diffusion, after the before-events
    double jump_before = 0.0;  ///< w added by the before-events (Gaussian releases)
    double jump_after = 0.0;
    bool point_mass = false;  ///< Gaussian-convolution interval starting from a point mass
  };

  const ProgramStep& step_at(std::int64_t step) const { return *frames_[static_cast<std::size_t>(step)].step; }
  std::vector<double> pieces(std::int64_t step, const OptimalGammaLookup& optimal) const;
  double gamma_at(std::int64_t step, double y, double t, const OptimalGammaLookup& optimal) const;
  /// Integrates y backwards over the diffusion of `step`, from its end to its start.
  double trace_back(std::int64_t step, double y_end, const OptimalGammaLookup& optimal) const;
  /// Integrates (y, w) forwards over the diffusion of `step` at the given tolerance scale.
  void advance(std::int64_t step, double& y, double& w, const OptimalGammaLookup& optimal,
               double tolerance_scale) const;
  /// w at the end of a point-mass interval, which no longer depends on the start when the
  /// interval transports (gamma < 1) or uses the optimal gamma; nullopt-like NaN otherwise.
  double erased_value(std::int64_t step) const;
  /// A certified point: R at order_of(y) is at most rdp. The true characteristic lands within
  /// y +- y_error (y is the lower end, so R at order_of(y) <= R at the true landing), and the
  /// bound uses the upper end and w biased up: R(true) <= alpha(true) w(true) <= alpha(y + 2 y_error) w.
  struct Landing {
    double y;
    double rdp;
    double y_error;
  };
  /// Integrates the characteristic that should land at `aim` after `steps` steps.
  Landing land(std::int64_t steps, double aim, const OptimalGammaLookup& optimal) const;
  CertifiedValue shoot(std::int64_t steps, double order, const OptimalGammaLookup& optimal) const;

  /// A path of the cloud: lands within y +- y_error with w <= w (upper bound).
  struct CloudPath {
    double y, y_error, w;
  };
  /// One part of a composed path, in backward order: a straight stretch (its composed flow) or an
  /// optimal-gamma step with the gammas chosen for its pieces.
  struct Segment {
    std::int64_t step;
    BoundedFlow flow;                            ///< straight stretches
    std::size_t gamma_begin = 0, gamma_end = 0;  ///< piecewise steps: range in the gamma scratch
    bool straight;
  };
  struct Scratch {
    std::vector<Segment> segments;
    std::vector<double> gammas;
  };
  /// A piece of an optimal-gamma step between gamma snapshots (interval-local times) and the
  /// integral of Q over it.
  struct Piece {
    double s0, s1, t_mid, decay_integral;
  };
  /// The composed method's landing (false when a Shooting step is on the path).
  bool land_composed(std::int64_t steps, double aim, const OptimalGammaLookup& optimal, Scratch& scratch,
                     Landing& out) const;
  /// nullopt-like: landing_order = 0 when the composed method cannot certify this value.
  CertifiedValue shoot_composed(std::int64_t steps, double order, const OptimalGammaLookup& optimal,
                                Scratch& scratch) const;
  void fill_cuts(std::int64_t step, const OptimalGammaLookup& optimal, std::vector<double>& cuts) const;
  /// The pieces of a completed optimal-gamma step (cached: its snapshots no longer change).
  const std::vector<Piece>& pieces_of(std::int64_t step, const OptimalGammaLookup& optimal) const;

  /// Moves the cloud forward to `steps` completed steps.
  void advance_cloud(std::int64_t steps, std::span<const double> orders, const OptimalGammaLookup& optimal) const;
  std::vector<double> cloud_seeds(double y_top) const;
  double cloud_spacing(double y) const;
  /// Orders the paths, drops those far above the orders, adds paths below the lowest and
  /// between paths the flow has spread apart.
  void reshape_cloud(double y_top) const;
  CloudPath cloud_start(double y, double rdp_bound) const;
  /// The certified point of a path: R(alpha_claimed) <= bound.
  void cloud_node(const CloudPath& p, double& alpha_claimed, double& bound) const;
  double cloud_top(std::span<const double> orders) const;
  /// The chord between the cloud's neighbours of `order`; landing_order = 0 when they are too far apart.
  CertifiedValue from_cloud(double order) const;
  bool cloud_pays(std::span<const double> orders) const;

  const InitialCurve& initial_;
  IntegrationTolerance tol_;
  CertificationMethod method_;
  CloudSettings cloud_settings_;
  bool any_piecewise_ = false, any_shooting_ = false;
  mutable std::vector<CloudPath> cloud_;
  mutable std::int64_t cloud_step_ = -1;  ///< steps the cloud has made (-1: not seeded)
  mutable std::int64_t cloud_values_ = 0, path_values_ = 0;
  std::vector<Frame> frames_;
  /// Straight frames: the composition of the frames from the start of their stretch through them
  /// (jumps included), and where the stretch starts.
  std::vector<BoundedFlow> prefix_;
  std::vector<BoundedFlow> step_flows_;  ///< straight frames: the step's own flow, jumps included
  std::vector<std::int64_t> stretch_start_;
  mutable std::vector<std::vector<Piece>> piece_cache_;
};

}  // namespace rdpdyn

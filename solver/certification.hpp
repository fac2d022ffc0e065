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
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "dynamics/initial_curve.hpp"
#include "dynamics/privacy_program.hpp"
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

class Certifier {
 public:
  /// Keeps pointers into `program`, which must outlive the Certifier.
  Certifier(const PrivacyProgram& program, const InitialCurve& initial, IntegrationTolerance tol);

  /// Certified bounds after `steps` completed steps (including that step's after-events).
  std::vector<CertifiedValue> certify(std::int64_t steps, std::span<const double> orders,
                                      const OptimalGammaLookup& optimal_gamma) const;

 private:
  struct Frame {
    const ProgramStep* step = nullptr;  ///< the program's step (a phase's: nothing is copied per step)
    double t_start = 0.0;
    double inverse_lsi = 0.0;  ///< at the start of the diffusion, after the before-events
    double jump_before = 0.0;  ///< w added by the before-events (Gaussian releases)
    double jump_after = 0.0;
    bool point_mass = false;   ///< Gaussian-convolution interval starting from a point mass
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

  const InitialCurve& initial_;
  IntegrationTolerance tol_;
  std::vector<Frame> frames_;
};

}  // namespace rdpdyn

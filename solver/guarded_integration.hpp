#pragma once
// Boost.Odeint's adaptive integration with a bound on the work: a coefficient nearly singular inside
// an interval (a user LSI schedule c(s, t), a sigma(t) that approaches 0) makes the step controller
// shrink its step without end; past kMaxEvaluations evaluations of the right-hand side the run stops
// with a domain error (the command exits 2 and names the interval) instead of hanging.
#include <boost/numeric/odeint.hpp>
#include <cstdint>
#include <sstream>
#include <stdexcept>

namespace rdpdyn {

inline constexpr std::int64_t kMaxEvaluations = 4'000'000;

template <class Stepper, class System, class State>
void integrate_guarded(Stepper stepper, System& system, State& x, double t0, double t1, double dt) {
  std::int64_t evaluations = 0;
  auto counted = [&](const State& y, State& dy, double s) {
    if (++evaluations > kMaxEvaluations) {
      std::ostringstream msg;
      msg << "the adaptive integration from s = " << t0 << " to " << t1 << " stalled at s = " << s << " (more than "
          << kMaxEvaluations << " evaluations): a coefficient is nearly singular there (an LSI schedule, or sigma(t) "
          << "near 0?)";
      throw std::domain_error(msg.str());
    }
    system(y, dy, s);
  };
  boost::numeric::odeint::integrate_adaptive(stepper, counted, x, t0, t1, dt);
}

}  // namespace rdpdyn

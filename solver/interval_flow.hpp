#pragma once
// The exact flow of the PDI (C21 eq. (13)) over one diffusion interval, by characteristics.
//
// For coefficients that do not depend on alpha, along dy/dt = a1 the PDI reads dw/dt <= a2 - a1 w
// (docs/math.md section 2.3), so over an interval of length tau
//
//   w(y, tau) <= exp(-A) w(y - A, 0) + psi,   A = int_0^tau a1,   psi = int_0^tau e^{-(A(tau)-A(s))} a2(s) ds,
//
// and the interval is summarised by the pair (A, psi): the "transport" and the "source".
#include "dynamics/privacy_program.hpp"

namespace rdpdyn {

/// Error control of the adaptive (Boost.Odeint) integration used for user-supplied schedules.
struct IntegrationTolerance {
  double relative = 1e-10;
  double absolute = 1e-14;
  /// The result is biased in the conservative direction by this multiple of the difference
  /// between a run at the tolerance and a run at tolerance/1000 (an a-posteriori error estimate).
  double safety_factor = 10.0;
};

/// Summary of one interval for a fixed gamma: w_end(y) = exp(-transport) w_start(y - transport)
/// + source. `transport` may be +infinity (point-mass start of the Gaussian-convolution family).
struct IntervalFlow {
  double transport = 0.0;
  double source = 0.0;
  /// The true transport lies within transport +- transport_error: 0 from the closed forms (their
  /// few ulps are left to the caller), the a-posteriori estimate for FunctionLsi.
  double transport_error = 0.0;
};

/// Flow for a fixed gamma in (0, 1]. start_inverse_lsi is 1/c at the start of the interval (used
/// by the Gaussian-convolution family). Exact closed forms for ConstantLsi and
/// GaussianConvolutionLsi; adaptive Dormand-Prince with the bias above for FunctionLsi.
IntervalFlow fixed_gamma_flow(const DiffusionInterval& interval, double gamma, double start_inverse_lsi,
                              double start_time, const IntegrationTolerance& tol);

/// True when fixed_gamma_piece has a closed form for the interval (constant or Gaussian-convolution
/// LSI): the flow over any sub-interval then costs a few elementary functions.
bool has_closed_form_pieces(const DiffusionInterval& interval);

/// Flow for a fixed gamma over the sub-interval [s_begin, s_end] of `interval` (interval-local
/// times; start_inverse_lsi is 1/c at s = 0). Closed forms only (see has_closed_form_pieces);
/// throws std::logic_error for a FunctionLsi. Used by the certification to follow curved
/// characteristics with a gamma that is constant on each piece (docs/finite-difference.md §5).
IntervalFlow fixed_gamma_piece(const DiffusionInterval& interval, double gamma, double start_inverse_lsi,
                               double s_begin, double s_end);

/// The scalar flow of w for data linear in alpha with gamma(t) chosen pointwise as the minimiser
/// of the right-hand side (docs/math.md section 3.4): dw/dt = P if Q w <= P else
/// 2 sqrt(P Q w) - Q w. Closed form for ConstantLsi and GaussianConvolutionLsi, adaptive for
/// FunctionLsi. Returns w at the end of the interval.
double optimal_gamma_flow(const DiffusionInterval& interval, double w_start, double start_inverse_lsi,
                          double start_time, const IntegrationTolerance& tol);

/// Inverse LSI constant at the end of the interval: A + 2 tau sigma^2 for the Gaussian
/// convolution family (C21 Lemma 9), 1/c for a constant schedule, 1/c(tau) for a function.
double end_inverse_lsi(const DiffusionInterval& interval, double start_inverse_lsi, double start_time);

}  // namespace rdpdyn

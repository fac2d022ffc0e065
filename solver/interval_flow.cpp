#include "solver/interval_flow.hpp"

#include <array>
#include <functional>
#include <boost/numeric/odeint.hpp>
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>

#include "dynamics/overloaded.hpp"
#include "dynamics/pdi.hpp"
#include "solver/guarded_integration.hpp"

namespace rdpdyn {
namespace {

namespace odeint = boost::numeric::odeint;
constexpr double kInf = std::numeric_limits<double>::infinity();

/// (1 - e^{-x}) / x, stable for small x, 1 at x = 0.
double one_minus_exp_over_x(double x) {
  if (x == 0.0) return 1.0;
  if (std::isinf(x)) return 0.0;
  return -std::expm1(-x) / x;
}

/// c(s) of a user schedule, checked: a schedule must be a finite non-negative LSI constant.
double checked_lsi(const FunctionLsi& f, double s, double t) {
  const double c = f.c(s, t, std::numeric_limits<double>::quiet_NaN());
  if (!(c >= 0.0) || std::isinf(c)) {
    std::ostringstream msg;
    msg << "LSI schedule '" << f.description() << "' gave c = " << c << " at s = " << s << ", t = " << t
        << ": it must be finite and >= 0";
    throw std::domain_error(msg.str());
  }
  return c;
}

/// Integrates a system with the Dormand-Prince 5(4) controlled stepper twice (tolerance and
/// tolerance / 1000) and returns both end states: the finer one is the value, their difference
/// the error estimate used for the conservative bias.
template <class System>
std::pair<std::array<double, 2>, std::array<double, 2>> integrate_twice(System system, std::array<double, 2> x0,
                                                                        double tau, const IntegrationTolerance& tol) {
  using State = std::array<double, 2>;
  auto run = [&](double scale) {
    State x = x0;
    auto stepper =
        odeint::make_controlled(tol.absolute * scale, tol.relative * scale, odeint::runge_kutta_dopri5<State>());
    integrate_guarded(stepper, system, x, 0.0, tau, tau / 64.0);
    return x;
  };
  return {run(1e-3), run(1.0)};
}

// ---- fixed gamma -------------------------------------------------------------------------------

IntervalFlow constant_fixed(const ConstantLsi& lsi, const DiffusionInterval& iv, double gamma, double tau) {
  // a1, a2 constant: A = a1 tau, psi = a2 (1 - e^{-a1 tau}) / a1 (C21 Thm 2 proof, eq. (13)).
  const double a1 = pdi::transport_speed(gamma, iv.sigma, lsi.c);
  const double a2 = pdi::source_rate(gamma, iv.sigma, iv.sensitivity);
  const double A = a1 * tau;
  return {A, a2 * tau * one_minus_exp_over_x(A)};
}

IntervalFlow gaussian_convolution_fixed(const DiffusionInterval& iv, double gamma, double A0, double tau) {
  // c(s) = 1/V(s), V(s) = A0 + 2 sigma^2 s (C21 Lemmas 8, 9; docs/math.md section 2.5):
  //   int_0^tau a1 = kappa ln(V(tau)/A0),  kappa = 1 - gamma,
  //   psi = a2 int_0^tau (V(s)/V(tau))^kappa ds = a2 V(tau) (1 - (A0/V(tau))^{kappa+1}) / ((kappa+1) 2 sigma^2).
  const double kappa = 1.0 - gamma;
  const double two_s2 = 2.0 * iv.sigma * iv.sigma;
  const double a2 = pdi::source_rate(gamma, iv.sigma, iv.sensitivity);
  const double V = A0 + two_s2 * tau;
  if (A0 <= 0.0) {  // point-mass start: V(0) = 0, ln V(tau)/V(0) = +infinity.
    return {kappa > 0.0 ? kInf : 0.0, a2 * tau / (kappa + 1.0)};
  }
  // 1/c = +infinity (c = 0, e.g. an expansive gradient map whose L^2k overflowed): a1 = 0 throughout,
  // the limit A0 -> infinity of the formulas below (which would give inf * 0).
  if (std::isinf(A0)) return {0.0, a2 * tau};
  const double log_ratio = std::log1p(two_s2 * tau / A0);  // ln(V(tau)/A0)
  const double one_minus_pow = -std::expm1(-(kappa + 1.0) * log_ratio);
  return {kappa * log_ratio, a2 * V * one_minus_pow / ((kappa + 1.0) * two_s2)};
}

/// c(s, t) of a schedule integrated numerically: a user function, or a constant whose interval has
/// time-dependent sigma(t) / S_v(t) (algorithm.kind = "pdi").
std::function<double(double, double)> lsi_of_time(const DiffusionInterval& iv) {
  using Lsi = std::function<double(double, double)>;
  return std::visit(
      Overloaded{[](const FunctionLsi& f) -> Lsi { return [&f](double s, double t) { return checked_lsi(f, s, t); }; },
                 [](const ConstantLsi& c) -> Lsi { return [c = c.c](double, double) { return c; }; },
                 [](const GaussianConvolutionLsi&) -> Lsi {
                   // C21 Lemma 9's family assumes one sigma over the interval; the configuration never builds it.
                   throw std::logic_error(
                       "time-dependent sigma(t) with the Gaussian-convolution LSI family is not supported");
                 }},
      iv.lsi);
}

IntervalFlow function_fixed(const DiffusionInterval& iv, double gamma, double t0, const IntegrationTolerance& tol) {
  // State (A, psi): A' = a1(s), psi' = a2(s) - a1(s) psi, every coefficient evaluated at t0 + s
  // (C21 eq. (13) with sigma(t), S_v(t), c(t)).
  const auto lsi = lsi_of_time(iv);
  auto system = [&](const std::array<double, 2>& x, std::array<double, 2>& dx, double s) {
    const double t = t0 + s;
    const double sigma = sigma_at(iv, t);
    const double a1 = pdi::transport_speed(gamma, sigma, lsi(s, t));
    dx[0] = a1;
    dx[1] = pdi::source_rate(gamma, sigma, sensitivity_at(iv, t)) - a1 * x[1];
  };
  const auto [fine, coarse] = integrate_twice(system, {0.0, 0.0}, iv.duration, tol);
  // Conservative bias: a smaller transport and a larger source can only raise the bound.
  const double err_A = tol.safety_factor * std::abs(fine[0] - coarse[0]) + 4e-16 * fine[0];
  const double err_psi = tol.safety_factor * std::abs(fine[1] - coarse[1]) + 4e-16 * fine[1];
  // The true transport lies within fine +- err_A, so within [returned, returned + 2 err_A].
  return {std::max(0.0, fine[0] - err_A), fine[1] + err_psi, 2.0 * err_A};
}

// ---- optimal gamma -----------------------------------------------------------------------------

double constant_optimal(const ConstantLsi& lsi, const DiffusionInterval& iv, double w0) {
  // Q constant. Regime Q w <= P: w' = P until w = P/Q; then in u = sqrt(w):
  // u' = sqrt(P Q) - Q u / 2, u -> u* = 2 sqrt(P/Q) exponentially (docs/math.md section 3.4).
  const double P = pdi::source_scale(iv.sigma, iv.sensitivity);
  const double Q = pdi::decay_scale(iv.sigma, lsi.c);
  double tau = iv.duration;
  if (Q == 0.0 || (P == 0.0 && w0 == 0.0)) return w0 + P * tau;
  double u0 = std::sqrt(w0);
  if (Q * w0 <= P) {
    const double t_switch = (P / Q - w0) / P;
    if (t_switch >= tau) return w0 + P * tau;
    tau -= t_switch;
    u0 = std::sqrt(P / Q);
  }
  const double u_star = 2.0 * std::sqrt(P / Q);
  const double u = u_star + (u0 - u_star) * std::exp(-0.5 * Q * tau);
  return u * u;
}

double gaussian_convolution_optimal(const DiffusionInterval& iv, double w0, double A0) {
  // Q(s) = 2 sigma^2 / V(s). The switch curve w = P/Q(s) = P V(s)/(2 sigma^2) solves both
  // regimes, so the regime of the start holds for the whole interval:
  //  - 2 sigma^2 w0 <= P A0: w = w0 + P tau;
  //  - else u = sqrt(w) solves u' = sqrt(P Q) - Q u/2 with integrating factor sqrt(V/A0):
  //    u(tau) = (u0 sqrt(A0) + tau sqrt(2 sigma^2 P)) / sqrt(V(tau)).
  const double P = pdi::source_scale(iv.sigma, iv.sensitivity);
  const double two_s2 = 2.0 * iv.sigma * iv.sigma;
  if (std::isinf(A0)) return w0 + P * iv.duration;  // c = 0: Q = 0 throughout (P * A0 may be 0 * inf)
  if (two_s2 * w0 <= P * A0) return w0 + P * iv.duration;
  const double V = A0 + two_s2 * iv.duration;
  const double u = (std::sqrt(w0) * std::sqrt(A0) + iv.duration * std::sqrt(two_s2 * P)) / std::sqrt(V);
  return u * u;
}

double function_optimal(const DiffusionInterval& iv, double w0, double t0, const IntegrationTolerance& tol) {
  const auto lsi = lsi_of_time(iv);
  auto system = [&](const std::array<double, 2>& x, std::array<double, 2>& dx, double s) {
    const double t = t0 + s;
    const double sigma = sigma_at(iv, t);
    const double P = pdi::source_scale(sigma, sensitivity_at(iv, t));
    const double Q = pdi::decay_scale(sigma, lsi(s, t));
    dx[0] = pdi::optimal_rate(P, Q, std::max(0.0, x[0]));
    dx[1] = 0.0;
  };
  const auto [fine, coarse] = integrate_twice(system, {w0, 0.0}, iv.duration, tol);
  return fine[0] + tol.safety_factor * std::abs(fine[0] - coarse[0]) + 4e-16 * fine[0];
}

}  // namespace

IntervalFlow fixed_gamma_flow(const DiffusionInterval& interval, double gamma, double start_inverse_lsi,
                              double start_time, const IntegrationTolerance& tol) {
  // Time-dependent sigma(t), S_v(t): no closed form, the coefficients are integrated exactly.
  if (interval.varies()) return function_fixed(interval, gamma, start_time, tol);
  return std::visit(Overloaded{
                        [&](const ConstantLsi& c) { return constant_fixed(c, interval, gamma, interval.duration); },
                        [&](const GaussianConvolutionLsi&) {
                          return gaussian_convolution_fixed(interval, gamma, start_inverse_lsi, interval.duration);
                        },
                        [&](const FunctionLsi&) { return function_fixed(interval, gamma, start_time, tol); },
                    },
                    interval.lsi);
}

bool has_closed_form_pieces(const DiffusionInterval& interval) {
  return lsi_has_closed_form(interval.lsi) && !interval.varies();
}

IntervalFlow fixed_gamma_piece(const DiffusionInterval& interval, double gamma, double start_inverse_lsi,
                               double s_begin, double s_end) {
  if (interval.varies())
    throw std::logic_error("fixed_gamma_piece: no closed form for time-dependent sigma(t), S_v(t)");
  const double tau = s_end - s_begin;
  return std::visit(
      Overloaded{[&](const ConstantLsi& c) { return constant_fixed(c, interval, gamma, tau); },
                 [&](const GaussianConvolutionLsi&) {
                   // 1/c at s_begin: A0 + 2 sigma^2 s_begin (C21 Lemma 9); the family restarts there.
                   const double A0 = start_inverse_lsi + 2.0 * interval.sigma * interval.sigma * s_begin;
                   return gaussian_convolution_fixed(interval, gamma, A0, tau);
                 },
                 [](const FunctionLsi&) -> IntervalFlow {
                   throw std::logic_error("fixed_gamma_piece: no closed form for a function LSI schedule");
                 }},
      interval.lsi);
}

double optimal_gamma_flow(const DiffusionInterval& interval, double w_start, double start_inverse_lsi,
                          double start_time, const IntegrationTolerance& tol) {
  if (interval.varies()) return function_optimal(interval, w_start, start_time, tol);
  return std::visit(Overloaded{
                        [&](const ConstantLsi& c) { return constant_optimal(c, interval, w_start); },
                        [&](const GaussianConvolutionLsi&) {
                          return gaussian_convolution_optimal(interval, w_start, start_inverse_lsi);
                        },
                        [&](const FunctionLsi&) { return function_optimal(interval, w_start, start_time, tol); },
                    },
                    interval.lsi);
}

double end_inverse_lsi(const DiffusionInterval& interval, double start_inverse_lsi, double start_time) {
  return std::visit(Overloaded{
                        [&](const ConstantLsi& c) { return 1.0 / c.c; },
                        [&](const GaussianConvolutionLsi&) {
                          if ((interval.varying && interval.varying->sigma.f))
                            throw std::logic_error(
                                "time-dependent sigma(t) with the Gaussian-convolution LSI family is not supported");
                          return start_inverse_lsi + 2.0 * interval.sigma * interval.sigma * interval.duration;
                        },
                        [&](const FunctionLsi& f) {
                          // An order-dependent schedule has no single LSI constant to carry on.
                          if (f.depends_on_alpha) return std::numeric_limits<double>::quiet_NaN();
                          const double c = checked_lsi(f, interval.duration, start_time + interval.duration);
                          return c > 0.0 ? 1.0 / c : kInf;
                        },
                    },
                    interval.lsi);
}

}  // namespace rdpdyn

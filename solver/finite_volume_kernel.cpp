#include "solver/finite_volume_kernel.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "dynamics/pdi.hpp"

namespace rdpdyn {

Limiter limiter_from_name(const std::string& name) {
  if (const auto limiter = value_named(kLimiterNames, name)) return *limiter;
  throw std::invalid_argument("unknown limiter '" + name + "'");
}

std::string limiter_name(Limiter limiter) { return name_of(kLimiterNames, limiter); }

double limited_slope(Limiter limiter, double backward, double forward) {
  if (limiter == Limiter::Upwind || backward * forward <= 0.0) return 0.0;  // extremum: first order
  switch (limiter) {
    case Limiter::Minmod:
      return std::abs(backward) < std::abs(forward) ? backward : forward;
    case Limiter::VanLeer:
      return 2.0 * backward * forward / (backward + forward);
    case Limiter::MonotonizedCentral: {
      const double central = 0.5 * (backward + forward);
      const double bound = 2.0 * std::min(std::abs(backward), std::abs(forward));
      return std::copysign(std::min(std::abs(central), bound), central);
    }
    case Limiter::Upwind:
      break;
  }
  return 0.0;
}

void linear_pdi_rhs(const double* w, const double* a1, const double* a2, std::int64_t begin, std::int64_t end,
                    double dy, Limiter limiter, double* dwdt) {
  // Face value on the left face of `begin` needs the slope of begin - 1 (uses begin - 2).
  auto face_right_of = [&](std::int64_t i) {
    return w[i] + 0.5 * limited_slope(limiter, w[i] - w[i - 1], w[i + 1] - w[i]);
  };
  double left_face = face_right_of(begin - 1);
  for (std::int64_t i = begin; i < end; ++i) {
    const double right_face = face_right_of(i);
    dwdt[i] = -a1[i] * (right_face - left_face) / dy + a2[i] - a1[i] * w[i];
    left_face = right_face;
  }
}

void linear_pdi_rhs_uniform(const double* w, double a1, double a2, std::int64_t begin, std::int64_t end, double dy,
                            Limiter limiter, double* dwdt) {
  auto face_right_of = [&](std::int64_t i) {
    return w[i] + 0.5 * limited_slope(limiter, w[i] - w[i - 1], w[i + 1] - w[i]);
  };
  const double speed = a1 / dy;
  double left_face = face_right_of(begin - 1);
  for (std::int64_t i = begin; i < end; ++i) {
    const double right_face = face_right_of(i);
    dwdt[i] = -speed * (right_face - left_face) + a2 - a1 * w[i];
    left_face = right_face;
  }
}

double optimal_gamma_at(double P, double Q, double z) { return pdi::optimal_gamma(P, Q, z); }

void optimal_gamma_rhs(const double* w, double P, const double* Q, std::int64_t begin, std::int64_t end, double dy,
                       double* dwdt) {
  for (std::int64_t i = begin; i < end; ++i) dwdt[i] = pdi::optimal_rate(P, Q[i], upwind_z(w, i, dy));
}

}  // namespace rdpdyn

#pragma once
// The LSI constant c(s) of an interval at a given time and order, and integrals of Q = 2 sigma^2 c.
#include "dynamics/privacy_program.hpp"

namespace rdpdyn {

/// c at time s inside `interval` (global time t = start + s) and order alpha; A0 is the inverse LSI
/// constant at the start of the interval (Gaussian-convolution family: c = 1/(A0 + 2 s sigma^2),
/// C21 Lemma 9). Throws std::domain_error when a user schedule gives a negative or non-finite c.
double lsi_constant_at(const DiffusionInterval& interval, double A0, double s, double t, double alpha);

/// An upper bound on int_0^duration max_alpha Q(s, alpha) ds over the given orders: the largest
/// distance any characteristic can travel in y during the interval (the transport speed
/// (1 - gamma) Q never exceeds Q). Exact for the closed-form families; for a user schedule or a
/// time-dependent sigma(t) the maximum of Q at s = 0, duration/2, duration over the orders, times
/// the duration (it sizes the finite-difference grid only; nothing reported depends on it).
double max_transport_bound(const DiffusionInterval& interval, double A0, double t_start, const double* alphas,
                           std::size_t count);

}  // namespace rdpdyn

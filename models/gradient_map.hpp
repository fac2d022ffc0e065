#pragma once
// The Lipschitz constant of a gradient step, shared by the LSI recursions (models/privacy_model.cpp,
// models/bounded_domain_lsi.hpp).
#include <algorithm>
#include <cmath>
#include <optional>

namespace rdpdyn {

/// The Lipschitz constant of theta -> theta - eta grad f for a loss with lambda I <= Hess f <= beta I:
/// max(|1 - eta lambda|, |1 - eta beta|) for every eta > 0, the largest |eigenvalue| of
/// I - eta Hess f along any segment (mean value theorem). lambda >= 0: a convex loss (Nesterov 2004,
/// Thm 2.1.15; 1 - eta lambda when eta <= 2/(lambda + beta), Ye & Shokri 2022 Lemma D.3); lambda < 0:
/// an m = -lambda weakly convex loss, 1 + eta m for eta <= 2/(beta - lambda); lambda = -beta: smooth
/// only, 1 + eta beta.
inline double gradient_map_lipschitz(double eta, double lambda, double beta) {
  return std::max(std::abs(1.0 - eta * lambda), std::abs(1.0 - eta * beta));
}

/// The Lipschitz constant of one update's gradient map. Poisson batches (rate q, normaliser q n): the
/// update's loss (1/(q n)) sum_{i in B} l_i has its Hessian bounds scaled by |B|/(q n), anywhere in
/// [0, 1/q] (from an empty batch to all n records); max(|1 - eta lambda x|, |1 - eta beta x|) is convex
/// in x, so its largest value is at an end: 1 (x = 0) or x = 1/q. Otherwise (full batch, fixed-size
/// batches) x = 1. `poisson_rate`: q, or nullopt.
inline double update_map_lipschitz(double eta, double lambda, double beta, std::optional<double> poisson_rate) {
  if (!poisson_rate) return gradient_map_lipschitz(eta, lambda, beta);
  const double x = 1.0 / *poisson_rate;
  return std::max(1.0, gradient_map_lipschitz(eta, lambda * x, beta * x));
}

}  // namespace rdpdyn

#include "analyses/chourasia_2021_closed_forms.hpp"

#include <cmath>

namespace rdpdyn::closed_forms {

double thm1(double alpha, double sensitivity_v, double sigma, double time) {
  return alpha * sensitivity_v * sensitivity_v * time / (4.0 * sigma * sigma);
}

double thm2(double alpha, double sensitivity_g, double n, double sigma, double lsi_c, double gamma, double time) {
  const double s2 = sigma * sigma;
  const double prefactor =
      alpha * sensitivity_g * sensitivity_g / (8.0 * gamma * (1.0 - gamma) * lsi_c * s2 * s2 * n * n);
  return prefactor * -std::expm1(-2.0 * (1.0 - gamma) * s2 * lsi_c * time);
}

double cor1(double alpha, double sensitivity_g, double n, double sigma, double lambda, double eta, double steps) {
  return alpha * sensitivity_g * sensitivity_g / (lambda * sigma * sigma * n * n) *
         -std::expm1(-lambda * eta * steps / 2.0);
}

double cor2(double alpha, double sensitivity_g, double n, double sigma, double eta, double steps) {
  return alpha * sensitivity_g * sensitivity_g / ((2.0 - eta) * sigma * sigma * n * n) *
         -std::expm1(-(2.0 - eta) * eta * steps / 2.0);
}

double thm3_exact(double alpha, double sensitivity_g, double n, double sigma, double eta, double steps) {
  const double q = std::pow(1.0 - eta, steps);
  const double one_minus_q = -std::expm1(steps * std::log1p(-eta));  // 1 - (1-eta)^K, stable
  return alpha * sensitivity_g * sensitivity_g / (4.0 * sigma * sigma * n * n) * (2.0 - eta) * one_minus_q / (1.0 + q);
}

double thm3_lower(double alpha, double sensitivity_g, double n, double sigma, double eta, double steps) {
  return alpha * sensitivity_g * sensitivity_g / (4.0 * sigma * sigma * n * n) * -std::expm1(-eta * steps);
}

double composition(double alpha, double sensitivity_g, double n, double sigma, double eta, double steps) {
  return alpha * sensitivity_g * sensitivity_g * eta * steps / (4.0 * n * n * sigma * sigma);
}

}  // namespace rdpdyn::closed_forms

#include "analyses/ye_shokri_2022/units_and_lsi.hpp"

#include <cmath>
#include <limits>

#include "analyses/ye_shokri_2022/detail.hpp"

namespace rdpdyn::ye_shokri {

using detail::require;

double gaussian_step_cost(double eta, double sigma, double sensitivity, double batch_size) {
  // YS22 Lemma 3.2, eq. (70): eta^2 (S_g/b)^2 / (2 * 2 eta sigma^2) = eta S_g^2 / (4 sigma^2 b^2).
  return eta * sensitivity * sensitivity / (4.0 * sigma * sigma * batch_size * batch_size);
}

double squared_lipschitz(double eta, double lambda) {
  // YS22 Lemma D.3 (proof): the step map is (1 - eta lambda)-Lipschitz.
  const double L = 1.0 - eta * lambda;
  return L * L;
}

double geometric_sum(std::int64_t m, double q) {
  require(m >= 0 && q >= 0.0 && q <= 1.0, "geometric_sum needs m >= 0 and q in [0, 1]");
  if (m == 0) return 0.0;
  if (q == 1.0) return static_cast<double>(m);
  if (q == 0.0) return 1.0;
  const double lq = std::log(q);
  return std::expm1(lq * static_cast<double>(m)) / std::expm1(lq);
}

double lsi_constant_convex(std::int64_t m, double eta, double sigma) {
  // YS22 Lemma D.2, eq. (71): 1/c_m = 2 eta sigma^2 m.
  require(m >= 0, "step index m must be >= 0");
  if (m == 0) return std::numeric_limits<double>::infinity();
  return 1.0 / (2.0 * eta * sigma * sigma * static_cast<double>(m));
}

double lsi_constant_strongly_convex(std::int64_t m, double eta, double sigma, double lambda) {
  // YS22 Lemma D.3, eq. (76): 1/c_m = 2 eta sigma^2 sum_{s<m} (1 - eta lambda)^{2s}.
  require(m >= 0, "step index m must be >= 0");
  if (m == 0) return std::numeric_limits<double>::infinity();
  return 1.0 / (2.0 * eta * sigma * sigma * geometric_sum(m, squared_lipschitz(eta, lambda)));
}

double lemma32_contraction(double lsi_c, double eta, double sigma, double lipschitz) {
  // YS22 Lemma 3.2, eq. (56): (1 + c 2 eta sigma^2 / L^2)^{-1}.
  if (std::isinf(lsi_c)) return 0.0;
  return 1.0 / (1.0 + lsi_c * 2.0 * eta * sigma * sigma / (lipschitz * lipschitz));
}

double contraction_factor(std::int64_t m, double q) {
  // (56) with c_m of (71)/(76): 2 c_m eta sigma^2 / q = 1 / (q S_m), so rho_m = q S_m / S_{m+1}.
  require(m >= 0 && q >= 0.0 && q <= 1.0, "contraction_factor needs m >= 0 and q in [0, 1]");
  if (m == 0) return 0.0;
  if (q == 1.0) return static_cast<double>(m) / static_cast<double>(m + 1);
  return q * geometric_sum(m, q) / geometric_sum(m + 1, q);
}

}  // namespace rdpdyn::ye_shokri

#include "analyses/ye_shokri_2022/recursions.hpp"

#include <cmath>

#include "analyses/ye_shokri_2022/detail.hpp"

namespace rdpdyn::ye_shokri {

using detail::require;

double plain_recursion_units(std::int64_t N, std::int64_t steps, std::int64_t j0, double q) {
  require(N >= 1 && j0 >= 0 && j0 < N && q >= 0.0 && q <= 1.0, "plain recursion needs 0 <= j0 < n/b, q in [0, 1]");
  // YS22 Lemma 3.2, eq. (56), with c_m of Lemma D.2/D.3: rho_m = q S_m / S_{m+1}, S_{m+1} = q S_m + 1.
  double u = 0.0, S = 0.0;
  for (std::int64_t m = 0; m < steps; ++m) {
    const double S1 = q * S + 1.0;
    if (m % N == j0)
      u += 1.0;
    else
      u *= q * S / S1;
    S = S1;
  }
  return u;
}

std::vector<double> shifted_recursion_units(std::int64_t N, std::int64_t steps, double q) {
  require(N >= 1 && q >= 0.0 && q <= 1.0, "shifted recursion needs n/b >= 1 and q in [0, 1]");
  // One run with the record in batch 0; batch j0 starts at its first use (point-initialisation
  // reduction; the shift of YS22 eqs. (82)/(92)), so its bound is this run's value after steps - j0 steps.
  std::vector<double> out(static_cast<std::size_t>(N), 0.0);
  double u = 0.0, S = 0.0;
  for (std::int64_t m = 0; m < steps; ++m) {
    const double S1 = q * S + 1.0;
    if (m % N == 0)
      u += 1.0;
    else
      u *= q * S / S1;
    S = S1;
    const std::int64_t j0 = steps - (m + 1);
    if (j0 < N) out[static_cast<std::size_t>(j0)] = u;
  }
  return out;
}

double d6_recursion_units(std::int64_t K, double q, double gamma) {
  require(K >= 0 && gamma > 0.0 && gamma <= 1.0 && q >= 0.0 && q <= 1.0,
          "the D.6 recursion needs K >= 0, gamma in (0, 1], q in [0, 1]");
  // YS22 eqs. (117)-(122) with split gamma: 1/c^{gamma} = 2 eta sigma^2 (q S_k + gamma), and the
  // remaining noise 2 (1-gamma) eta sigma^2 contracts by (q S_k + gamma) / S_{k+1}.
  const double cost = 1.0 / gamma;
  double u = 0.0, S = 0.0;
  for (std::int64_t k = 0; k < K; ++k) {
    const double S1 = q * S + 1.0;
    const double rho = (q * S + gamma) / S1;
    if (S1 == S) {  // S_k has converged: constant factor, solve the affine recursion in closed form
      const auto left = static_cast<double>(K - k);
      if (rho == 1.0) return u + left * cost;
      const double fixed = cost * rho / (1.0 - rho);
      return fixed + std::pow(rho, left) * (u - fixed);
    }
    u = (u + cost) * rho;
    S = S1;
  }
  return u;
}

}  // namespace rdpdyn::ye_shokri

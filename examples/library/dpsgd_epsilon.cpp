// DP-SGD accounted with rdpdyn's pure mathematics alone (rdpdyn::math: no PETSc, HDF5 or MPI):
// Poisson sampling at rate q with noise multiplier z for T steps composes T sampled Gaussian
// mechanisms, R(alpha) = T S_alpha(q, z) (Mironov, Talwar & Zhang 2019), converted to (epsilon, delta)
// at the best order alpha in [1.001, 1e4] (docs/library.md).
#include <cmath>
#include <cstdio>

#include <rdpdyn/accounting/epsilon_over_orders.hpp>
#include <rdpdyn/accounting/sampled_gaussian.hpp>

int main() {
  const double q = 0.01, z = 1.1, delta = 1e-5;
  const long steps = 10000;
  // S_alpha raised by its accuracy bound, times T, rounded up once more: an upper bound.
  const auto R = [&](double alpha) {
    return std::nextafter(steps * rdpdyn::sampled_gaussian_rdp_upper(q, z, alpha), 1e300);
  };
  const rdpdyn::EpsilonAtOrder e = rdpdyn::minimise_epsilon(R, delta);
  std::printf("dpsgd q %g z %g steps %ld delta %g epsilon %.17g order %.6g\n", q, z, steps, delta, e.epsilon, e.order);
  return 0;
}

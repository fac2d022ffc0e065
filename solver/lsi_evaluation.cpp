#include "solver/lsi_evaluation.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>

#include "dynamics/overloaded.hpp"

namespace rdpdyn {

double lsi_constant_at(const DiffusionInterval& iv, double A0, double s, double t, double alpha) {
  return std::visit(Overloaded{
                        [](const ConstantLsi& c) { return c.c; },
                        [&](const GaussianConvolutionLsi&) {
                          const double V = A0 + 2.0 * iv.sigma * iv.sigma * s;
                          return V > 0.0 ? 1.0 / V : std::numeric_limits<double>::infinity();
                        },
                        [&](const FunctionLsi& f) {
                          const double c = f.c(s, t, alpha);
                          if (!(c >= 0.0) || std::isinf(c)) {
                            std::ostringstream msg;
                            msg << "LSI schedule '" << f.description() << "' gave c = " << c << " at s = " << s
                                << ", t = " << t << ", alpha = " << alpha << ": it must be finite and >= 0";
                            throw std::domain_error(msg.str());
                          }
                          return c;
                        },
                    },
                    iv.lsi);
}

double max_transport_bound(const DiffusionInterval& iv, double A0, double t_start, const double* alphas,
                           std::size_t count) {
  const double two_s2 = 2.0 * iv.sigma * iv.sigma;
  if (starts_from_point_mass(iv.lsi, A0)) return std::numeric_limits<double>::infinity();
  if (std::holds_alternative<GaussianConvolutionLsi>(iv.lsi)) return std::log1p(two_s2 * iv.duration / A0);
  // Q = 2 sigma(t)^2 c sampled: this only sizes the grid and the time step of the finite-difference
  // scheme; the reported bound comes from the certification, which evaluates every coefficient.
  double q_max = 0.0;
  for (double s : {0.0, 0.5 * iv.duration, iv.duration}) {
    const double sigma = sigma_at(iv, t_start + s);
    for (std::size_t j = 0; j < count; ++j)
      q_max = std::max(q_max, 2.0 * sigma * sigma * lsi_constant_at(iv, A0, s, t_start + s, alphas[j]));
  }
  return q_max * iv.duration;
}

}  // namespace rdpdyn

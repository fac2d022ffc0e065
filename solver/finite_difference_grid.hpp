#pragma once
// The grid and discretisation settings of the finite-difference engine ([grid] in docs/config.md).
#include <cstdint>

#include "solver/finite_volume_kernel.hpp"

namespace rdpdyn {

struct FiniteDifferenceGrid {
  double alpha_min = 1.0 + 1e-6;  ///< left (inflow) edge of the grid
  double alpha_max = 0.0;         ///< right (outflow) edge; 0: 4 x the largest order
  std::int64_t cells = 2048;
  /// Time step: dt max Q (1 + 1/dy) <= cfl, the stability limit of the monotone optimal-gamma
  /// scheme, which also bounds the transport CFL number dt max a1 / dy by cfl.
  double cfl = 0.4;
  Limiter limiter = Limiter::MonotonizedCentral;
  /// Optimal-gamma certification: the field is kept at this many points in y ...
  std::int64_t gamma_samples = 256;
  /// ... at the start of each step, this many times through it, and at its end: memory
  /// (snapshots + 1) x samples x 4 bytes per step (5 kB by default).
  int gamma_snapshots_per_step = 4;
};

}  // namespace rdpdyn

#pragma once
// Cell kernels of the finite-difference engine, free of PETSc so that the benchmark's hand-written
// loop and the tests use the very same arithmetic.
//
// Cells are indexed globally; the caller's arrays are valid for i in [begin - 2, end + 1) for w
// (two ghost cells on the inflow side, one on the outflow side) and [begin, end) otherwise, exactly
// as a PETSc DMDA local array with stencil width 2.
#include <cstdint>
#include <string>

#include "numerics/name_table.hpp"

namespace rdpdyn {

/// Slope limiters of the second-order (MUSCL) reconstruction; Upwind is first order.
enum class Limiter { Upwind, Minmod, VanLeer, MonotonizedCentral };
/// The configuration's names of grid.limiter.
inline constexpr NameTable<Limiter, 4> kLimiterNames{{{Limiter::Upwind, "upwind"},
                                                      {Limiter::Minmod, "minmod"},
                                                      {Limiter::VanLeer, "van-leer"},
                                                      {Limiter::MonotonizedCentral, "mc"}}};

Limiter limiter_from_name(const std::string& name);  ///< "upwind", "minmod", "van-leer", "mc"
std::string limiter_name(Limiter limiter);

/// Limited slope (times dy) from the backward and forward differences of a cell.
double limited_slope(Limiter limiter, double backward, double forward);

/// Right-hand side of the linear PDI in characteristic variables (C21 eq. (13), docs/math.md section 2.2):
///   dw_i/dt = -a1_i (w_{i+1/2} - w_{i-1/2}) / dy + a2_i - a1_i w_i,
/// with upwind face values w_{i+1/2} = w_i + slope_i / 2 (a1 >= 0: information moves to larger y).
void linear_pdi_rhs(const double* w, const double* a1, const double* a2, std::int64_t begin, std::int64_t end,
                    double dy, Limiter limiter, double* dwdt);

/// The same with coefficients that do not depend on the order (one a1, one a2 for all cells).
void linear_pdi_rhs_uniform(const double* w, double a1, double a2, std::int64_t begin, std::int64_t end, double dy,
                            Limiter limiter, double* dwdt);

/// z_i = w_i + (w_i - w_{i-1}) / dy: the bracket R/alpha + (alpha - 1) dR/dalpha of C21 eq. (13)
/// divided by alpha, i.e. w + w_y, by the upwind (backward) difference.
inline double upwind_z(const double* w, std::int64_t i, double dy) { return w[i] + (w[i] - w[i - 1]) / dy; }

/// Right-hand side of the pointwise-optimal-gamma PDI, a Hamilton-Jacobi equation
///   w_t = H(w + w_y),  H(z) = min over gamma in (0,1] of [P/gamma - (1-gamma) Q z]
///                            = P if Q z <= P, else 2 sqrt(P Q z) - Q z   (docs/math.md section 3.4),
/// discretised with the backward difference: a monotone scheme (H is non-increasing in z) under
/// dt Q (1 + 1/dy) <= 1.
void optimal_gamma_rhs(const double* w, double P, const double* Q, std::int64_t begin, std::int64_t end, double dy,
                       double* dwdt);

/// The minimiser gamma* at a cell (1 where z <= P/Q).
double optimal_gamma_at(double P, double Q, double z);

}  // namespace rdpdyn

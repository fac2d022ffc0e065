#pragma once
// The reference engine ("reference"): the characteristic ODEs of the PDI (C21 eq. (13); docs/math.md
// section 2.3) integrated numerically with Boost.Odeint for any coefficients (a gamma field, LSI
// schedules that read alpha, time-varying sigma and S_v), one characteristic per order and record.
//
// With w = R/alpha and y = ln(alpha - 1), along dy/dt = b(alpha, t) the PDI with equality reads
// dw/dt = a(alpha, t) - b(alpha, t) w, where b = 2 (1 - gamma) sigma^2 c and a = S_v^2 / (4 gamma
// sigma^2). Each record's value at order alpha is found by following its characteristic back to
// its foot (the start, or the first step of a Gaussian-convolution family from a point mass, whose
// transport is infinite), then integrating (y, w) forward through the steps and their events.
//
// It is a cross-check of the two other engines, independent of both (no closed form, no grid): its
// cost grows as records x steps x orders, and its accuracy is the ODE solver's, controlled as the
// characteristics engine controls function schedules (the difference from a run at 1/1000 of the
// tolerance, times the safety factor, and at least the relative tolerance, added: an estimate, not a
// proof, stated in its HDF5 `method`). It does not take the pointwise-optimal gamma, nor the
// noisy-SGD worst case over placements.
#include <memory>

#include "solver/engine.hpp"

namespace rdpdyn {

/// At most this many order-steps of integration per solve (the sum over records of the steps
/// before them, times the orders): the reference engine is for runs a cross-check can afford.
inline constexpr double kReferenceEngineMaxWork = 2e7;

std::unique_ptr<Engine> make_reference_engine();

}  // namespace rdpdyn

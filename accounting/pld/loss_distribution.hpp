#pragma once
// A discrete privacy loss distribution (PLD) on a uniform grid, with the ledger that makes its
// (epsilon, delta) a certified upper bound (docs/pld.md).
//
// The PLD of a pair (P, Q) is the law of L = log dP/dQ (X) for X ~ P (Koskela, Jälkö & Honkela
// 2020, arXiv:1906.03049; Doroshenko, Ghazi, Kamath, Kumar & Manurangsi 2022, arXiv:2207.04380,
// "DGKKM"). Its privacy profile is delta(eps) = E[(1 - e^{eps - L})_+] (+ P(L = infinity)), and
// the PLD of a composition of pairs is the convolution of their PLDs.
//
// Certification rests on one fact: (1 - e^{eps - l})_+ is nondecreasing in l, so moving mass of any
// factor to larger losses can only raise the composed delta. Every approximation below moves mass up:
//  - discretise(): DGKKM's "connect the dots" PLD (Sec. 3) on the grid i h, whose tails are
//    T_i = (delta(ih - h) - e^{-h} delta(ih)) / (1 - e^{-h}) (docs/pld.md derives this from the
//    profile at the grid points alone); the profile is evaluated with an error bound and the tails
//    rounded up, so the PLD stochastically dominates the exact connect-the-dots PLD, which dominates
//    the pair's (DGKKM Thm 3.2; composition of dominating pairs: Zhu, Dong & Wang 2022, arXiv:2106.08567,
//    Thm 10);
//  - truncation: mass above the kept range goes to the infinity atom, mass below it to its lowest point;
//  - composition (fourier_composition.hpp): the window's tails are bounded and moved to the infinity
//    atom; FFT round-off is not a move: it is bounded (by a bound ASSUMED for FFTW's transforms, not
//    proved: real_fft.hpp) in a norm weighted by e^{theta l} (the transforms act on tilted masses),
//    the ledger W, which at epsilon costs at most e^{-theta epsilon} W: a fraction of delta near the
//    Chernoff-optimal theta, not an absolute amount that the k copies of a composition would
//    multiply. Errors that reach the infinity atom go to an unweighted ledger A; the rounding of the
//    tilts is componentwise relative (`relative_error`).
// A certified lower estimate comes for free: the PLD rounded DOWN to the grid has the tails T_{i+1},
// i.e. it is the connect-the-dots PLD shifted by -h; so the composition of k discretised factors,
// shifted by -k h, less the mass moved by truncation and the tails' excess, is below the exact one.
#include <cstdint>
#include <limits>
#include <vector>

#include "accounting/pld/dominating_pair.hpp"

namespace rdpdyn::pld {

struct LossDistribution {
  double h = 1e-4;             ///< grid spacing of the losses (nats)
  std::int64_t offset = 0;     ///< mass[i] sits at loss (offset + i) h
  std::vector<double> mass;    ///< finite losses
  double infinity_mass = 0.0;  ///< P(L = +infinity), including mass moved there by truncation
  double tilt = 0.0;           ///< theta >= 0 of the weighted error ledger
  /// log W: sum_i |error_i| e^{theta l_i} <= W (FFT round-off, mass dropped from the bottom);
  /// -infinity when there is none
  double log_weighted_error = -std::numeric_limits<double>::infinity();
  double absolute_error = 0.0;  ///< A: error that reached the infinity atom
  double relative_error = 0.0;  ///< componentwise relative error of `mass` (tilt rounding)
  double truncated = 0.0;       ///< mass moved up by truncations (subtracted by the lower estimate)
  double tail_excess = 0.0;     ///< bound on how far the tails exceed the exact connect-the-dots tails
  std::int64_t factors = 0;     ///< discretised pairs composed (the lower estimate's shift in h)
  /// The profile's sums over the masses above each grid point, from the top: above[j] = sum_{i >= j}
  /// m_i and decayed[j] = sum_{i >= j} m_i e^{l_j - l_i}, accumulated in the order (and so with the
  /// roundings) of one pass from the top. Empty until index_profile() builds them for a final PLD;
  /// then delta(epsilon) costs a lookup instead of a pass over the grid (the privacy profile and
  /// trade-off curves ask hundreds of epsilons).
  std::vector<double> above, decayed;

  double loss_at(std::size_t i) const { return static_cast<double>(offset + static_cast<std::int64_t>(i)) * h; }
  /// The error bound these ledgers add to delta at epsilon (before the relative factor).
  double error_at(double epsilon) const;
};

/// Whether h = 2^k or 3 2^k: then every grid point i h (|i| < 2^51) is an exact double, which the
/// certificate's comparisons and sums rely on.
bool is_exact_grid_spacing(double h);

/// How finely and how far: grid spacing h, and the largest mass a single truncation may move.
struct Discretisation {
  double h = 1e-4;
  double tail = 1e-15;
  std::size_t max_points = std::size_t{1} << 24;  ///< refuse (std::length_error) beyond
  double tilt = 0.0;                              ///< theta of the weighted error ledger (>= 0)
  /// log of the weighted mass sum m_i e^{theta l_i} a truncation may drop from the bottom (charged to
  /// the ledger W); -infinity (the default) drops nothing
  double log_error_budget = -std::numeric_limits<double>::infinity();
};

/// A pair's privacy profile on the last grid it was discretised on: the grid i h/2 of the next
/// refinement holds every point of it (i even), so those are not evaluated again.
struct ProfileMemo {
  double h = 0.0;             ///< 0: nothing remembered
  std::int64_t first = 0;     ///< the index i of delta.front(), at epsilon = i h
  std::vector<Approx> delta;  ///< the pair's hockey_stick at i h, i = first, first + 1, ...
};

/// The connect-the-dots PLD of `pair` on the grid i h, tails rounded up (see the header). `copies`:
/// how many times it will be composed (its truncations then move at most d.tail / copies each).
/// `memo` (optional): reused where its grid holds the point (the same double epsilon, so the same
/// value bit for bit), then replaced by this grid's profile.
LossDistribution discretise(const DominatingPair& pair, const Discretisation& d, double copies = 1.0,
                            ProfileMemo* memo = nullptr);

/// log sum_i m_i e^{theta l_i} over the finite masses (-infinity when there are none), rounded up.
double log_moment(const LossDistribution& p, double theta);

/// Builds pld.above and pld.decayed (see LossDistribution) for a PLD whose masses will not change.
void index_profile(LossDistribution& pld);

/// A PLD with all its mass at loss 0 (the identity of composition: no privacy cost).
LossDistribution no_loss(double h);

/// delta(epsilon) of the PLD: an upper bound of the exact composed pair's profile (value + round-off
/// + the sum's own rounding), and a certified lower estimate.
struct DeltaBounds {
  double upper = 0.0;
  double lower = 0.0;
};
DeltaBounds delta_at(const LossDistribution& pld, double epsilon);

/// The smallest epsilon >= 0 whose certified delta is <= delta (an upper bound of the exact
/// epsilon(delta)), and a certified lower bound of the exact epsilon(delta). delta in (0, 1).
/// upper is +infinity when even epsilon = +infinity leaves delta above (infinity mass + round-off).
struct EpsilonBounds {
  double upper = 0.0;
  double lower = 0.0;
};
EpsilonBounds epsilon_at(const LossDistribution& pld, double delta);

/// The epsilon at which the stored masses' profile (infinity atom + hockey sum, no ledgers) equals
/// delta: an estimate, not a bound (it steers the choice of a tilt). +infinity when the infinity atom
/// alone exceeds delta, -infinity when the whole profile is below it.
double profile_epsilon(const LossDistribution& pld, double delta);

}  // namespace rdpdyn::pld

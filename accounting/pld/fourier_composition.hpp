#pragma once
// The composition of a run's discretised PLDs in one pass through the frequency domain: each
// distinct step transformed once, the transforms raised to their counts and multiplied, one inverse
// transform (Koskela, Jälkö & Honkela 2020, arXiv:1906.03049, Sec. 6, compose this way), certified
// up to an assumed bound on FFTW's round-off (below; docs/pld.md, section 4).
//
// What makes it certified (every step proved, except the one marked ASSUMED):
//  - tilt: the transforms act on m_i e^{theta l_i} / E[e^{theta L}] (theta the Chernoff-optimal tilt
//    for the requested delta), so the round-off, bounded in L2 through the forward transforms (by
//    the assumed transform bound, last item), the powers (a product of n complex factors has relative error at most
//    (1 + sqrt 2 gamma_2)^n - 1, Higham Lemma 3.5) and the inverse, becomes the weighted ledger W
//    whose cost at epsilon is e^{-theta epsilon} W, a fixed small fraction of delta;
//  - window: the composed loss is computed modulo N grid cells, on a window [B, B + N) chosen by
//    Chernoff bounds of the composed moments (computed exactly on the discretised steps, rounded
//    up). Mass above it lands k N cells lower, multiplied by e^{theta k N h} (a downward move: the
//    bound on P(L >= (B + N) h) is added to the infinity atom); mass below B lands higher, divided
//    by e^{theta k N h}: with B <= 0 that removes only mass below every epsilon >= 0 asked (no effect
//    on delta(epsilon)); with B > 0 the bound on P(L < B h) is added to the infinity atom. The
//    bounds, and what the wrapped copies add, are subtracted from the lower estimate.
//  - ASSUMED: the round-off bound rests on Higham's Thm 24.2, proved for complex radix-2 transforms,
//    applied to FFTW's r2c/c2r (mixed radices, codelets) with a 4x margin on eta (real_fft.hpp). No
//    theorem covers FFTW's code; the assumption is backed by measurement only (single transforms and
//    every composition of the test suite against long double recomputations, fft_roundoff_probe.hpp;
//    docs/pld.md section 4), and the entries built on it say "certified up to an assumed FFT
//    round-off bound" (analyses/analysis.hpp, kFftRoundOffLabel).
#include <cstdint>
#include <span>

#include "accounting/pld/loss_distribution.hpp"

namespace rdpdyn::pld {

/// A discretised step (fresh from discretise(): no ledgers yet) and how often it is composed.
struct CountedLoss {
  const LossDistribution* pld = nullptr;
  std::int64_t count = 1;
};

struct FourierOptions {
  double reference_delta = 1e-5;  ///< the delta the result is read at: sets the tilt
  /// The tilt theta of the ledger: 0 = the Chernoff-optimal one for reference_delta (chernoff_tilt).
  double tilt = 0.0;
  double tail = 1e-12;                            ///< at most this much mass beyond each end of the window
  std::size_t max_points = std::size_t{1} << 22;  ///< refuse (std::length_error) a longer window
};

/// The PLD of the composition of the parts (one grid spacing), certified up to the assumed FFT
/// round-off bound (header). With RDPDYN_FFT_ROUNDOFF_PROBE set, each FFT pass is also measured
/// against a long double recomputation (fft_roundoff_probe.hpp; no effect on the result).
LossDistribution compose_in_fourier(std::span<const CountedLoss> parts, const FourierOptions& options);

/// The tilt theta minimising the Chernoff bound (log E[e^{theta L}] + log(1/delta)) / theta of the
/// composed parts' epsilon(delta), over the tilts 0.02 1.25^k up to 4096 (not certified; any theta is
/// sound).
double chernoff_tilt(std::span<const CountedLoss> parts, double delta);

/// The tilt theta minimising E[e^{theta L}] e^{-theta epsilon} over the same range: the one whose
/// round-off ledger costs least at epsilon (e^{-theta epsilon} W, loss_distribution.hpp).
double tilt_at_epsilon(std::span<const CountedLoss> parts, double epsilon);

}  // namespace rdpdyn::pld

#pragma once
// FFTW3's real transforms in double, and the bound on their round-off that the PLD accountant's
// certificate uses (fourier_composition.hpp, docs/pld.md section 4).
//
// The bound is ASSUMED, not proved, for these transforms. What is proved: Higham, "Accuracy and
// Stability of Numerical Algorithms" (2nd ed., 2002), Thm 24.2, for a complex radix-2 Cooley-Tukey
// FFT of length N = 2^t computed in floating point with precomputed twiddle factors of error at most
// mu: ||y^ - y||_2 <= rho ||y||_2, rho = log2(N) eta / (1 - log2(N) eta), eta = mu + gamma_4 (sqrt 2 + mu).
// What is assumed: that FFTW's r2c/c2r transforms (mixed radices, lengths 3 2^k as well as 2^k,
// generated codelets, real-input algorithms) obey the same bound with eta taken 4 times the radix-2
// value at mu = 2 u (fft_relative_error). No published theorem covers FFTW's code paths, and no check
// here proves it; the entries whose numbers come through it say "certified up to an assumed FFT
// round-off bound" in their status notes (analyses/analysis.hpp, kFftRoundOffLabel). What backs the
// assumption is measurement only: single transforms against long double DFTs
// (tests/accounting/test_pld.cpp) and every composition of the test suite against a long double
// recomputation (fft_roundoff_probe.hpp; the margin table in docs/pld.md section 4).
#include <complex>
#include <cstddef>
#include <span>

namespace rdpdyn::pld {

/// A transform length >= n of the form 2^k or 3 2^k (FFTW's fast sizes, few distinct plans).
std::size_t fft_size(std::size_t n);

/// Higham's rho with the assumed factor 4 on eta (header) for a double transform of length n:
/// ||fl(FFT x) - FFT x||_2 <= rho ||FFT x||_2, assumed (not proved) for FFTW's transforms.
double fft_relative_error(std::size_t n);

/// FFTW's real transforms of one length (FFTW_ESTIMATE plans, made once per length and shared:
/// deterministic, the same bits on every run), for work done in the frequency domain. Not copyable;
/// one per thread (planning is serialised, executing on distinct arrays is thread-safe).
class RealTransform {
 public:
  explicit RealTransform(std::size_t n);
  ~RealTransform();
  RealTransform(const RealTransform&) = delete;
  RealTransform& operator=(const RealTransform&) = delete;

  std::size_t size() const { return n_; }
  std::span<double> values() { return {values_, n_}; }                            ///< length n
  std::span<std::complex<double>> spectrum() { return {spectrum_, n_ / 2 + 1}; }  ///< length n/2 + 1
  /// values -> spectrum (unnormalised DFT; values are kept)
  void forward();
  /// spectrum -> values, unnormalised (n times the inverse DFT); overwrites the spectrum
  void inverse();

 private:
  std::size_t n_;
  double* values_ = nullptr;
  std::complex<double>* spectrum_ = nullptr;
  void* forward_plan_ = nullptr;
  void* inverse_plan_ = nullptr;
};

}  // namespace rdpdyn::pld

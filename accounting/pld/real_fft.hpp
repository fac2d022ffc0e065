#pragma once
// FFTW3's real transforms in double, and the bound on their round-off that the PLD accountant's
// certificate uses (fourier_composition.hpp, docs/pld.md section 4).
//
// The bound: Higham, "Accuracy and Stability of Numerical Algorithms" (2nd ed., 2002), Thm 24.2,
// gives for a radix-2 FFT of length N computed in floating point ||y^ - y||_2 <= rho ||y||_2 with
// rho = log2(N) eta / (1 - log2(N) eta), eta = mu + gamma_4 (sqrt 2 + mu), mu the error of the
// twiddle factors. FFTW uses mixed radices and codelets rather than plain radix 2; eta is taken 4
// times Higham's radix-2 value (mu = 2 u) to cover that, and the composition built on it is checked
// against exact long double compositions in tests/accounting/test_pld.cpp.
#include <complex>
#include <cstddef>
#include <span>

namespace rdpdyn::pld {

/// A transform length >= n of the form 2^k or 3 2^k (FFTW's fast sizes, few distinct plans).
std::size_t fft_size(std::size_t n);

/// Higham's rho (header) for a double transform of length n: ||fl(FFT x) - FFT x||_2 <= rho ||FFT x||_2.
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

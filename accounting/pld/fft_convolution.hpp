#pragma once
// Linear convolution of two nonnegative mass vectors by FFTW3's real transforms, with a bound on its
// round-off (docs/pld.md, "FFT round-off").
//
// The bound: Higham, "Accuracy and Stability of Numerical Algorithms" (2nd ed., 2002), Thm 24.2,
// gives for a radix-2 FFT of length N computed in floating point ||y^ - y||_2 <= rho ||y||_2 with
// rho = log2(N) eta / (1 - log2(N) eta), eta = mu + gamma_4 (sqrt 2 + mu), mu the error of the
// twiddle factors. For z = IFFT(FFT(a) . FFT(b)) / N this gives (first order, the product's own
// rounding gamma_3-sized)
//     ||z^ - z||_2 <= (2 rho + rho^2 + 4 u) (||a||_2 ||b||_1 + ||a||_1 ||b||_2) + rho ||a||_1 ||b||_2,
// using ||FFT(x)||_2 = sqrt(N) ||x||_2 and ||FFT(x)||_inf <= ||x||_1. FFTW uses mixed radices and
// codelets rather than plain radix 2; eta is taken 4 times Higham's radix-2 value (mu = 2 u) to cover
// that, and the bound is checked against exact (long double, direct) convolutions in
// tests/accounting/test_pld.cpp, where the measured error stays far below it. The L1 error, which is
// what a hockey-stick sum needs (its weights are in [0, 1]), is at most sqrt(len) times the L2 error.
#include <span>
#include <vector>

namespace rdpdyn::pld {

/// The result of a convolution and a bound on the L1 distance from the exact convolution of the
/// same (computed) inputs. Negative round-off is clamped to 0, which only brings entries closer to
/// the exact nonnegative values.
struct Convolution {
  std::vector<double> values;  ///< length a.size() + b.size() - 1
  double l1_error = 0.0;
};

/// Double transforms, or long double ones (x87 extended, u = 2^-64: about 2000 times less round-off,
/// about 3 times slower) where the double bound would be too large for the result's use.
enum class Precision { Double, Extended };

/// a * b (linear, not circular). Small inputs are convolved directly (then the bound is the
/// direct sum's gamma_n); larger ones by FFTW (FFTW_ESTIMATE plans: deterministic, the same bits on
/// every run). Thread-safe: plan creation is serialised.
Convolution convolve(std::span<const double> a, std::span<const double> b, Precision precision = Precision::Double);

/// The L1 bound convolve() would attach to an FFT convolution of a and b, without convolving.
double convolution_error_bound(std::span<const double> a, std::span<const double> b, Precision precision);

/// A transform length >= n of the form 2^k or 3 2^k (FFTW's fast sizes, few distinct plans).
std::size_t fft_size(std::size_t n);

}  // namespace rdpdyn::pld

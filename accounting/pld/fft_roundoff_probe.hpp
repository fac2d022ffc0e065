#pragma once
// A diagnostic, off by default: how far the FFT round-off of compose_in_fourier actually sits below
// the bound the certificate charges for it.
//
// Why it exists: that bound (real_fft.hpp, docs/pld.md section 4) applies Higham's Thm 24.2, proved
// for complex radix-2 transforms, to FFTW's mixed-radix real codelets with an assumed factor 4 on
// eta. Nothing proves it for FFTW's code, so every entry built on it is labelled "certified up to an
// assumed FFT round-off bound". This probe measures the margin of that assumption on real
// compositions (the test suite's); scripts/fft_margin_table.py summarises its lines and docs/pld.md
// section 4 keeps the table. It is no part of any certificate and changes no result.
//
// When the environment variable RDPDYN_FFT_ROUNDOFF_PROBE names a file, each FFT pass of
// compose_in_fourier is done again in long double (FFTW's fftwl_* interface, library fftw3l) from
// the same tilted double input arrays, counts and length n, and one line is appended to the file:
//
//   n=<N> parts=<distinct steps> count=<sum of counts> bound=<L1 bound> measured=<L1 distance> margin=<bound/measured>
//
// bound is the certified L1 round-off bound of the composition (l1_error of fourier_composition.cpp)
// and measured the L1 distance between the double result and the long double one, both in the tilted
// scale (the composed tilted masses, before untilting); margin < 1 would mean the assumed bound
// fails. The long double recomputation carries about 2^-11 of the double round-off, negligible here.
// Unset or empty: nothing is allocated and nothing is done.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

namespace rdpdyn::pld {

class FftRoundoffProbe {
 public:
  /// Inert unless RDPDYN_FFT_ROUNDOFF_PROBE is set: then a long double composition of length n.
  explicit FftRoundoffProbe(std::size_t n);
  ~FftRoundoffProbe();
  FftRoundoffProbe(const FftRoundoffProbe&) = delete;
  FftRoundoffProbe& operator=(const FftRoundoffProbe&) = delete;

  /// One part: its tilted array as it is transformed (length n), composed `count` times.
  void add_part(std::span<const double> tilted, std::int64_t count);
  /// The double composition's result (the unnormalised inverse transform, length n, and the factor 1/n
  /// it is read with) and its certified L1 round-off bound: appends the line.
  void report(std::span<const double> unnormalised, double scale, double l1_bound);

 private:
  struct State;
  std::unique_ptr<State> state_;  ///< null when inert
};

}  // namespace rdpdyn::pld

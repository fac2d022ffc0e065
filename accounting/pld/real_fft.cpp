#include "accounting/pld/real_fft.hpp"

#include <fftw3.h>

#include <algorithm>
#include <map>
#include <cmath>
#include <mutex>
#include <new>
#include <stdexcept>
#include <string>

namespace rdpdyn::pld {
namespace {

constexpr double u = 0x1p-53;

// Higham's rho (header) at the unit roundoff `unit`, with eta 4 times the radix-2 value.
double higham_rho(double unit, std::size_t n) {
  const double log2n = std::ceil(std::log2(static_cast<double>(std::max<std::size_t>(n, 2))));
  const double gamma4 = 4.0 * unit / (1.0 - 4.0 * unit);
  const double eta = 4.0 * (2.0 * unit + gamma4 * (std::sqrt(2.0) + 2.0 * unit));
  if (log2n * eta >= 0.5) throw std::runtime_error("FFT length too large for the error bound");
  return log2n * eta / (1.0 - log2n * eta);
}

}  // namespace

std::size_t fft_size(std::size_t n) {
  // 2^k or 3 2^k: few distinct lengths, so FFTW's plans (and their set-up) are reused.
  // Past 2^40 points no transform fits in memory; and past 2^63 the doubling below would wrap to 0
  // and never end (issue 34: a length cast from an unbounded double).
  if (n > (std::size_t{1} << 40))
    throw std::length_error("an FFT of " + std::to_string(n) + " points does not fit in memory");
  std::size_t p = 1;
  while (p < n) p *= 2;
  return (p / 4) * 3 >= n ? (p / 4) * 3 : p;
}

double fft_relative_error(std::size_t n) { return higham_rho(u, n); }

namespace {

// One pair of plans per length, made once (FFTW_ESTIMATE plans are cheap but compute their twiddle
// tables each time) and executed on any arrays from fftw_malloc (same alignment) through FFTW's
// new-array interface. Kept for the life of the process: a few lengths, a few MB of twiddles.
struct Plans {
  fftw_plan forward = nullptr, inverse = nullptr;
};

// Destroyed at exit with their plans (a cache whose map went away first would leave the plans
// unreachable: a leak to LeakSanitizer).
struct PlanCache {
  std::mutex m;  // FFTW's planner is not thread-safe; executing plans is
  std::map<std::size_t, Plans> plans;
  ~PlanCache() {
    for (auto& [n, p] : plans) {
      fftw_destroy_plan(p.forward);
      fftw_destroy_plan(p.inverse);
    }
  }
};

const Plans& plans_for(std::size_t n, double* values, fftw_complex* spectrum) {
  static PlanCache cache;
  std::lock_guard lock(cache.m);
  if (auto it = cache.plans.find(n); it != cache.plans.end()) return it->second;
  Plans p;
  p.forward = fftw_plan_dft_r2c_1d(static_cast<int>(n), values, spectrum, FFTW_ESTIMATE);
  p.inverse = fftw_plan_dft_c2r_1d(static_cast<int>(n), spectrum, values, FFTW_ESTIMATE);
  if (!p.forward || !p.inverse) {
    if (p.forward) fftw_destroy_plan(p.forward);
    if (p.inverse) fftw_destroy_plan(p.inverse);
    throw std::runtime_error("FFTW could not plan a transform of length " + std::to_string(n));
  }
  return cache.plans.emplace(n, p).first->second;
}

}  // namespace

RealTransform::RealTransform(std::size_t n) : n_(n) {
  if (n < 2 || n > static_cast<std::size_t>(1) << 30) throw std::invalid_argument("RealTransform: length out of range");
  values_ = static_cast<double*>(fftw_malloc(sizeof(double) * n));
  spectrum_ = reinterpret_cast<std::complex<double>*>(fftw_malloc(sizeof(fftw_complex) * (n / 2 + 1)));
  if (!values_ || !spectrum_) {
    fftw_free(values_);
    fftw_free(spectrum_);
    throw std::bad_alloc();
  }
  try {
    const Plans& p = plans_for(n, values_, reinterpret_cast<fftw_complex*>(spectrum_));
    forward_plan_ = p.forward;
    inverse_plan_ = p.inverse;
  } catch (...) {
    fftw_free(values_);
    fftw_free(spectrum_);
    throw;
  }
}

RealTransform::~RealTransform() {
  fftw_free(values_);
  fftw_free(spectrum_);
}

void RealTransform::forward() {
  fftw_execute_dft_r2c(static_cast<fftw_plan>(forward_plan_), values_, reinterpret_cast<fftw_complex*>(spectrum_));
}
void RealTransform::inverse() {
  fftw_execute_dft_c2r(static_cast<fftw_plan>(inverse_plan_), reinterpret_cast<fftw_complex*>(spectrum_), values_);
}

}  // namespace rdpdyn::pld

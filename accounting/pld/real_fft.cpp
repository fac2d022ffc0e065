#include "accounting/pld/real_fft.hpp"

#include <fftw3.h>

#include <algorithm>
#include <cmath>
#include <mutex>
#include <new>
#include <stdexcept>
#include <string>

namespace rdpdyn::pld {
namespace {

constexpr double u = 0x1p-53;

// FFTW's planner is not thread-safe; execution of distinct plans on distinct arrays is.
std::mutex& planner_mutex() {
  static std::mutex m;
  return m;
}

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
  std::size_t p = 1;
  while (p < n) p *= 2;
  return (p / 4) * 3 >= n ? (p / 4) * 3 : p;
}

double fft_relative_error(std::size_t n) { return higham_rho(u, n); }

RealTransform::RealTransform(std::size_t n) : n_(n) {
  if (n < 2 || n > static_cast<std::size_t>(1) << 30) throw std::invalid_argument("RealTransform: length out of range");
  values_ = static_cast<double*>(fftw_malloc(sizeof(double) * n));
  spectrum_ = reinterpret_cast<std::complex<double>*>(fftw_malloc(sizeof(fftw_complex) * (n / 2 + 1)));
  if (!values_ || !spectrum_) {
    fftw_free(values_);
    fftw_free(spectrum_);
    throw std::bad_alloc();
  }
  std::lock_guard lock(planner_mutex());
  auto* c = reinterpret_cast<fftw_complex*>(spectrum_);
  forward_plan_ = fftw_plan_dft_r2c_1d(static_cast<int>(n), values_, c, FFTW_ESTIMATE);
  inverse_plan_ = fftw_plan_dft_c2r_1d(static_cast<int>(n), c, values_, FFTW_ESTIMATE);
  if (!forward_plan_ || !inverse_plan_) {
    if (forward_plan_) fftw_destroy_plan(static_cast<fftw_plan>(forward_plan_));
    if (inverse_plan_) fftw_destroy_plan(static_cast<fftw_plan>(inverse_plan_));
    fftw_free(values_);
    fftw_free(spectrum_);
    throw std::runtime_error("FFTW could not plan a transform of length " + std::to_string(n));
  }
}

RealTransform::~RealTransform() {
  {
    std::lock_guard lock(planner_mutex());
    fftw_destroy_plan(static_cast<fftw_plan>(forward_plan_));
    fftw_destroy_plan(static_cast<fftw_plan>(inverse_plan_));
  }
  fftw_free(values_);
  fftw_free(spectrum_);
}

void RealTransform::forward() { fftw_execute(static_cast<fftw_plan>(forward_plan_)); }
void RealTransform::inverse() { fftw_execute(static_cast<fftw_plan>(inverse_plan_)); }

}  // namespace rdpdyn::pld

#include "accounting/pld/fft_convolution.hpp"

#include <fftw3.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <memory>
#include <mutex>
#include <numeric>
#include <stdexcept>

namespace rdpdyn::pld {
namespace {

constexpr double u = 0x1p-53;

// FFTW's planner is not thread-safe; execution of distinct plans on distinct arrays is.
std::mutex& planner_mutex() {
  static std::mutex m;
  return m;
}

double l1(std::span<const double> x) { return std::accumulate(x.begin(), x.end(), 0.0); }
double l2(std::span<const double> x) {
  double s = 0.0;
  for (double v : x) s += v * v;
  return std::sqrt(s);
}

// Direct convolution for short inputs: each entry is a sum of at most min(na, nb) nonnegative
// products, so its relative error is at most gamma_{m+1}; the L1 error at most gamma_{m+1} ||a||_1 ||b||_1.
Convolution direct(std::span<const double> a, std::span<const double> b) {
  Convolution c;
  c.values.assign(a.size() + b.size() - 1, 0.0);
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i] == 0.0) continue;
    for (std::size_t j = 0; j < b.size(); ++j) c.values[i + j] += a[i] * b[j];
  }
  const double m = static_cast<double>(std::min(a.size(), b.size()) + 1);
  c.l1_error = (m * u / (1.0 - m * u)) * l1(a) * l1(b) * (1.0 + 4.0 * u);
  return c;
}

}  // namespace

std::size_t fft_size(std::size_t n) {
  // 2^k or 3 2^k: few distinct lengths, so FFTW's plans (and their set-up) are reused.
  std::size_t p = 1;
  while (p < n) p *= 2;
  return (p / 4) * 3 >= n ? (p / 4) * 3 : p;
}

namespace {

// FFTW's double and long double interfaces, for one templated body.
template <class Real>
struct Fftw;
template <>
struct Fftw<double> {
  using complex = fftw_complex;
  using plan = fftw_plan;
  static constexpr double unit = 0x1p-53;
  static void* malloc(std::size_t n) { return fftw_malloc(n); }
  static void free(void* p) { fftw_free(p); }
  static plan r2c(int n, double* in, complex* out) { return fftw_plan_dft_r2c_1d(n, in, out, FFTW_ESTIMATE); }
  static plan c2r(int n, complex* in, double* out) { return fftw_plan_dft_c2r_1d(n, in, out, FFTW_ESTIMATE); }
  static void execute(plan p) { fftw_execute(p); }
  static void destroy(plan p) { fftw_destroy_plan(p); }
};
template <>
struct Fftw<long double> {
  using complex = fftwl_complex;
  using plan = fftwl_plan;
  static constexpr double unit = 0x1p-64;
  static void* malloc(std::size_t n) { return fftwl_malloc(n); }
  static void free(void* p) { fftwl_free(p); }
  static plan r2c(int n, long double* in, complex* out) { return fftwl_plan_dft_r2c_1d(n, in, out, FFTW_ESTIMATE); }
  static plan c2r(int n, complex* in, long double* out) { return fftwl_plan_dft_c2r_1d(n, in, out, FFTW_ESTIMATE); }
  static void execute(plan p) { fftwl_execute(p); }
  static void destroy(plan p) { fftwl_destroy_plan(p); }
};

template <class Real>
struct Buffer {
  using F = Fftw<Real>;
  void* p;
  explicit Buffer(std::size_t bytes) : p(F::malloc(std::max<std::size_t>(bytes, 16))) {
    if (!p) throw std::bad_alloc();
  }
  ~Buffer() { F::free(p); }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
};

template <class Real>
struct PlanHandle {
  typename Fftw<Real>::plan plan = nullptr;
  ~PlanHandle() {
    if (plan) {
      std::lock_guard lock(planner_mutex());
      Fftw<Real>::destroy(plan);
    }
  }
};

// Higham's bound (header) at the unit roundoff of Real, with eta 4 times the radix-2 value.
double fft_l1_bound(double unit, std::size_t n, std::size_t out, std::span<const double> a, std::span<const double> b) {
  const double log2n = std::ceil(std::log2(static_cast<double>(n)));
  const double gamma4 = 4.0 * unit / (1.0 - 4.0 * unit);
  const double eta = 4.0 * (2.0 * unit + gamma4 * (std::sqrt(2.0) + 2.0 * unit));
  if (log2n * eta >= 0.5) throw std::runtime_error("FFT length too large for the error bound");
  const double rho = log2n * eta / (1.0 - log2n * eta);
  const double a1 = l1(a), b1 = l1(b), a2 = l2(a), b2 = l2(b);
  const double l2_error = (2.0 * rho + rho * rho + 4.0 * unit) * (a2 * b1 + a1 * b2) + rho * a1 * b2 + 8.0 * unit * a1 * b2;
  // + the final rounding of each entry to double (at most u of its value, summing to u ||a||_1 ||b||_1)
  return std::sqrt(static_cast<double>(out)) * l2_error * (1.0 + 1e-6) + (unit < u ? u * a1 * b1 : 0.0);
}

template <class Real>
Convolution fft_convolve(std::span<const double> a, std::span<const double> b) {
  using F = Fftw<Real>;
  using C = typename F::complex;
  const bool self = a.data() == b.data() && a.size() == b.size();
  const std::size_t out = a.size() + b.size() - 1;
  const std::size_t n = fft_size(out);
  const std::size_t nc = n / 2 + 1;
  Buffer<Real> xb(sizeof(Real) * n), fab(sizeof(C) * nc), fbb(sizeof(C) * nc);
  auto* x = static_cast<Real*>(xb.p);
  auto* fa = static_cast<C*>(fab.p);
  auto* fb = static_cast<C*>(fbb.p);
  PlanHandle<Real> forward_a, forward_b, backward;
  {
    std::lock_guard lock(planner_mutex());
    forward_a.plan = F::r2c(static_cast<int>(n), x, fa);
    if (!self) forward_b.plan = F::r2c(static_cast<int>(n), x, fb);
    backward.plan = F::c2r(static_cast<int>(n), fa, x);
  }
  if (!forward_a.plan || (!self && !forward_b.plan) || !backward.plan)
    throw std::runtime_error("FFTW could not plan a transform of length " + std::to_string(n));
  std::fill(x, x + n, Real(0));
  std::copy(a.begin(), a.end(), x);
  F::execute(forward_a.plan);
  if (!self) {
    std::fill(x, x + n, Real(0));
    std::copy(b.begin(), b.end(), x);
    F::execute(forward_b.plan);
  }
  const C* g = self ? fa : fb;
  for (std::size_t k = 0; k < nc; ++k) {
    const Real re = fa[k][0] * g[k][0] - fa[k][1] * g[k][1];
    const Real im = fa[k][0] * g[k][1] + fa[k][1] * g[k][0];
    fa[k][0] = re;
    fa[k][1] = im;
  }
  F::execute(backward.plan);  // c2r overwrites its input: fa is not used again
  Convolution c;
  c.values.resize(out);
  const Real scale = Real(1) / static_cast<Real>(n);
  for (std::size_t i = 0; i < out; ++i) c.values[i] = static_cast<double>(std::max(Real(0), x[i] * scale));
  c.l1_error = fft_l1_bound(F::unit, n, out, a, b);
  return c;
}

}  // namespace

Convolution convolve(std::span<const double> a, std::span<const double> b, Precision precision) {
  if (a.empty() || b.empty()) return {};
  if (std::min(a.size(), b.size()) <= 32) return direct(a, b);
  return precision == Precision::Extended ? fft_convolve<long double>(a, b) : fft_convolve<double>(a, b);
}

double convolution_error_bound(std::span<const double> a, std::span<const double> b, Precision precision) {
  if (a.empty() || b.empty()) return 0.0;
  const std::size_t out = a.size() + b.size() - 1;
  return fft_l1_bound(precision == Precision::Extended ? 0x1p-64 : u, fft_size(out), out, a, b);
}

}  // namespace rdpdyn::pld

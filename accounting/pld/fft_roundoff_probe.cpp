#include "accounting/pld/fft_roundoff_probe.hpp"

#include <fcntl.h>
#include <fftw3.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <mutex>
#include <string>
#include <vector>

namespace rdpdyn::pld {
namespace {

constexpr const char* kVariable = "RDPDYN_FFT_ROUNDOFF_PROBE";

// FFTW's long double planner is not thread-safe (executing plans is); the directions of a PLD
// accountant compose on two threads.
std::mutex& planner_mutex() {
  static std::mutex m;
  return m;
}

// z^n by repeated squaring, as fourier_composition.cpp raises its double spectra.
void power_in_place(long double& re, long double& im, std::int64_t n) {
  long double rr = 1.0L, ri = 0.0L, br = re, bi = im;
  while (n > 0) {
    if (n & 1) {
      const long double t = rr * br - ri * bi;
      ri = rr * bi + ri * br;
      rr = t;
    }
    n >>= 1;
    if (n > 0) {
      const long double t = br * br - bi * bi;
      bi = 2.0L * br * bi;
      br = t;
    }
  }
  re = rr;
  im = ri;
}

// One line appended with a single write() on an O_APPEND descriptor: whole lines even when several
// test processes (ctest -j) and threads share the file.
void append_line(const std::string& path, const std::string& line) {
  static std::mutex m;
  std::lock_guard lock(m);
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  if (fd < 0 || ::write(fd, line.data(), line.size()) != static_cast<ssize_t>(line.size()))
    std::fprintf(stderr, "%s: could not append to %s\n", kVariable, path.c_str());
  if (fd >= 0) ::close(fd);
}

}  // namespace

struct FftRoundoffProbe::State {
  std::string path;
  std::size_t n = 0, nc = 0;
  long double* values = nullptr;
  fftwl_complex* spectrum = nullptr;
  fftwl_plan forward = nullptr, inverse = nullptr;
  std::vector<long double> zr, zi;  // the product of the raised spectra
  std::size_t parts = 0;
  std::int64_t count = 0;

  ~State() {
    {
      std::lock_guard lock(planner_mutex());
      if (forward) fftwl_destroy_plan(forward);
      if (inverse) fftwl_destroy_plan(inverse);
    }
    fftwl_free(values);
    fftwl_free(spectrum);
  }
};

FftRoundoffProbe::FftRoundoffProbe(std::size_t n) {
  const char* path = std::getenv(kVariable);
  if (!path || !*path) return;
  auto s = std::make_unique<State>();
  s->path = path;
  s->n = n;
  s->nc = n / 2 + 1;
  s->values = static_cast<long double*>(fftwl_malloc(sizeof(long double) * n));
  s->spectrum = static_cast<fftwl_complex*>(fftwl_malloc(sizeof(fftwl_complex) * s->nc));
  if (!s->values || !s->spectrum) {
    std::fprintf(stderr, "%s: no memory for a long double transform of length %zu\n", kVariable, n);
    return;
  }
  {
    std::lock_guard lock(planner_mutex());
    s->forward = fftwl_plan_dft_r2c_1d(static_cast<int>(n), s->values, s->spectrum, FFTW_ESTIMATE);
    s->inverse = fftwl_plan_dft_c2r_1d(static_cast<int>(n), s->spectrum, s->values, FFTW_ESTIMATE);
  }
  if (!s->forward || !s->inverse) {
    std::fprintf(stderr, "%s: FFTW could not plan a long double transform of length %zu\n", kVariable, n);
    return;
  }
  s->zr.assign(s->nc, 1.0L);
  s->zi.assign(s->nc, 0.0L);
  state_ = std::move(s);
}

FftRoundoffProbe::~FftRoundoffProbe() = default;

void FftRoundoffProbe::add_part(std::span<const double> tilted, std::int64_t count) {
  if (!state_) return;
  State& s = *state_;
  for (std::size_t i = 0; i < s.n; ++i) s.values[i] = i < tilted.size() ? static_cast<long double>(tilted[i]) : 0.0L;
  fftwl_execute(s.forward);
  for (std::size_t f = 0; f < s.nc; ++f) {
    long double re = s.spectrum[f][0], im = s.spectrum[f][1];
    power_in_place(re, im, count);
    const long double t = s.zr[f] * re - s.zi[f] * im;
    s.zi[f] = s.zr[f] * im + s.zi[f] * re;
    s.zr[f] = t;
  }
  s.parts += 1;
  s.count += count;
}

void FftRoundoffProbe::report(std::span<const double> unnormalised, double scale, double l1_bound) {
  if (!state_) return;
  State& s = *state_;
  for (std::size_t f = 0; f < s.nc; ++f) s.spectrum[f][0] = s.zr[f], s.spectrum[f][1] = s.zi[f];
  fftwl_execute(s.inverse);
  const long double n = static_cast<long double>(s.n);
  long double measured = 0.0L;
  for (std::size_t i = 0; i < s.n && i < unnormalised.size(); ++i) {
    const double y = unnormalised[i] * scale;  // as fourier_composition.cpp reads its result
    measured += std::fabs(static_cast<long double>(y) - s.values[i] / n);
  }
  const double m = static_cast<double>(measured);
  const double margin = m > 0.0 ? l1_bound / m : std::numeric_limits<double>::infinity();
  char buf[256];
  std::snprintf(buf, sizeof buf, "n=%zu parts=%zu count=%lld bound=%.6e measured=%.6e margin=%.6e\n", s.n, s.parts,
                static_cast<long long>(s.count), l1_bound, m, margin);
  append_line(s.path, buf);
}

}  // namespace rdpdyn::pld

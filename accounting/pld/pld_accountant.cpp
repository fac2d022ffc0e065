#include "accounting/pld/pld_accountant.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <future>
#include <limits>
#include <stdexcept>

#include "accounting/pld/fourier_composition.hpp"
#include "numerics/format_number.hpp"

namespace rdpdyn::pld {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kCoarsestGrid = 0x1p-7;
constexpr double kFinestGrid = 0x1p-18;

double worst_epsilon(const std::vector<LossDistribution>& plds, double delta) {
  double e = 0.0;
  for (const auto& p : plds) e = std::max(e, epsilon_at(p, delta).upper);
  return e;
}

}  // namespace

PldAccountant::PldAccountant(std::vector<Direction> directions, AccountantOptions options)
    : directions_(std::move(directions)), options_(options) {
  if (directions_.empty()) throw std::invalid_argument("a PLD accountant needs a composition");
  for (const auto& d : directions_)
    for (const auto& part : d)
      if (!part.pair || part.count < 1)
        throw std::invalid_argument("a PLD composition part needs a pair and a count >= 1");
  if (options_.grid != 0.0) {
    if (!is_exact_grid_spacing(options_.grid))
      throw std::invalid_argument("PLD grid " + format_number(options_.grid) + " must be 2^k or 3 x 2^k");
  }
  if (!(options_.accuracy > 0.0 && options_.accuracy < 1.0))
    throw std::invalid_argument("PLD accuracy " + format_number(options_.accuracy) + " must lie in (0, 1)");
}

PldAccountant::Composed PldAccountant::compose_at(double h, double reference_delta) const {
  std::size_t parts = 0;
  for (const auto& d : directions_) parts += d.size();
  // The directions are independent compositions: the second runs on another thread (FFTW executes
  // plans on distinct arrays concurrently; its planner is serialised in real_fft.cpp).
  if (memos_.size() != directions_.size()) {
    memos_.assign(directions_.size(), {});
    for (std::size_t i = 0; i < directions_.size(); ++i) memos_[i].resize(directions_[i].size());
  }
  auto compose_direction = [&](const Direction& direction, std::vector<ProfileMemo>& memos) {
    Discretisation d;
    d.h = h;
    d.max_points = options_.max_points;
    // The mass each step's discretisation moves to infinity (counted in delta in full) costs at
    // most ~1e-7 of delta; the window of the composition at most ~4e-8 more (fourier_composition.hpp).
    d.tail = 1e-7 * reference_delta / static_cast<double>(std::max<std::size_t>(parts, 1));
    std::vector<LossDistribution> ones;
    for (std::size_t k = 0; k < direction.size(); ++k)
      ones.push_back(discretise(*direction[k].pair, d, static_cast<double>(direction[k].count), &memos[k]));
    std::vector<CountedLoss> counted;
    for (std::size_t k = 0; k < ones.size(); ++k) counted.push_back({&ones[k], direction[k].count});
    FourierOptions f;
    f.reference_delta = reference_delta;
    f.tail = 1e-8 * reference_delta;
    f.max_points = options_.max_points;
    LossDistribution composed = compose_in_fourier(counted, f);
    index_profile(composed);
    return composed;
  };
  Composed c;
  c.h = h;
  std::vector<std::future<LossDistribution>> others;
  for (std::size_t i = 1; i < directions_.size(); ++i)
    others.push_back(std::async(std::launch::async, compose_direction, std::cref(directions_[i]), std::ref(memos_[i])));
  c.plds.push_back(compose_direction(directions_.front(), memos_.front()));
  for (auto& f : others) c.plds.push_back(f.get());
  return c;
}

const PldAccountant::Composed& PldAccountant::chosen(double reference_delta) const {
  std::lock_guard lock(mutex_);
  if (auto it = cache_.find(reference_delta); it != cache_.end()) return it->second;
  // A composition that does not fit fails the same way every time: remember it, so that the many
  // queries of one report (profiles, group conversions, calibration) do not discretise it again.
  if (auto it = failures_.find(reference_delta); it != failures_.end()) throw std::length_error(it->second);
  const double first_grid = options_.grid > 0.0 ? options_.grid : kCoarsestGrid;
  Composed prev;
  try {
    prev = compose_at(first_grid, reference_delta);
  } catch (const std::length_error& e) {
    failures_.emplace(reference_delta, e.what());
    throw;
  }
  if (options_.grid > 0.0) return cache_.emplace(reference_delta, std::move(prev)).first->second;
  double eps_prev = worst_epsilon(prev.plds, reference_delta);
  for (double h = kCoarsestGrid / 2.0; h >= kFinestGrid; h /= 2.0) {
    if (!std::isfinite(eps_prev)) break;  // delta below what the certificate resolves: no finer grid helps
    Composed cur;
    try {
      cur = compose_at(h, reference_delta);
    } catch (const std::length_error&) {
      break;  // the finer grid does not fit: keep the certified coarser one
    }
    const double eps_cur = worst_epsilon(cur.plds, reference_delta);
    // Richardson (connect-the-dots is second order in h), and a grid that resolves epsilon itself
    // (a loss bounded near epsilon, as the add pairs' -log(1 - q), is otherwise one cell wide).
    const bool done =
        std::fabs(eps_prev - eps_cur) <= 3.0 * options_.accuracy * eps_cur && h <= 20.0 * options_.accuracy * eps_cur;
    prev = std::move(cur);
    eps_prev = eps_cur;
    if (done) break;
  }
  return cache_.emplace(reference_delta, std::move(prev)).first->second;
}

double PldAccountant::grid(double reference_delta) const { return chosen(reference_delta).h; }

EpsilonBounds PldAccountant::epsilon(double delta) const {
  const Composed& c = chosen(delta);
  EpsilonBounds out{0.0, 0.0};
  for (const auto& p : c.plds) {
    const EpsilonBounds e = epsilon_at(p, delta);
    out.upper = std::max(out.upper, e.upper);
    out.lower = std::max(out.lower, e.lower);
  }
  return out;
}

DeltaBounds PldAccountant::delta(double epsilon, double reference_delta) const {
  if (!(epsilon >= 0.0))
    throw std::invalid_argument("PLD delta: epsilon = " + format_number(epsilon) + " must be >= 0");
  const Composed& c = chosen(reference_delta);
  DeltaBounds out{0.0, 0.0};
  for (const auto& p : c.plds) {
    const DeltaBounds d = delta_at(p, epsilon);
    out.upper = std::max(out.upper, d.upper);
    out.lower = std::max(out.lower, d.lower);
  }
  return out;
}

PrivacyCurves PldAccountant::curves(double reference_delta, double smallest_delta, std::size_t points) const {
  const Composed& c = chosen(reference_delta);
  points = std::max<std::size_t>(points, 2);
  double top = worst_epsilon(c.plds, smallest_delta);
  if (!std::isfinite(top)) top = worst_epsilon(c.plds, reference_delta) * 2.0;
  if (!std::isfinite(top) || top <= 0.0) top = 1.0;
  PrivacyCurves out;
  for (std::size_t i = 0; i < points; ++i) {
    const double eps = top * static_cast<double>(i) / static_cast<double>(points - 1);
    double d = 0.0;
    for (const auto& p : c.plds) d = std::max(d, delta_at(p, eps).upper);
    out.epsilon.push_back(eps);
    out.delta.push_back(d);
  }
  // Type I errors: dense near 0 (where the curve is steep), then uniform.
  for (std::size_t j = 0; j < points; ++j) {
    const double x = static_cast<double>(j) / static_cast<double>(points - 1);
    const double alpha = x * x;
    double beta = 0.0;
    for (std::size_t i = 0; i < out.epsilon.size(); ++i) {
      const double e = out.epsilon[i], d = out.delta[i];
      beta = std::max({beta, 1.0 - d - std::exp(e) * alpha, std::exp(-e) * (1.0 - d - alpha)});
    }
    // rounded down: a lower bound on the type II error
    out.alpha.push_back(alpha);
    out.beta.push_back(beta > 0.0 ? std::nextafter(beta * (1.0 - 1e-15), 0.0) : 0.0);
  }
  return out;
}

}  // namespace rdpdyn::pld

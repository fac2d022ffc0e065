#include "solver/certification.hpp"

#include "numerics/spec_error.hpp"
#include "solver/guarded_integration.hpp"

#include <algorithm>
#include <array>
#include <boost/numeric/odeint.hpp>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "dynamics/pdi.hpp"
#include "dynamics/rdp_interpolation.hpp"
#include "numerics/numerical_failure.hpp"
#include "solver/lsi_evaluation.hpp"

namespace rdpdyn {
namespace {

namespace odeint = boost::numeric::odeint;
using State1 = std::array<double, 1>;
using State2 = std::array<double, 2>;

double order_of(double y) { return 1.0 + std::exp(y); }

}  // namespace

Certifier::Certifier(const PrivacyProgram& program, const InitialCurve& initial, IntegrationTolerance tol,
                     CertificationMethod method, CloudSettings cloud)
    : initial_(initial), tol_(tol), method_(method), cloud_settings_(cloud) {
  double inverse_lsi = program.initial_inverse_lsi, t = 0.0;
  frames_.reserve(static_cast<std::size_t>(program.step_count()));
  program.for_each_step([&](std::int64_t k, const ProgramStep& step) {
    Frame f;
    f.step = &step;
    for (const auto& e : step.before) {
      update_inverse_lsi(inverse_lsi, e);
      f.jump_before += rdp_slope_jump(e);
    }
    f.t_start = t;
    f.inverse_lsi = inverse_lsi;
    f.point_mass = starts_from_point_mass(step.diffusion.lsi, inverse_lsi);
    if (f.point_mass && step.gamma.is_field())
      throw SpecError("analysis.gamma", "\"" + step.gamma.description() + "\"",
                      "a gamma field that depends on alpha is not supported on an interval that starts from a point "
                      "mass (step " +
                          std::to_string(k + 1) + ")");
    inverse_lsi = end_inverse_lsi(step.diffusion, inverse_lsi, t);
    t = f.t_start + step.diffusion.duration;
    for (const auto& e : step.after) {
      update_inverse_lsi(inverse_lsi, e);
      f.jump_after += rdp_slope_jump(e);
    }
    frames_.push_back(f);
  });
  // Kinds and straight stretches (their flows depend only on the program: composed once here).
  prefix_.resize(frames_.size());
  step_flows_.resize(frames_.size());
  stretch_start_.assign(frames_.size(), 0);
  for (std::size_t k = 0; k < frames_.size(); ++k) {
    Frame& f = frames_[k];
    const ProgramStep& step = *f.step;
    const DiffusionInterval& iv = step.diffusion;
    const bool alpha_lsi = lsi_depends_on_alpha(iv.lsi);
    const auto ik = static_cast<std::int64_t>(k);
    BoundedFlow core;
    if (step.gamma.is_field() || alpha_lsi) {
      f.kind = Kind::Shooting;
    } else if (!step.gamma.is_optimal()) {
      // A fixed gamma: a1 = (1 - gamma) Q(t) does not depend on y (docs/math.md §2.3).
      f.kind = Kind::Straight;
      const IntervalFlow flow = fixed_gamma_flow(iv, step.gamma.value, f.inverse_lsi, f.t_start, tol_);
      core = bounded(flow.transport, flow.source, flow.transport_error);
    } else if (f.point_mass) {
      // Optimal gamma from a point mass: w at the end does not depend on the start (erased).
      f.kind = Kind::Straight;
      core = {0.0, 0.0, flow_rounding::up(erased_value(ik)), true};
    } else {
      f.kind = has_closed_form_pieces(iv) ? Kind::Piecewise : Kind::Shooting;
    }
    any_piecewise_ |= f.kind == Kind::Piecewise;
    any_shooting_ |= f.kind == Kind::Shooting;
    if (f.kind != Kind::Straight) continue;
    const BoundedFlow step_flow = compose(compose(jump(f.jump_before), core), jump(f.jump_after));
    step_flows_[k] = step_flow;
    const bool continues = k > 0 && frames_[k - 1].kind == Kind::Straight;
    prefix_[k] = continues ? compose(prefix_[k - 1], step_flow) : step_flow;
    stretch_start_[k] = continues ? stretch_start_[k - 1] : ik;
  }
}

double Certifier::gamma_at(std::int64_t step, double y, double t, const OptimalGammaLookup& optimal) const {
  const GammaChoice& g = step_at(step).gamma;
  double gamma = g.value;
  if (g.is_optimal()) gamma = optimal.gamma(step, y, t);
  if (g.is_field()) gamma = g.field(order_of(y), t);
  if (!(gamma > 0.0 && gamma <= 1.0))
    throw std::domain_error(std::string(g.is_optimal() ? "optimal gamma" : "gamma field") + " gave " +
                            std::to_string(gamma) + " at alpha = " + std::to_string(order_of(y)) +
                            ", t = " + std::to_string(t) + ": it must be in (0, 1]");
  return gamma;
}

std::vector<double> Certifier::pieces(std::int64_t step, const OptimalGammaLookup& optimal) const {
  // Interval-local times 0 = s_0 < s_1 < ... < s_m = duration at which the gamma field may jump.
  const double duration = step_at(step).diffusion.duration;
  const double t0 = frames_[static_cast<std::size_t>(step)].t_start;
  std::vector<double> cuts{0.0};
  if (step_at(step).gamma.is_optimal() && optimal.switch_times)
    for (double t : optimal.switch_times(step))
      if (t - t0 > cuts.back() + 1e-12 * duration && t - t0 < duration * (1.0 - 1e-12)) cuts.push_back(t - t0);
  cuts.push_back(duration);
  return cuts;
}

double Certifier::trace_back(std::int64_t step, double y_end, const OptimalGammaLookup& optimal) const {
  const Frame& f = frames_[static_cast<std::size_t>(step)];
  const DiffusionInterval& iv = step_at(step).diffusion;
  auto system = [&](const State1& x, State1& dx, double s) {
    const double t = f.t_start + s;
    const double Q = pdi::decay_scale(sigma_at(iv, t), lsi_constant_at(iv, f.inverse_lsi, s, t, order_of(x[0])));
    dx[0] = (1.0 - gamma_at(step, x[0], t, optimal)) * Q;
  };
  State1 y{y_end};
  const std::vector<double> cuts = pieces(step, optimal);
  for (std::size_t i = cuts.size() - 1; i > 0; --i) {
    auto stepper = odeint::make_controlled(tol_.absolute, tol_.relative, odeint::runge_kutta_dopri5<State1>());
    integrate_guarded(stepper, system, y, cuts[i], cuts[i - 1], -(cuts[i] - cuts[i - 1]) / 16.0);
  }
  return y[0];
}

void Certifier::advance(std::int64_t step, double& y, double& w, const OptimalGammaLookup& optimal,
                        double tolerance_scale) const {
  const Frame& f = frames_[static_cast<std::size_t>(step)];
  const DiffusionInterval& iv = step_at(step).diffusion;
  // Along dy/dt = a1: dw/dt = a2 - a1 w, a1 = (1-gamma) Q, a2 = P / gamma (C21 eq. (13)), with
  // sigma(t) and S_v(t) evaluated at every time the integrator asks for.
  auto system = [&](const State2& x, State2& dx, double s) {
    const double t = f.t_start + s;
    const double sigma = sigma_at(iv, t);
    const double P = pdi::source_scale(sigma, sensitivity_at(iv, t));
    const double Q = pdi::decay_scale(sigma, lsi_constant_at(iv, f.inverse_lsi, s, t, order_of(x[0])));
    const double gamma = gamma_at(step, x[0], t, optimal);
    const double a1 = (1.0 - gamma) * Q;
    dx[0] = a1;
    dx[1] = P / gamma - a1 * x[1];
  };
  State2 x{y, w};
  const std::vector<double> cuts = pieces(step, optimal);
  for (std::size_t i = 0; i + 1 < cuts.size(); ++i) {
    auto stepper = odeint::make_controlled(tol_.absolute * tolerance_scale, tol_.relative * tolerance_scale,
                                           odeint::runge_kutta_dopri5<State2>());
    integrate_guarded(stepper, system, x, cuts[i], cuts[i + 1], (cuts[i + 1] - cuts[i]) / 16.0);
  }
  y = x[0];
  w = x[1];
}

double Certifier::erased_value(std::int64_t step) const {
  const ProgramStep& ps = step_at(step);
  const DiffusionInterval& iv = ps.diffusion;
  if (ps.gamma.is_optimal())
    return optimal_gamma_flow(iv, 0.0, 0.0, frames_[static_cast<std::size_t>(step)].t_start, tol_);
  if (ps.gamma.value < 1.0) return fixed_gamma_flow(iv, ps.gamma.value, 0.0, 0.0, tol_).source;
  return std::numeric_limits<double>::quiet_NaN();  // gamma = 1: no transport, nothing erased
}

Certifier::Landing Certifier::land(std::int64_t steps, double aim, const OptimalGammaLookup& optimal) const {
  // Backwards: from the aim at the end of `steps` to the foot (t = 0), or to the end of the last
  // point-mass interval whose outcome does not depend on the past.
  double y = aim;
  std::int64_t first = 0;
  double w_start = std::numeric_limits<double>::quiet_NaN();
  for (std::int64_t k = steps - 1; k >= 0; --k) {
    const Frame& f = frames_[static_cast<std::size_t>(k)];
    if (f.point_mass) {
      const double erased = erased_value(k);
      if (!std::isnan(erased)) {
        first = k + 1;
        w_start = erased + f.jump_after;
        break;
      }
      continue;  // gamma = 1 on a point mass: no transport, y unchanged
    }
    y = trace_back(k, y, optimal);
  }
  const double y_foot = y;
  if (std::isnan(w_start)) {
    const double a0 = order_of(y_foot);
    w_start = initial_rdp(initial_, a0) / a0;
  }
  // Forwards twice (tolerance and tolerance/1000): the value and its error estimate.
  std::array<double, 2> y_end{}, w_end{};
  for (int run = 0; run < 2; ++run) {
    double yy = y_foot, ww = w_start;
    for (std::int64_t k = first; k < steps; ++k) {
      const Frame& f = frames_[static_cast<std::size_t>(k)];
      ww += f.jump_before;
      if (f.point_mass) {  // gamma = 1 here (erasing ones were handled above): w += P tau
        const DiffusionInterval& iv = step_at(k).diffusion;
        ww += pdi::source_scale(iv.sigma, iv.sensitivity) * iv.duration;
      } else {
        advance(k, yy, ww, optimal, run == 0 ? 1e-3 : 1.0);
      }
      ww += f.jump_after;
    }
    y_end[static_cast<std::size_t>(run)] = yy;
    w_end[static_cast<std::size_t>(run)] = ww;
  }
  // Safe direction: a lower landing order (R is non-decreasing in alpha) and a larger w.
  const double y_err = tol_.safety_factor * std::abs(y_end[0] - y_end[1]) + 1e-14 * (1.0 + std::abs(y_end[0]));
  const double w_err = tol_.safety_factor * std::abs(w_end[0] - w_end[1]) + 4e-16 * std::abs(w_end[0]);
  return {y_end[0] - y_err, order_of(y_end[0] + y_err) * (w_end[0] + w_err), y_err};
}

CertifiedValue Certifier::shoot(std::int64_t steps, double order, const OptimalGammaLookup& optimal) const {
  // Two certified points bracketing the order: R at the order is at most the upper point's bound
  // (monotonicity) and at most the chord of (alpha - 1) R through both (convexity), see
  // dynamics/rdp_interpolation.hpp. The chord makes the result tight to second order in the gap.
  const double y_target = std::log(order - 1.0);
  const double margin = 1e-9 * (1.0 + std::abs(y_target));
  Landing above{}, below{};
  double aim = y_target + margin;
  bool found = false;
  for (int attempt = 0; attempt < 6 && !found; ++attempt) {
    above = land(steps, aim, optimal);
    found = above.y >= y_target;
    if (!found) aim += 2.0 * (y_target - above.y) + above.y_error + margin;
  }
  if (!found)
    throw NumericalFailure("certification could not land a characteristic at or above alpha = " +
                           std::to_string(order));
  const double gap = std::max(above.y - y_target, 0.0) + above.y_error + margin;
  aim = y_target - gap;
  found = false;
  for (int attempt = 0; attempt < 6 && !found; ++attempt) {
    below = land(steps, aim, optimal);
    found = below.y <= y_target;
    if (!found) aim -= 2.0 * (below.y - y_target) + below.y_error + margin;
  }
  const double a_up = order_of(above.y);
  const double bound_up = above.rdp;
  if (!found || !(below.y < above.y)) return {bound_up, a_up};
  const std::array<double, 2> alphas{order_of(below.y), a_up};
  const std::array<double, 2> bounds{below.rdp, bound_up};
  return {rdp_upper_interpolation(alphas, bounds, order), a_up};
}

void Certifier::fill_cuts(std::int64_t step, const OptimalGammaLookup& optimal, std::vector<double>& cuts) const {
  const double duration = step_at(step).diffusion.duration;
  const double t0 = frames_[static_cast<std::size_t>(step)].t_start;
  cuts.assign(1, 0.0);
  if (optimal.switch_times)
    for (double t : optimal.switch_times(step))
      if (t - t0 > cuts.back() + 1e-12 * duration && t - t0 < duration * (1.0 - 1e-12)) cuts.push_back(t - t0);
  cuts.push_back(duration);
}

const std::vector<Certifier::Piece>& Certifier::pieces_of(std::int64_t step, const OptimalGammaLookup& optimal) const {
  if (piece_cache_.size() < frames_.size()) piece_cache_.resize(frames_.size());
  std::vector<Piece>& pieces = piece_cache_[static_cast<std::size_t>(step)];
  if (!pieces.empty()) return pieces;
  const Frame& f = frames_[static_cast<std::size_t>(step)];
  const DiffusionInterval& iv = step_at(step).diffusion;
  std::vector<double> cuts;
  fill_cuts(step, optimal, cuts);
  for (std::size_t i = 0; i + 1 < cuts.size(); ++i) {
    // int Q over the piece: the transport at gamma = 1/2 is exactly half of it.
    const double L = 2.0 * fixed_gamma_piece(iv, 0.5, f.inverse_lsi, cuts[i], cuts[i + 1]).transport;
    pieces.push_back({cuts[i], cuts[i + 1], f.t_start + 0.5 * (cuts[i] + cuts[i + 1]), L});
  }
  return pieces;
}

bool Certifier::land_composed(std::int64_t steps, double aim, const OptimalGammaLookup& optimal, Scratch& scratch,
                              Landing& out) const {
  using flow_rounding::kEps;
  using flow_rounding::up;
  scratch.segments.clear();
  scratch.gammas.clear();
  // Backwards: choose the path. Its exact landing is checked by the forward pass, so the choices
  // here need not be exact, only close to the characteristic of the gamma field.
  double y = aim;
  bool erased = false;
  std::int64_t k = steps - 1;
  while (k >= 0 && !erased) {
    const Frame& f = frames_[static_cast<std::size_t>(k)];
    if (f.kind == Kind::Shooting) return false;
    if (f.kind == Kind::Straight) {
      const BoundedFlow& stretch = prefix_[static_cast<std::size_t>(k)];
      scratch.segments.push_back({k, stretch, 0, 0, true});
      y -= stretch.transport;
      erased = stretch.erased;
      k = stretch_start_[static_cast<std::size_t>(k)] - 1;
      continue;
    }
    // Optimal gamma: one gamma per piece between snapshots, the field's value at the piece's
    // midpoint on the path (a midpoint rule for the position: one predictor step).
    const std::vector<Piece>& pieces = pieces_of(k, optimal);
    const std::size_t begin = scratch.gammas.size();
    for (auto p = pieces.rbegin(); p != pieces.rend(); ++p) {
      const double g_end = gamma_at(k, y, p->t_mid, optimal);
      const double g = gamma_at(k, y - 0.5 * (1.0 - g_end) * p->decay_integral, p->t_mid, optimal);
      scratch.gammas.push_back(g);
      y -= (1.0 - g) * p->decay_integral;
    }
    scratch.segments.push_back({k, {}, begin, scratch.gammas.size(), false});
    --k;
  }
  // The foot: the path starts at y (an exact double) at t = 0, or after an erasure.
  double w = 0.0;
  if (!erased) {
    // alpha = 1 + e^y to a few ulps: R_0 at an order above, divided by one below.
    const double a0 = order_of(y);
    w = initial_rdp(initial_, a0 * (1.0 + 4.0 * kEps)) / (a0 * (1.0 - 4.0 * kEps));
    if (!(w >= 0.0)) return false;
  }
  // Forwards along the chosen path, rounding outward: the landing y within +- y_err and w above.
  double y_err = 0.0;
  for (auto seg = scratch.segments.rbegin(); seg != scratch.segments.rend(); ++seg) {
    if (seg->straight) {
      y += seg->flow.transport;
      y_err += seg->flow.transport_error + kEps * std::abs(y);
      w = apply(seg->flow, w);
      continue;
    }
    const Frame& f = frames_[static_cast<std::size_t>(seg->step)];
    const DiffusionInterval& iv = step_at(seg->step).diffusion;
    const std::vector<Piece>& pieces = pieces_of(seg->step, optimal);
    w = up(w + f.jump_before);
    // Pieces were pushed from the last to the first.
    for (std::size_t i = 0; i < pieces.size(); ++i) {
      const double g = scratch.gammas[seg->gamma_end - 1 - i];
      const IntervalFlow piece = fixed_gamma_piece(iv, g, f.inverse_lsi, pieces[i].s0, pieces[i].s1);
      const BoundedFlow bf = bounded(piece.transport, piece.source, piece.transport_error);
      y += bf.transport;
      y_err += bf.transport_error + kEps * std::abs(y);
      w = apply(bf, w);
    }
    w = up(w + f.jump_after);
  }
  // Same conventions as land(): claimed at the lower end, valued at the upper end.
  y_err = up(y_err) + 1e-14 * (1.0 + std::abs(y));
  out = {y - y_err, up(order_of(y + y_err) * (1.0 + 4.0 * kEps) * w), y_err};
  return std::isfinite(out.rdp);
}

CertifiedValue Certifier::shoot_composed(std::int64_t steps, double order, const OptimalGammaLookup& optimal,
                                         Scratch& scratch) const {
  // The landing is known to rounding (y_err ~ 1e-13): one path aimed just above the order, valued
  // by monotonicity of R in alpha (van Erven & Harremoes 2014, Thm 3).
  const double y_target = std::log(order - 1.0);
  // y_target itself is within a few ulps of ln(alpha - 1): aim and claim beyond that.
  const double margin = 1e-14 * (1.0 + std::abs(y_target));
  const double y_claim = y_target + margin;
  double aim = y_claim + margin;
  Landing landing{};
  for (int attempt = 0; attempt < 6; ++attempt) {
    if (!land_composed(steps, aim, optimal, scratch, landing)) return {0.0, 0.0};
    if (landing.y >= y_claim) return {landing.rdp, order_of(landing.y)};
    aim += (y_claim - landing.y) + landing.y_error + margin;
  }
  return {0.0, 0.0};
}

double Certifier::cloud_spacing(double y) const {
  // Spacing h where alpha - 1 >= 1, h / sqrt(alpha - 1) below, at most 1/2: the chord of
  // (alpha - 1) R between orders alpha(1 +- h/2) near alpha = 1 errs by about (alpha - 1) h^2 R'/(4R)
  // relative (R is nearly linear there), so the spacing can grow like (alpha - 1)^(-1/2).
  return std::min(0.5, cloud_settings_.spacing * std::max(1.0, std::exp(-0.5 * y)));
}

std::vector<double> Certifier::cloud_seeds(double y_top) const {
  std::vector<double> seeds;
  for (double y = cloud_settings_.y_min; y <= y_top; y += cloud_spacing(y)) seeds.push_back(y);
  return seeds;
}

bool Certifier::cloud_pays(std::span<const double> orders) const {
  if (!any_piecewise_ || any_shooting_) return false;  // straight runs cost O(1) per value already
  if (method_ == CertificationMethod::Cloud) return true;
  if (method_ != CertificationMethod::Composed) return false;
  // Paths: every value walks back over the curved steps (half the run on average); the cloud
  // advances each of its paths over every step once. Both cost about one piece flow per step.
  const double steps = static_cast<double>(frames_.size());
  const double records =
      cloud_settings_.expected_records > 0 ? static_cast<double>(cloud_settings_.expected_records) : steps + 1.0;
  const double cloud_size = static_cast<double>(cloud_seeds(cloud_top(orders)).size());
  // Paths cost a backward and a forward walk (about 1.5 cloud steps); the cloud is preferred only
  // at half the cost, as its chords are a little looser than a path landing on the order.
  const double path_cost = 1.5 * records * static_cast<double>(orders.size()) * steps / 2.0;
  return path_cost > 2.0 * steps * cloud_size;
}

double Certifier::cloud_top(std::span<const double> orders) const {
  // Paths move towards larger orders: seeds up to just above the largest order suffice (one
  // more spacing-sized margin so that the largest order has a neighbour above).
  double top = -std::numeric_limits<double>::infinity();
  for (double a : orders) top = std::max(top, std::log(a - 1.0));
  return top + 4.0 * cloud_settings_.spacing;
}

void Certifier::advance_cloud(std::int64_t steps, std::span<const double> orders,
                              const OptimalGammaLookup& optimal) const {
  using flow_rounding::kEps;
  using flow_rounding::up;
  if (cloud_step_ < 0) {
    for (double y : cloud_seeds(cloud_top(orders))) {
      const double a0 = order_of(y);
      const double w = initial_rdp(initial_, a0 * (1.0 + 4.0 * kEps)) / (a0 * (1.0 - 4.0 * kEps));
      if (!std::isfinite(w)) break;  // beyond a table's end: R_0 = +infinity
      cloud_.push_back({y, 0.0, w});
    }
    cloud_step_ = 0;
  }
  for (; cloud_step_ < steps; ++cloud_step_) {
    const std::int64_t k = cloud_step_;
    const Frame& f = frames_[static_cast<std::size_t>(k)];
    if (f.kind == Kind::Straight) {
      const BoundedFlow& flow = step_flows_[static_cast<std::size_t>(k)];
      for (CloudPath& p : cloud_) {
        p.y += flow.transport;
        p.y_error += flow.transport_error + kEps * std::abs(p.y);
        p.w = apply(flow, p.w);
      }
      continue;
    }
    // Optimal gamma: forwards, the field's gamma at the piece's midpoint on the path (one
    // predictor step from the piece's start), constant on the piece.
    const DiffusionInterval& iv = step_at(k).diffusion;
    const std::vector<Piece>& pieces = pieces_of(k, optimal);
    for (CloudPath& p : cloud_) {
      p.w = up(p.w + f.jump_before);
      for (const Piece& piece : pieces) {
        const double g_start = gamma_at(k, p.y, piece.t_mid, optimal);
        const double g = gamma_at(k, p.y + 0.5 * (1.0 - g_start) * piece.decay_integral, piece.t_mid, optimal);
        const IntervalFlow fl = fixed_gamma_piece(iv, g, f.inverse_lsi, piece.s0, piece.s1);
        const BoundedFlow bf = bounded(fl.transport, fl.source, fl.transport_error);
        p.y += bf.transport;
        p.y_error += bf.transport_error + kEps * std::abs(p.y);
        p.w = apply(bf, p.w);
      }
      p.w = up(p.w + f.jump_after);
    }
    reshape_cloud(cloud_top(orders));
  }
}

Certifier::CloudPath Certifier::cloud_start(double y, double rdp_bound) const {
  // A path starting now at y with R(alpha(y)) <= rdp_bound, which must hold at an order at or
  // above the true alpha(y) = 1 + e^y (the caller evaluates its bound there, see cloud_node).
  using flow_rounding::kEps;
  return {y, 0.0, flow_rounding::up(rdp_bound / (order_of(y) * (1.0 - 4.0 * kEps)))};
}

void Certifier::cloud_node(const CloudPath& p, double& alpha_claimed, double& bound) const {
  using flow_rounding::kEps;
  using flow_rounding::up;
  const double e = up(p.y_error) + 1e-14 * (1.0 + std::abs(p.y));
  // 1 + e^y is rounded to a few ulps of alpha, which near alpha = 1 is more than e in y: the claimed
  // order is lowered by 4 ulps of alpha (R is non-decreasing: a lower claim stays certified).
  alpha_claimed = order_of(p.y - e) * (1.0 - 4.0 * kEps);
  bound = up(order_of(p.y + e) * (1.0 + 4.0 * kEps) * p.w);
}

void Certifier::reshape_cloud(double y_top) const {
  using flow_rounding::kEps;
  using flow_rounding::up;
  if (cloud_.empty()) return;  // every seed had an infinite start: nothing to carry
  // Paths may cross where the gamma field is steep: order them (each stays valid on its own).
  std::sort(cloud_.begin(), cloud_.end(), [](const CloudPath& a, const CloudPath& b) { return a.y < b.y; });
  std::vector<CloudPath> out;
  out.reserve(cloud_.size() + 16);
  // Below the lowest path: new paths valued by monotonicity, R(alpha) <= R(alpha_lowest) (van Erven &
  // Harremoes 2014, Thm 3), the finite-difference grid's inflow closure; tight as alpha -> 1.
  {
    std::vector<CloudPath> below;
    double alpha = 0.0, bound = 0.0;
    cloud_node(cloud_.front(), alpha, bound);
    for (double y = cloud_.front().y - cloud_spacing(cloud_.front().y); y >= cloud_settings_.y_min;
         y -= cloud_spacing(y))
      if (order_of(y) * (1.0 + 4.0 * kEps) <= alpha) below.push_back(cloud_start(y, bound));
    out.assign(below.rbegin(), below.rend());
  }
  for (std::size_t i = 0; i < cloud_.size(); ++i) {
    const CloudPath& p = cloud_[i];
    if (p.y > y_top + 1.0) break;  // far above every order: no longer needed
    out.push_back(p);
    if (i + 1 == cloud_.size()) break;
    // Where the flow spreads the paths, new ones start between them, valued by the chord of
    // (alpha - 1) R through the neighbours' certified points (dynamics/rdp_interpolation.hpp).
    const CloudPath& q = cloud_[i + 1];
    const double gap = q.y - p.y;
    const double allowed = cloud_settings_.max_gap * cloud_spacing(0.5 * (p.y + q.y));
    if (gap <= allowed || p.y > y_top) continue;
    const int pieces = static_cast<int>(std::ceil(gap / (0.5 * allowed)));
    std::array<double, 2> alphas{}, bounds{};
    cloud_node(p, alphas[0], bounds[0]);
    cloud_node(q, alphas[1], bounds[1]);
    for (int m = 1; m < pieces; ++m) {
      const double y = p.y + gap * m / pieces;
      const double a_up = order_of(y) * (1.0 + 4.0 * kEps);
      // Nodes at an order that rounds to 1 or below are off the convexity chord's domain.
      if (!(1.0 < alphas[0] && alphas[0] < a_up && a_up <= alphas[1])) continue;
      out.push_back(cloud_start(y, up(rdp_upper_interpolation(alphas, bounds, a_up))));
    }
  }
  cloud_.swap(out);
}

CertifiedValue Certifier::from_cloud(double order) const {
  using flow_rounding::kEps;
  using flow_rounding::up;
  // Each path certifies R at its lower end alpha(y - e) by alpha(y + e) w (as land() does). The
  // nearest path claimed below the order and the nearest at or above it bound R at the order
  // by the chord of (alpha - 1) R and by monotonicity (dynamics/rdp_interpolation.hpp).
  const double y_target = std::log(order - 1.0);
  const double margin = 1e-14 * (1.0 + std::abs(y_target));
  const CloudPath* lo = nullptr;
  const CloudPath* hi = nullptr;
  for (const CloudPath& p : cloud_) {
    const double claim = p.y - (up(p.y_error) + 1e-14 * (1.0 + std::abs(p.y)));
    if (claim < y_target - margin) {
      if (lo == nullptr || p.y > lo->y) lo = &p;
    } else if (claim >= y_target + margin) {
      if (hi == nullptr || p.y < hi->y) hi = &p;
    }
  }
  if (lo == nullptr || hi == nullptr) return {0.0, 0.0};
  if (hi->y - lo->y > cloud_settings_.max_gap * cloud_spacing(0.5 * (hi->y + lo->y))) return {0.0, 0.0};
  std::array<double, 2> alphas{}, bounds{};
  cloud_node(*lo, alphas[0], bounds[0]);
  cloud_node(*hi, alphas[1], bounds[1]);
  // alpha(y) is computed to a few ulps: the nodes' orders are claimed 1e-14 inside the
  // bracket (margin above), so they stay on their sides of the order.
  // A node claimed at an order <= 1 (alpha - 1 below a few ulps) is off the chord's domain.
  if (!(1.0 < alphas[0] && alphas[0] < order && order <= alphas[1])) return {0.0, 0.0};
  // The chord's arithmetic: a few operations on positive terms.
  const double value = up(rdp_upper_interpolation(alphas, bounds, order));
  if (!std::isfinite(value)) return {0.0, 0.0};
  return {value, alphas[1]};
}

std::vector<CertifiedValue> Certifier::certify(std::int64_t steps, std::span<const double> orders,
                                               const OptimalGammaLookup& optimal) const {
  std::vector<CertifiedValue> out;
  out.reserve(orders.size());
  Scratch scratch;
  // Early records take their own paths: short walks, and the chords of the cloud are loosest
  // there (kinks of tabulated data are not yet damped). Later ones use the cloud when it pays.
  bool cloud = !orders.empty() && cloud_pays(orders);
  if (cloud) {
    advance_cloud(steps, orders, optimal);
    const double paths_until = cloud_settings_.path_steps >= 0
                                   ? static_cast<double>(cloud_settings_.path_steps)
                                   : 4.0 * static_cast<double>(cloud_.size()) / static_cast<double>(orders.size());
    if (steps == 0 || static_cast<double>(steps) <= paths_until) cloud = false;
  }
  for (double order : orders) {
    if (method_ != CertificationMethod::Shooting) {
      if (cloud) {
        const CertifiedValue v = from_cloud(order);
        if (v.landing_order > 0.0) {
          ++cloud_values_;
          out.push_back(v);
          continue;
        }
      }
      const CertifiedValue v = shoot_composed(steps, order, optimal, scratch);
      if (v.landing_order > 0.0) {
        ++path_values_;
        out.push_back(v);
        continue;
      }
    }
    out.push_back(shoot(steps, order, optimal));  // the reference, and the fallback
  }
  return out;
}

}  // namespace rdpdyn

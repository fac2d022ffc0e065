#include "analyses/group_privacy.hpp"

#include <cmath>
#include <limits>
#include <memory>
#include <stdexcept>
#include <vector>

#include "accounting/epsilon_delta.hpp"
#include "accounting/gaussian_dp.hpp"
#include "numerics/outward_rounding.hpp"

namespace rdpdyn {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kU = outward::kUnitRoundoff;

// The smallest c with 2^c >= k.
int doubling_exponent(std::int64_t k) {
  int c = 0;
  while ((std::int64_t{1} << c) < k) ++c;
  return c;
}

// The record-level delta at epsilon of a result: its profile (PLD) and its R at the best order.
struct RecordDelta {
  std::vector<double> orders, R;
  std::function<double(double)> profile;
  double operator()(double epsilon) const {
    double delta = kInf;
    std::vector<double> o, r;
    for (std::size_t j = 0; j < R.size() && j < orders.size(); ++j)
      if (std::isfinite(R[j])) o.push_back(orders[j]), r.push_back(R[j]);
    if (!r.empty()) delta = best_delta(o, r, epsilon, RdpConversion::Best).delta;
    if (profile) try {
        delta = std::min(delta, profile(epsilon));
      } catch (const std::length_error&) {  // the PLD grid does not fit: the Rényi route answers
      }
    return delta;
  }
};

}  // namespace

std::vector<double> stretched_orders(std::int64_t k, std::span<const double> orders) {
  const double stretch = std::ldexp(1.0, doubling_exponent(k));
  std::vector<double> out;
  for (double a : orders) {
    const double s = stretch * std::max(a, 2.0);
    if (out.empty() || s > out.back()) out.push_back(s);
  }
  return out;
}

double group_delta(double record_epsilon, double record_delta, std::int64_t k) {
  if (!(record_delta < kInf)) return kInf;
  const double kd = static_cast<double>(k);
  // (e^{k eps} - 1) / (e^eps - 1) = sum_{i < k} e^{i eps}; k at eps = 0.
  const double factor = record_epsilon > 0.0 ? std::expm1(kd * record_epsilon) / std::expm1(record_epsilon) : kd;
  return outward::round_up(record_delta * factor, 8.0 * kU * (1.0 + kd * record_epsilon));
}

AnalysisResult user_level(AnalysisResult r, std::int64_t k, std::span<const double> orders,
                          const std::vector<double>* record_R_stretched) {
  if (!r.applies || k <= 1) return r;
  const double kd = static_cast<double>(k);
  const std::string note = "; user-level, at most " + std::to_string(k) + " records a user: ";
  if (r.mu) {
    // f-DP group privacy: G_mu for records is G_{k mu} for groups of k (DRS 2022, Thm 2.14).
    r.mu = outward::round_up(kd * *r.mu, 2.0 * kU);
    r.R.clear();
    for (double a : orders) r.R.push_back(outward::round_up(gdp_rdp(*r.mu, a), outward::recursion_margin(0)));
    r.slope.reset();
    r.at_order = nullptr;
    r.fdp_epsilon = nullptr;
    r.fdp_delta = nullptr;
    r.fdp_grid = nullptr;
    r.fdp_curves = nullptr;
    r.fdp_route.clear();
    r.reason += note + "k mu (Gaussian-DP group privacy, Dong, Roth & Su 2022, Thm 2.14)";
    return r;
  }
  const int c = doubling_exponent(k);
  const double stretch = std::ldexp(1.0, c);  // 2^c
  const double factor = std::pow(3.0, c);     // 3^c, exact for c <= 33
  // R at any order where the entry has it: its continuous R, or alpha slope.
  std::function<double(double)> continuous = r.at_order;
  if (!continuous && r.slope) continuous = [slope = *r.slope](double a) { return a * slope; };
  const RecordDelta record_delta{std::vector<double>(orders.begin(), orders.end()), r.R, r.fdp_delta};
  const std::vector<double> stretched = stretched_orders(k, orders);
  std::vector<double> user_R;
  for (double a : orders) {
    const double needed = stretch * std::max(a, 2.0);
    double at = kInf;
    if (record_R_stretched) {
      for (std::size_t j = 0; j < stretched.size() && j < record_R_stretched->size(); ++j)
        if (stretched[j] == needed) at = (*record_R_stretched)[j];
    } else if (continuous) {
      at = continuous(needed);
    } else {
      for (std::size_t j = 0; j < orders.size() && j < r.R.size(); ++j)
        if (orders[j] >= needed && std::isfinite(r.R[j])) {
          at = r.R[j];  // the smallest recorded order at or above: R is non-decreasing in the order
          break;
        }
    }
    user_R.push_back(std::isfinite(at) ? outward::round_up(factor * at, 4.0 * kU) : kInf);
  }
  r.R = std::move(user_R);
  if (continuous)
    r.at_order = [continuous, stretch, factor](double a) {
      return outward::round_up(factor * continuous(stretch * std::max(a, 2.0)), 4.0 * kU);
    };
  else
    r.at_order = nullptr;
  r.slope.reset();
  // (epsilon, delta): Vadhan's Lemma 2.2 over the record-level profile.
  auto user_delta = [record_delta, k, kd](double user_epsilon) {
    const double e = user_epsilon / kd;
    return group_delta(e, record_delta(e), k);
  };
  r.fdp_delta = [user_delta](double user_epsilon) { return std::min(1.0, user_delta(user_epsilon)); };
  r.fdp_epsilon = [user_delta](double delta) {
    // The smallest user epsilon whose certified user delta is <= delta: scan upward geometrically,
    // then bisect between the last point that fails and the first that holds (only points that hold
    // are ever returned).
    double fails = 0.0;
    if (user_delta(0.0) <= delta) return 0.0;
    double holds = kInf;
    for (double e = 1e-3; e < 1e5; e *= 1.1) {
      if (user_delta(e) <= delta) {
        holds = e;
        break;
      }
      fails = e;
    }
    if (!std::isfinite(holds)) return kInf;
    for (int i = 0; i < 60 && holds - fails > 1e-10 * holds; ++i) {
      const double mid = 0.5 * (fails + holds);
      (user_delta(mid) <= delta ? holds : fails) = mid;
    }
    return holds;
  };
  r.fdp_route = "group";
  r.fdp_grid = nullptr;
  r.fdp_curves = nullptr;
  r.reason += note + "R by Mironov 2017 Prop. 2 (3^" + std::to_string(c) + " R at 2^" + std::to_string(c) +
              " times the order), epsilon by Vadhan 2017 Lemma 2.2 over the record-level profile";
  return r;
}

}  // namespace rdpdyn

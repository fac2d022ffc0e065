// Shifted Rényi divergences with the best shift allocation (models/amplification_by_iteration.hpp):
// the closed forms it must reproduce (full batch: Altschuler & Talwar 2022 Prop. 5.4 with a_t ~ c^{T-t},
// = Bok, Su & Altschuler 2024's mu^2; cyclic batches: BSA's NoisyCGD formula at the last position),
// the exact divergence of linear Gaussian processes as a floor, and no admissible allocation below it.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <vector>

#include "analyses/bok_su_altschuler_2024.hpp"
#include "models/amplification_by_iteration.hpp"

using namespace rdpdyn;

namespace {

struct Steps {
  std::vector<double> c, s, v;
  ContractiveStep operator()(std::int64_t t) const { return {c[t], s[t], v[t]}; }
  std::int64_t size() const { return static_cast<std::int64_t>(c.size()); }
};

double energy(const Steps& st) {
  const auto e = amplification_by_iteration_energy(st.size(), st);
  REQUIRE(e.has_value());
  return *e;
}

/// Mean gap over standard deviation, squared, of the last iterates of X_{t+1} = c_t X_t + s_t + N(0, v_t)
/// against X'_{t+1} = c_t X'_t + N(0, v_t) from X_0 = X'_0 = 0: the two laws are Gaussians with one
/// variance, so D_alpha = alpha gap^2 / (2 var) exactly, and no valid bound alpha E / 2 lies below it.
double exact_linear(const Steps& st) {
  double gap = 0.0, var = 0.0;
  for (std::int64_t t = 0; t < st.size(); ++t) {
    gap = st.c[t] * gap + st.s[t];
    var = st.c[t] * st.c[t] * var + st.v[t];
  }
  return gap * gap / var;
}

/// The cost of an allocation, or +inf when its shifts turn negative (beyond a relative slack).
double allocation_cost(const Steps& st, const std::vector<double>& a) {
  double z = 0.0, cost = 0.0, scale = 0.0;
  for (std::int64_t t = 0; t < st.size(); ++t) {
    z = st.c[t] * z + st.s[t] - a[t];
    scale = st.c[t] * scale + st.s[t];
    if (z < -1e-12 * scale) return INFINITY;
    cost += a[t] * a[t] / st.v[t];
  }
  return cost;
}

}  // namespace

TEST_CASE("Shifted divergences: full batch reproduces the closed form (A&T Prop. 5.4, BSA mu^2)", "[shifted]") {
  for (double c : {0.0, 0.3, 0.9, 0.999, 1.0}) {
    for (std::int64_t T : {1, 2, 7, 100, 5000}) {
      Steps st;
      const double s = 0.02, v = 0.5;
      st.c.assign(T, c), st.s.assign(T, s), st.v.assign(T, v);
      // mu_1^2 (1+c)/(1-c) (1-c^T)/(1+c^T); at c = 1 the limit T mu_1^2 (composition, A&T Prop. 2.17).
      const double factor = c == 1.0 ? static_cast<double>(T) : shifted_interpolation_factor(1.0 - c, T);
      const double closed = s * s / v * factor;
      const double e = energy(st);
      INFO("c = " << c << ", T = " << T << ": energy " << e << ", closed form " << closed);
      CHECK(e >= closed * (1.0 - 1e-13));  // the closed form is itself rounded to nearest
      CHECK(e <= closed * (1.0 + 1e-11));
      CHECK(e >= exact_linear(st) * (1.0 - 1e-13));  // chord = the exact Gaussian divergence here
    }
  }
}

TEST_CASE("Shifted divergences: cyclic batches, the last position reproduces BSA's NoisyCGD formula", "[shifted]") {
  // l batches per epoch, E epochs, the record in the last batch (steps l-1, 2l-1, ...): BSA 2024 Sec. 4
  // (formula of the authors' scripts, analyses/bok_su_altschuler_2024.hpp).
  for (double c : {0.2, 0.9, 0.99}) {
    for (std::int64_t l : {1, 2, 5, 29}) {
      for (std::int64_t E : {1, 2, 10, 100}) {
        Steps st;
        const std::int64_t T = l * E;
        const double s = 0.7, v = 2.0;
        st.c.assign(T, c), st.v.assign(T, v), st.s.assign(T, 0.0);
        for (std::int64_t t = l - 1; t < T; t += l) st.s[t] = s;
        const double closed = s * s / v * shifted_interpolation_cyclic_factor(1.0 - c, l, E);
        const double e = energy(st);
        INFO("c = " << c << ", l = " << l << ", E = " << E << ": energy " << e << ", BSA " << closed);
        CHECK(e <= closed * (1.0 + 1e-11));
        // l >= 2: the formula is the optimum. l = 1 is full batch, where the formula's allocation is
        // not optimal (c = 0: 2 mu_1^2 against mu_1^2, the last step alone).
        if (l >= 2) CHECK(e >= closed * (1.0 - 1e-11));
        // Other positions are never worse than the last one (the record's last use is further back).
        for (std::int64_t j = 0; j + 1 < l; ++j) {
          Steps other = st;
          other.s.assign(T, 0.0);
          for (std::int64_t t = j; t < T; t += l) other.s[t] = s;
          CHECK(energy(other) <= e * (1.0 + 1e-12));
        }
      }
    }
  }
}

TEST_CASE("Shifted divergences: random processes, never below the exact divergence nor any admissible allocation",
          "[shifted]") {
  std::mt19937_64 rng(20261124);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  int strictly_above_exact = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const std::int64_t T = 1 + static_cast<std::int64_t>(unit(rng) * 12);
    Steps st;
    for (std::int64_t t = 0; t < T; ++t) {
      st.c.push_back(unit(rng) < 0.1 ? 1.0 : unit(rng));
      st.s.push_back(unit(rng) < 0.5 ? 0.0 : unit(rng));
      st.v.push_back(0.1 + unit(rng));
    }
    const double e = energy(st);
    const double exact = exact_linear(st);
    INFO("trial " << trial << ": energy " << e << ", exact " << exact);
    CHECK(e >= exact * (1.0 - 1e-13));
    strictly_above_exact += e > exact * (1.0 + 1e-6);
    // Random admissible allocations: spend a random fraction of the available shift at every step and
    // everything at the last. None may cost less than the optimum.
    for (int k = 0; k < 200; ++k) {
      std::vector<double> a(T);
      double z = 0.0;
      for (std::int64_t t = 0; t < T; ++t) {
        const double available = st.c[t] * z + st.s[t];
        a[t] = t + 1 == T ? available : available * unit(rng);
        z = available - a[t];
      }
      CHECK(e <= allocation_cost(st, a) * (1.0 + 1e-12));
    }
  }
  // The shifts must stay non-negative: where the record acts late and the maps contract little, the
  // optimum is strictly above the unconstrained (exact Gaussian) value on some processes.
  CHECK(strictly_above_exact > 0);
}

TEST_CASE("Shifted divergences: refuses expanding maps and zero noise", "[shifted]") {
  Steps st{{1.1}, {1.0}, {1.0}};
  CHECK_FALSE(amplification_by_iteration_energy(1, st).has_value());
  Steps quiet{{0.5}, {1.0}, {0.0}};
  CHECK_FALSE(amplification_by_iteration_energy(1, quiet).has_value());
  Steps none{{0.5, 0.5}, {0.0, 0.0}, {1.0, 1.0}};
  CHECK(energy(none) == 0.0);
}

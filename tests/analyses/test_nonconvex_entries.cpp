// The pieces of the non-convex hidden-state bounds (docs/analyses.md, "Non-convex losses on a bounded
// domain"; docs/math.md section 2.7): the LSI bound of a law of bounded support convolved with
// Gaussian noise, the least absorbed shift of pabi-bounded-domain, the transcribed published
// formulas at the numbers of their source, and the unit conversions.
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "analyses/bounded_domain_pabi.hpp"
#include "analyses/kong_ribero_2024.hpp"
#include "analyses/liang_2025.hpp"
#include "models/bounded_domain_lsi.hpp"
#include "models/gradient_map.hpp"
#include "models/noise_units.hpp"

using namespace rdpdyn;

TEST_CASE("The mixture LSI bound: Chen, Chewi & Niles-Weed 2021 through Chewi's Prop. 2.3.14", "[nonconvex][lsi]") {
  // s^2 [2 + (1 + (e^{D^2/s^2} - 1)/4)(1 + D^2/(2 s^2))], evaluated by Python's math.expm1:
  // D = 1, s^2 = 1: 4.144355685672142; D = 2, s^2 = 0.25: 4998439.355285678.
  const double v1 = bounded_domain::mixture_inverse_lsi(1.0, 1.0);
  CHECK(v1 >= 4.144355685672142);
  CHECK(v1 <= 4.144355685672142 * (1.0 + 1e-13));
  const double v2 = bounded_domain::mixture_inverse_lsi(2.0, 0.25);
  CHECK(v2 >= 4998439.355285678);
  CHECK(v2 <= 4998439.355285678 * (1.0 + 1e-13));
  // A point (D = 0) convolved with N(0, s^2 I) is s^2-LSI; the bound gives 3 s^2, above it.
  CHECK(bounded_domain::mixture_inverse_lsi(0.0, 2.0) == Approx(6.0).epsilon(1e-14));
  CHECK(std::isinf(bounded_domain::mixture_inverse_lsi(100.0, 1e-3)));
  // The image of the set under the gradient map: min(L D, D + 2 eta G).
  CHECK(bounded_domain::mapped_diameter(1.0, 1.2, 0.2, std::nullopt) == Approx(1.2).epsilon(1e-14));
  CHECK(bounded_domain::mapped_diameter(1.0, 3.0, 0.1, 2.0) == Approx(1.4).epsilon(1e-14));
}

TEST_CASE("Gradient maps: weak convexity and Poisson batches", "[nonconvex][lsi]") {
  CHECK(gradient_map_lipschitz(0.2, -1.0, 1.0) == Approx(1.2));  // smooth only: 1 + eta beta
  CHECK(gradient_map_lipschitz(0.1, 0.5, 2.0) == Approx(0.95));  // convex: 1 - eta lambda
  // Poisson at q = 0.01: the batch loss's constants up to 100 times the record's; an empty batch
  // leaves the map the identity, so no Poisson update contracts.
  CHECK(update_map_lipschitz(0.5, 0.01, 1.01, 0.01) == Approx(49.5));
  CHECK(update_map_lipschitz(0.001, 0.01, 1.01, 0.01) == 1.0);
  CHECK(update_map_lipschitz(0.5, 0.01, 1.01, std::nullopt) == Approx(0.995));
}

TEST_CASE("The least absorbed shift against a numerical optimiser", "[nonconvex][pabi]") {
  using bounded_domain_pabi::minimal_absorption_cost;
  // Closed forms: one step absorbs L z + delta; no releases from shift D over k steps:
  // L^{2k} D^2 / sum_{i<k} L^{2i}; releases from a common start absorbed at once when L > 1.
  const std::vector<double> one{0.3};
  CHECK(minimal_absorption_cost(1.0, one, 1.2) == Approx(1.5 * 1.5).epsilon(1e-14));
  const std::vector<double> none(5, 0.0);
  const double L = 1.1;
  double sum = 0.0;
  for (int i = 0; i < 5; ++i) sum += std::pow(L, 2 * i);
  CHECK(minimal_absorption_cost(2.0, none, L) == Approx(std::pow(L, 10) * 4.0 / sum).epsilon(1e-13));
  // scipy.optimize.minimize (SLSQP, ftol 1e-15; scipy 1.10.1, Debian bookworm) on the constrained
  // problem itself, z_{j+1} = L z_j + delta_j - a_j >= 0, z_k = 0 (the script is in
  // docs/analyses.md, "pabi-bounded-domain"): the hull must not be above any of them by more than the optimiser's
  // tolerance, nor below (a cost below the optimum would be an infeasible absorption).
  struct Case {
    double start;
    std::vector<double> deltas;
    double lipschitz;
    double optimum;
  };
  const std::vector<Case> cases{{1.0, {0.2, 0, 0, 0.2, 0}, 1.2, 0.8372205059467697},
                                {0.0, {0.3, 0.1, 0, 0.5, 0.2, 0.4}, 1.1, 0.4754184390402624},
                                {0.5, {0, 0, 0, 0, 1.0}, 1.3, 1.19660124295894},
                                {1.0, {0.1, 0.1, 0.1, 0.1, 0.1, 0.1}, 0.9, 0.2647823588895102},
                                {0.0, {0.2, 0.2, 0.2, 0.2, 0.2}, 1.25, 0.2}};
  for (const Case& c : cases) {
    CAPTURE(c.start, c.lipschitz, c.optimum);
    const double cost = minimal_absorption_cost(c.start, c.deltas, c.lipschitz);
    CHECK(cost >= c.optimum * (1.0 - 1e-9));
    CHECK(cost == Approx(c.optimum).epsilon(1e-8));
  }
  // Long windows with L > 1: the scaled sums lose the late releases below an ulp of the start shift
  // (a review found 3 where the run's exact divergence is 56). A release at the last step is
  // absorbed there, so the cost is at least its square, whatever the window.
  for (std::size_t k : {50u, 200u, 400u}) {
    std::vector<double> late(k, 0.0);
    late.back() = 0.01;
    late[k / 2] = 0.01;
    CAPTURE(k);
    CHECK(minimal_absorption_cost(0.001, late, 2.0) >= 0.01 * 0.01);
  }
  // The feasible cost of a proposal that absorbs nothing until the end: (L^k z_0 + ...)^2 at the last step.
  const std::vector<double> two{0.0, 0.0};
  const std::vector<double> nothing{0.0, 0.0};
  CHECK(bounded_domain_pabi::feasible_absorption_cost(1.0, two, 1.5, nothing) >= 2.25 * 2.25);
}

TEST_CASE("Transcribed non-convex bounds at their source's numbers", "[nonconvex][published]") {
  // Liang et al. 2025's Figure 1 (HauLiang/DPSGD-DC ae9946f, plot_figure_1.py): alpha = 1.1, L = 1,
  // C = 2, sigma_DP = 4, D = 1, n = 8, b = 2, eta = 0.2. Their script prints the plateau 1.684375 from
  // T = 49 on (beta* = 1/7) and 0.34375 at T = 10; Kong & Ribero's curve (m = 1) is 2.268574... for
  // every T (Python: 2.2685745990817168).
  CHECK(liang_2025::thm3_4(1.1, 2, 4, 0.2, 1, 1, 8, 2, 10) == Approx(0.34375).epsilon(1e-14));
  CHECK(liang_2025::thm3_4(1.1, 2, 4, 0.2, 1, 1, 8, 2, 200) == Approx(1.684375).epsilon(1e-14));
  CHECK(liang_2025::thm3_4(1.1, 2, 4, 0.2, 1, 1, 8, 2, 48) == Approx(1.65).epsilon(1e-14));
  CHECK(kong_ribero_2024::transcribed_bound(1.1, 2, 4, 0.2, 1, 1, 1, 2) == Approx(2.2685745990817168).epsilon(1e-14));
  // Their sigma_DP (noise eta sigma_DP) from C21's sigma (noise sqrt(2 eta) sigma): 4 sqrt(0.1) -> 4.
  CHECK(noise_units::liang_sigma_dp_from_c21(4.0 * std::sqrt(0.1), 0.2) == Approx(4.0).epsilon(1e-15));
  CHECK(noise_units::kong_ribero_sigma_from_c21(1.0, 0.5) == Approx(2.0).epsilon(1e-15));
  CHECK(noise_units::at_step_noise_std(noise_units::liang_sigma_dp_from_c21(0.7, 0.3), 0.3) ==
        Approx(noise_units::c21_step_noise_std(0.7, 0.3)).epsilon(1e-15));
}

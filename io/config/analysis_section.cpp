#include <set>
#include <string>

#include "accounting/pld/loss_distribution.hpp"
#include "io/config/section_rules.hpp"
#include "io/config/sections.hpp"
#include "io/expression.hpp"
#include "models/size_limits.hpp"
#include "numerics/format_number.hpp"
#include "numerics/spec_error.hpp"
#include "solver/engine_registry.hpp"
#include "solver/finite_volume_kernel.hpp"

namespace rdpdyn::config_reader {

void parse_analysis(const Section& s, RunConfig& cfg) {
  s.allow_only({"gamma", "engine", "rtol", "pld_accuracy", "pld_grid"});
  if (s.has("gamma")) {
    const auto& v = s.at("gamma");
    if (v.is_string() && v.as_string().str == "optimal") {
      cfg.spec.gamma = GammaChoice::optimal();
    } else if (v.is_string()) {  // a field gamma(alpha, t)
      const std::string text = v.as_string().str;
      auto f = compile_expression(s.key("gamma"), text, {"alpha", "t"});
      cfg.spec.gamma = GammaChoice::of_field([f](double a, double t) { return f({a, t}); }, text);
    } else {
      const double g = s.number("gamma");
      if (!(g > 0.0 && g <= 1.0))
        throw SpecError(s.key("gamma"), format_number(g),
                        "must be in (0, 1] (gamma > 1 flips the sign of the LSI term, C21 Lemma 2)");
      cfg.spec.gamma = GammaChoice::fixed(g);
    }
  }
  if (s.has("engine")) {  // the names of solver/engine_registry.cpp: a new engine needs no edit here
    const auto names = engine_registry(MPI_COMM_SELF).names();
    cfg.engine = one_of(s, "engine", std::set<std::string>(names.begin(), names.end()));
  }
  if (s.has("pld_accuracy")) {
    const double a = s.number("pld_accuracy");
    if (!(a >= 1e-6 && a <= 0.1))
      throw SpecError(s.key("pld_accuracy"), format_number(a), "must be in [1e-6, 0.1] (relative accuracy of epsilon)");
    cfg.spec.pld.accuracy = a;
  }
  if (s.has("pld_grid")) {
    const double h = s.number("pld_grid");
    if (!(h >= 0x1p-20 && h <= 0x1p-4) || !pld::is_exact_grid_spacing(h))
      throw SpecError(s.key("pld_grid"), format_number(h),
                      "must be 2^k or 3 x 2^k in [2^-20, 2^-4] nats (e.g. 0.0001220703125 = 2^-13 or "
                      "0.000091552734375 = 3 x 2^-15; such spacings keep the grid points exact)");
    cfg.spec.pld.grid = h;
  }
  if (s.has("rtol")) {
    cfg.integration_rtol = positive(s, "rtol");
    if (cfg.integration_rtol > 1e-4)
      throw SpecError(s.key("rtol"), format_number(cfg.integration_rtol), "must be <= 1e-4");
  }
}

void parse_grid(const Section& s, FiniteDifferenceGrid& g) {
  s.allow_only({"alpha_min", "alpha_max", "cells", "cfl", "limiter", "gamma_samples", "gamma_snapshots_per_step"});
  if (s.has("alpha_min")) {
    g.alpha_min = s.number("alpha_min");
    if (!(g.alpha_min > 1.0)) throw SpecError(s.key("alpha_min"), format_number(g.alpha_min), "must be > 1");
  }
  if (s.has("alpha_max")) g.alpha_max = positive(s, "alpha_max");
  if (s.has("cells")) {
    g.cells = s.integer("cells");
    if (g.cells < 8) throw SpecError(s.key("cells"), std::to_string(g.cells), "must be >= 8");
    check_size(s.key("cells"), g.cells, limits::kMaxGridCells,
               "the engine keeps about 16 vectors of this length and its work grows as cells^2");
  }
  if (s.has("cfl")) {
    g.cfl = positive(s, "cfl");
    if (g.cfl > 1.0) throw SpecError(s.key("cfl"), format_number(g.cfl), "must be <= 1 (stability)");
  }
  if (s.has("limiter")) g.limiter = enum_value(s, "limiter", kLimiterNames);
  if (s.has("gamma_samples")) {
    g.gamma_samples = s.integer("gamma_samples");
    if (g.gamma_samples < 2) throw SpecError(s.key("gamma_samples"), std::to_string(g.gamma_samples), "must be >= 2");
    check_size(s.key("gamma_samples"), g.gamma_samples, limits::kMaxGammaSamples,
               "every optimal-gamma snapshot, kept for every step, holds this many values");
  }
  if (s.has("gamma_snapshots_per_step")) {
    const std::int64_t n = s.integer("gamma_snapshots_per_step");
    if (n < 1 || n > 1000)
      throw SpecError(s.key("gamma_snapshots_per_step"), std::to_string(n), "must be in [1, 1000]");
    g.gamma_snapshots_per_step = static_cast<int>(n);
  }
}

}  // namespace rdpdyn::config_reader

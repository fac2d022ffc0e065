#pragma once
// The free tuning parameter gamma in (0, 1] of the PDI (C21 Lemma 2 / eq. (13)). It may vary with
// time and order: the PDI holds pointwise for every gamma in (0, 1] (docs/math.md section 2.4).
#include <functional>
#include <string>

namespace rdpdyn {

struct GammaChoice {
  enum class Mode { Fixed, Optimal, Field };
  Mode mode = Mode::Fixed;
  double value = 0.5;  ///< used when mode == Fixed; C21 Thm 2 takes 1/2
  /// used when mode == Field: gamma(alpha, t) in (0, 1]
  std::function<double(double alpha, double t)> field;
  std::string description;

  static GammaChoice fixed(double g) { return {Mode::Fixed, g, {}, {}}; }
  static GammaChoice optimal() { return {Mode::Optimal, 0.0, {}, {}}; }
  static GammaChoice of_field(std::function<double(double, double)> f, std::string text) {
    return {Mode::Field, 0.0, std::move(f), std::move(text)};
  }
  bool is_optimal() const { return mode == Mode::Optimal; }
  bool is_field() const { return mode == Mode::Field; }
};

}  // namespace rdpdyn

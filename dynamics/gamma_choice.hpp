#pragma once
// The free tuning parameter gamma in (0, 1] of the PDI (C21 Lemma 2 / eq. (13)).
namespace rdpdyn {

struct GammaChoice {
  enum class Mode { Fixed, Optimal };
  Mode mode = Mode::Fixed;
  double value = 0.5;  ///< used when mode == Fixed; C21 Thm 2 takes 1/2

  static GammaChoice fixed(double g) { return {Mode::Fixed, g}; }
  static GammaChoice optimal() { return {Mode::Optimal, 0.0}; }
  bool is_optimal() const { return mode == Mode::Optimal; }
};

}  // namespace rdpdyn

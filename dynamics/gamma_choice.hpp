#pragma once
// The free tuning parameter gamma in (0, 1] of the PDI (C21 Lemma 2 / eq. (13)). It may vary with
// time and order: the PDI holds pointwise for every gamma in (0, 1] (docs/math.md section 2.4).
#include <functional>
#include <memory>
#include <string>

namespace rdpdyn {

struct GammaChoice {
  enum class Mode { Fixed, Optimal, Field };
  Mode mode = Mode::Fixed;
  double value = 0.5;  ///< used when mode == Fixed; C21 Thm 2 takes 1/2
  /// The field gamma(alpha, t) in (0, 1] and its text, when mode == Field. Shared: every step of a
  /// program carries its GammaChoice, and a schedule given per step has a phase per step.
  struct Field {
    std::function<double(double alpha, double t)> gamma;
    std::string description;
  };
  std::shared_ptr<const Field> field_data;

  double field(double alpha, double t) const { return field_data->gamma(alpha, t); }
  const std::string& description() const {
    static const std::string none;
    return field_data ? field_data->description : none;
  }

  static GammaChoice fixed(double g) { return {Mode::Fixed, g, nullptr}; }
  static GammaChoice optimal() { return {Mode::Optimal, 0.0, nullptr}; }
  static GammaChoice of_field(std::function<double(double, double)> f, std::string text) {
    return {Mode::Field, 0.0, std::make_shared<const Field>(Field{std::move(f), std::move(text)})};
  }
  bool is_optimal() const { return mode == Mode::Optimal; }
  bool is_field() const { return mode == Mode::Field; }
};

}  // namespace rdpdyn

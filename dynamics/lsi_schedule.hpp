#pragma once
// LSI constant schedules c(s) over one diffusion interval, s in [0, duration].
//
// The LSI constant is tracked through its inverse, A = 1/c ("LSI variance"): a point mass has
// c = +infinity, i.e. A = 0, and Gaussian convolution adds to A linearly (C21 Lemma 9).
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <variant>

#include "dynamics/overloaded.hpp"

namespace rdpdyn {

/// A constant LSI constant c > 0 that holds throughout the interval (C21 Thm 2 assumption).
struct ConstantLsi {
  double c;
};

/// The Gaussian-convolution family: the iterate law at time s of the interval is
/// T#(law at start) * N(0, 2 s sigma^2), so c(s) = 1 / (A + 2 s sigma^2) with A the inverse LSI
/// constant at the start of the interval after the step's Lipschitz maps (C21 Lemmas 8, 9;
/// docs/math.md section 2.5). A = 0 (point mass) is allowed: the integrand is singular but integrable.
struct GaussianConvolutionLsi {};

/// A user-supplied continuous schedule c(s, t, alpha), s the time inside the interval, t the global
/// time (start + s) and alpha the Rényi order. The user certifies that it lower-bounds the true
/// LSI constant. A schedule that uses alpha makes the PDI coefficients order-dependent: only the
/// finite-difference engine (with certification) accepts it.
struct FunctionLsi {
  FunctionLsi() = default;
  FunctionLsi(std::function<double(double s, double t, double alpha)> c, std::string description,
              bool depends_on_alpha = false)
      : data_(std::make_shared<const Data>(Data{std::move(c), std::move(description)})),
        depends_on_alpha(depends_on_alpha) {}

  double c(double s, double t, double alpha) const { return data_->c(s, t, alpha); }
  /// e.g. the expression text, for the output metadata
  const std::string& description() const {
    static const std::string none;
    return data_ ? data_->description : none;
  }

 private:
  // Shared: every step of a program carries its schedule, and a schedule given per step has a
  // phase per step.
  struct Data {
    std::function<double(double s, double t, double alpha)> c;
    std::string description;
  };
  std::shared_ptr<const Data> data_;

 public:
  bool depends_on_alpha = false;
};

using LsiSchedule = std::variant<ConstantLsi, GaussianConvolutionLsi, FunctionLsi>;

/// Inverse LSI constant of a point mass (c = +infinity).
inline constexpr double kPointMassInverseLsi = 0.0;

// Questions the solvers ask of a schedule, each answered for every kind on purpose (std::visit with
// no default): a new kind does not compile until each answer is decided.

/// Whether an interval of this schedule starting at inverse LSI constant `inverse_lsi` starts from a
/// point mass (c = +infinity): only the Gaussian-convolution family follows the law from there.
inline bool starts_from_point_mass(const LsiSchedule& lsi, double inverse_lsi) {
  return std::visit(Overloaded{[](const ConstantLsi&) { return false; },
                               [&](const GaussianConvolutionLsi&) { return inverse_lsi <= 0.0; },
                               [](const FunctionLsi&) { return false; }},
                    lsi);
}

/// Whether c depends on the order alpha (then the PDI's coefficients do, and only engines that
/// integrate order-dependent coefficients may solve it).
inline bool lsi_depends_on_alpha(const LsiSchedule& lsi) {
  return std::visit(
      Overloaded{[](const ConstantLsi&) { return false; }, [](const GaussianConvolutionLsi&) { return false; },
                 [](const FunctionLsi& f) { return f.depends_on_alpha; }},
      lsi);
}

/// Whether the schedule has the closed-form interval flows of docs/math.md section 2 (a constant or
/// the Gaussian-convolution family); a user function is integrated numerically.
inline bool lsi_has_closed_form(const LsiSchedule& lsi) {
  return std::visit(
      Overloaded{[](const ConstantLsi&) { return true; }, [](const GaussianConvolutionLsi&) { return true; },
                 [](const FunctionLsi&) { return false; }},
      lsi);
}

/// c from its inverse; +infinity for a point mass; NaN when there is no single constant (an
/// order-dependent schedule).
inline double lsi_constant_from_inverse(double inverse_c) {
  if (inverse_c != inverse_c) return inverse_c;
  return inverse_c > 0.0 ? 1.0 / inverse_c : std::numeric_limits<double>::infinity();
}

}  // namespace rdpdyn

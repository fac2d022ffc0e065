#pragma once
// The closed forms that apply to a configured run (the C21 catalogue of analyses/chourasia_2021.hpp and
// the exact divergences of quadratic losses), evaluated on the run's solution grid for `solve`,
// one record at a time as the solve produces it.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "models/run_spec.hpp"

namespace rdpdyn {

/// What identifies a closed form in the outputs.
struct ClosedFormLabel {
  std::string name;      ///< stable identifier, e.g. "cor1", "thm3-exact"
  std::string citation;  ///< paper and equation, e.g. "C21 Cor 1"
  std::string role;      ///< "upper-bound", "exact", "lower-bound" or "baseline"
};

/// A closed form evaluated on the solution grid (same shape as Solution::R).
struct ClosedFormCurves {
  std::string name;  ///< as ClosedFormLabel
  std::string citation;
  std::string role;
  std::vector<double> R;  ///< row-major, records x orders
};

/// The closed forms whose assumptions hold for `spec` (all of them assume R_0 = 0 and no
/// boundary events; the constant-parameter ones assume a single phase), evaluated at the spec's
/// orders and at each record handed to evaluate():
///  thm1 (always), composition (noisy GD), thm2 (constant LSI: constant, strongly-convex,
///  squared-loss; gamma = the configured fixed gamma if in (0,1), else 1/2), cor1
///  (strongly-convex), cor2, thm3-exact, thm3-lower (squared loss with a point initialisation),
///  quadratic-exact and quadratic-exact-pair (models/quadratic_exact.hpp).
/// Memory is one row per form, whatever the number of steps and records: the step-by-step sums
/// and the quadratic laws advance from one record to the next.
class ClosedFormRows {
 public:
  explicit ClosedFormRows(const RunSpec& spec);
  ~ClosedFormRows();
  ClosedFormRows(const ClosedFormRows&) = delete;
  ClosedFormRows& operator=(const ClosedFormRows&) = delete;

  const std::vector<ClosedFormLabel>& labels() const;

  /// Evaluates every form at the record after `step` completed steps, at time `t`. Records come
  /// in step order (std::invalid_argument otherwise). Row i (one value per order) belongs to
  /// labels()[i]; the rows stay valid until the next call (rows() returns them).
  const std::vector<std::vector<double>>& evaluate(std::int64_t step, double t);
  const std::vector<std::vector<double>>& rows() const;

 private:
  struct State;  // keeps the catalogue and Eigen out of this header
  std::unique_ptr<State> state_;
};

}  // namespace rdpdyn

#pragma once
// The characteristics engine: solves the PDI (C21 eq. (13)) over a whole privacy program on an
// alpha grid, exactly for alpha-independent coefficients (docs/math.md section 2.3).
//
// The solution after any number of steps has the form
//   w(alpha) = exp(-T) w_0(alpha_0) + B,   alpha_0 = 1 + (alpha - 1) exp(-T),
// with T the accumulated transport and B the accumulated source and composition jumps, so the
// cost per step is O(1) and O(orders) per record. An optimal-gamma step needs w independent of
// alpha; afterwards the initial data are absorbed into B.
#include <functional>
#include <span>

#include "solver/step_progress.hpp"
#include "dynamics/initial_curve.hpp"
#include "dynamics/privacy_program.hpp"
#include "solver/interval_flow.hpp"
#include "dynamics/solution.hpp"

namespace rdpdyn {

struct CharacteristicsOptions {
  RecordPlan record;
  IntegrationTolerance tolerance{};
  StepProgress progress{};  ///< called every 2^16 steps and at the end
};

/// Called for each record, in order: the number of completed steps, the time, the LSI constant
/// of the iterate law and R at every order.
using RecordSink = std::function<void(std::int64_t step, double t, double lsi_constant, std::span<const double> R)>;

/// Streams the records of the solve to `sink`. Throws std::invalid_argument when an
/// optimal-gamma step meets initial data that are not linear in alpha.
void solve_by_characteristics(const PrivacyProgram& program, const InitialCurve& initial,
                              std::span<const double> orders, const CharacteristicsOptions& options,
                              const RecordSink& sink);

/// Convenience: collects every record into a Solution.
Solution solve_by_characteristics(const PrivacyProgram& program, const InitialCurve& initial,
                                  std::span<const double> orders, const CharacteristicsOptions& options = {});

}  // namespace rdpdyn

#include <memory>
#include "solver/engine.hpp"
namespace rdpdyn {
/// The characteristics engine behind the Engine interface (name "characteristics").
std::unique_ptr<Engine> make_characteristics_engine();
}  // namespace rdpdyn

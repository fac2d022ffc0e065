#pragma once
// What an engine is asked before it solves anything: the features of a run that decide whether it
// can solve it (a dry run, as dp_accounting's accountants answer "unsupported event" before
// composing), and the shapes of the answers: a refusal naming a configuration key, the memory it
// will keep.
#include <string>
#include <vector>

#include "dynamics/gamma_choice.hpp"
#include "dynamics/initial_curve.hpp"
#include "dynamics/solution.hpp"
#include "solver/finite_difference_grid.hpp"

namespace rdpdyn {

/// The run as an engine sees it at configuration time (models/engine_request_of.hpp builds it).
struct EngineRequest {
  InitialCurve initial = ZeroCurve{};
  std::vector<double> orders;            ///< increasing, > 1
  GammaChoice gamma;                     ///< [analysis] gamma (or its default)
  bool optimal_gamma_somewhere = false;  ///< some step takes the pointwise-optimal gamma
  bool lsi_depends_on_alpha = false;     ///< a user LSI schedule c(s, t, alpha) that reads alpha
  std::string lsi_description;           ///< its text, for messages
  /// The run is noisy SGD: its bound is the worst case over the differing record's batch,
  /// solved per placement (models/noisy_sgd_worst_case.hpp).
  bool worst_case_over_placements = false;
  double steps = 0.0;                                      ///< the run's steps (or the largest a calibration may try)
  std::string steps_key = "algorithm.steps", steps_value;  ///< the key that sets them, for messages
  RecordPlan record;                                       ///< the steps recorded ([output])
  FiniteDifferenceGrid grid;                               ///< [grid]; an engine may complete its defaults in admit()
};

/// Why an engine cannot solve a run: the key, its value and the rule (an input error, exit 2).
struct EngineRefusal {
  std::string key, value, rule;
};

/// One part of a memory estimate: what is kept, its size, and the key whose value drives it.
struct MemoryTerm {
  double bytes = 0.0;
  std::string what;    ///< the product, e.g. "4096 orders x 100000001 records x 8 B"
  std::string key;     ///< the configuration key (or option) to change
  std::string value;   ///< its value in this run
  std::string advice;  ///< how to lower it, e.g. "raise output.record_every or lower the orders"
};

}  // namespace rdpdyn

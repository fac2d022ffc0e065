#include "analyses/chua_2024.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <stdexcept>

#include "accounting/pld/gaussian_mixture_pair.hpp"
#include "accounting/pld/pld_accountant.hpp"
#include "accounting/pld/shuffled_batch_max_pair.hpp"
#include "analyses/composition.hpp"
#include "analyses/composition_pld.hpp"
#include "numerics/format_number.hpp"
#include "numerics/outward_rounding.hpp"

namespace rdpdyn {
namespace {

const char* kLowerName = "chua-shuffle-lower";
const char* kLowerCitation =
    "Chua, Ghazi, Kamath, Kumar, Manurangsi, Sinha & Zhang 2024 (arXiv:2403.17673), the shuffled-batch lower "
    "bound: the largest batch sum of each epoch for a pair of linear-loss datasets, composed over the epochs "
    "(Chua et al. 2024b, arXiv:2411.04205, persistent and dynamic shuffling), under replace-one";

}  // namespace

AnalysisResult chua_shuffle_lower(const RunSpec& spec, const TrainingRun& run) {
  auto refuse = [](std::string why) { return refusal(kLowerName, kLowerCitation, std::move(why)); };
  if (auto problem = accountant_input_problem(run)) return refuse(*problem);
  const bool persistent = run.sampling == BatchSampling::ShuffleOnce;
  if (run.sampling != BatchSampling::Shuffle && !persistent)
    return refuse(std::string("a lower bound for shuffled batches (sampling = shuffle or shuffle-once); the run's "
                              "batches are ") +
                  batch_sampling_name(run.sampling) +
                  (run.sampling == BatchSampling::Partition
                       ? " (fixed: the composition of the epochs' Gaussians, composition-pld, is exact)"
                       : ""));
  if (run.adjacency == Adjacency::AddRemove)
    return refuse(
        "adjacency = add-remove with fixed-size batches: how the loader refills the removed record's slot is "
        "not modelled; describe the run with zero-out adjacency (the batch loses the record's gradient) or "
        "replace (S_g the gradients' difference, domain.lipschitz_loss = true when every norm is <= S_g/2)");
  if (spec.algorithm.dropped_records > 0)
    return refuse("drop_last leaves " + std::to_string(spec.algorithm.dropped_records) +
                  " records out of each epoch: the record may sit an epoch out, which this pair does not model");
  auto planned = composition_plan(spec, run);
  if (const auto* why = std::get_if<std::string>(&planned)) return refuse(*why);
  const CompositionPlan& plan = std::get<CompositionPlan>(planned);
  if (plan.stretches.size() != 1 || plan.events > 0 || plan.initial)
    return refuse("needs one phase, no released events and R_0 = 0");
  const double z = plan.stretches.front().z;
  const std::int64_t t = run.batches_per_epoch();
  const std::int64_t epochs = run.steps / t;
  if (epochs < 1)
    return refuse("needs one whole epoch: steps = " + std::to_string(run.steps) + " < n/b = " + std::to_string(t));

  AnalysisResult r;
  r.name = kLowerName;
  r.citation = kLowerCitation;
  r.applies = true;
  if (std::isinf(z)) {  // nothing depends on the record
    r.R.assign(run.orders.size(), 0.0);
    r.reason = "the steps do not depend on the record";
    return r;
  }
  const double a = 1.0 / z;
  const double scale = persistent ? std::sqrt(static_cast<double>(epochs)) : 1.0;
  const std::int64_t count = persistent ? 1 : epochs;
  std::vector<pld::Direction> directions;
  std::vector<std::shared_ptr<const pld::DiscretePair>> binned;
  // The (record's batch shift, the neighbour's) pairs, in units of the noise (see the header), from
  // one-dimensional datasets the run allows (a lower bound needs a dataset that exists):
  //  - zero-out: every gradient within r of 0 (r = S_g, or S_g/2 with lipschitz_loss), the neighbour
  //    the null record: the record at +r among records at -r (the paper's pair) or at 0;
  //  - replace: S_g bounds the difference of every two records, so in one dimension they fit in an
  //    interval of length S_g, the same pairs as norms <= S_g/2 up to a data-independent shift of
  //    every batch sum by b times the interval's centre: the record at the top among records at the
  //    bottom, against a record at the bottom or in the middle.
  //    (Records far from the differing pair would break S_g: issue 34's audit.)
  std::vector<std::pair<double, double>> shifts;
  if (run.adjacency == Adjacency::ZeroOut) {
    const double r0 = run.gradients_norm_bounded ? 0.5 * a : a;
    shifts = {{2.0 * r0, r0}, {r0, 0.0}};
  } else {
    shifts = {{a, 0.5 * a}, {a, 0.0}};
  }
  // The binned pair's cells stop where Phi's tails leave the doubles (about 37 standard deviations):
  // larger shifts are scaled down to kLargestShift, both together, which is the same pair of datasets
  // with every gradient scaled down (still within S_g): a weaker but valid lower bound.
  constexpr double kLargestShift = 30.0;
  for (auto [p, c] : shifts) {
    const double shrink = std::min(1.0, kLargestShift / (scale * p));
    auto pair =
        std::make_shared<pld::DiscretePair>(pld::shuffled_batch_max_pair(t, shrink * scale * p, shrink * scale * c));
    binned.push_back(pair);
    directions.push_back({{pair, count}});
  }
  for (double alpha : run.orders) {
    double best = 0.0;
    for (const auto& pair : binned)
      best = std::max(best, outward::round_down(static_cast<double>(count) * pair->renyi_lower(alpha),
                                                4.0 * outward::kUnitRoundoff));
    r.R.push_back(best);
  }
  r.reason =
      std::to_string(epochs) + " whole epoch(s) of n/b = " + std::to_string(t) + " batches, z = " + format_number(z) +
      "; " +
      (persistent ? "shuffle-once: one epoch with the shifts times sqrt(E)" : "shuffle: the epochs' pairs composed") +
      (run.adjacency == Adjacency::ZeroOut
           ? std::string("; zero-out: the record at +r among records at -r against the null record (the paper's "
                         "pair), or among records at 0, the larger; r = ") +
                 (run.gradients_norm_bounded ? "S_g/2 (lipschitz_loss)" : "S_g")
           : std::string("; replace: the record at the top of an interval of length S_g among records at its "
                         "bottom, against a record at the bottom or in the middle, the larger"));
  if (run.steps % t != 0) r.reason += "; the partial last epoch left out";

  // The lower estimate of a composition of k pairs is loose by about k h (docs/pld.md): a fine grid,
  // coarser only where it does not fit. One pair (shuffle-once, or one epoch) is loose by h alone:
  // 2^-10 nats there, a quarter of the points of 2^-12.
  std::vector<std::shared_ptr<pld::PldAccountant>> accountants;
  const std::vector<double> grids =
      count == 1 ? std::vector<double>{0x1p-10, 0x1p-8} : std::vector<double>{0x1p-12, 0x1p-10, 0x1p-8};
  for (double grid : grids) {
    pld::AccountantOptions options;
    options.accuracy = spec.pld.accuracy;
    options.grid = grid;
    accountants.push_back(std::make_shared<pld::PldAccountant>(directions, options));
  }
  const double reference = spec.report_delta.value_or(1e-5);
  r.fdp_route = "pld-lower";
  r.fdp_epsilon = [accountants](double delta) {
    for (const auto& a : accountants) try {
        return a->epsilon(delta).lower;
      } catch (const std::length_error&) {  // that grid does not fit: the next, coarser one
      }
    return 0.0;  // the trivial lower bound
  };
  r.fdp_delta = [accountants, reference](double epsilon) {
    for (const auto& a : accountants) try {
        return std::max(0.0, a->delta(epsilon, reference).lower);
      } catch (const std::length_error&) {}
    return 0.0;
  };
  return r;
}

AnalysisResult poisson_as_if(const RunSpec& spec, const TrainingRun& run) {
  const char* name = "poisson-as-if";
  const char* citation =
      "the run's batches accounted as Poisson-sampled with q = b/n (opacus, dp_accounting): composition-pld of that "
      "run; not a bound for shuffled or fixed-size batches (Chua et al. 2024, arXiv:2403.17673)";
  if (run.sampling == BatchSampling::FullBatch || run.sampling == BatchSampling::Poisson)
    return refusal(
        name, citation,
        "the run is accounted as it samples (sampling = " + batch_sampling_name(run.sampling) + "): composition-pld");
  if (auto problem = accountant_input_problem(run)) return refusal(name, citation, *problem);
  TrainingRun as_poisson = run;
  as_poisson.sampling = BatchSampling::Poisson;
  as_poisson.sampling_rate = static_cast<double>(run.batch_size) / run.n;
  AnalysisResult r = composition_pld(spec, as_poisson);
  r.name = name;
  r.citation = citation;
  r.amplified_by_sampling = false;  // not the run's own amplification
  r.status_here.reset();            // the entry's own status (heuristic), whatever pair was used
  r.status_note_here.clear();
  r.reason = "as if Poisson-sampled, q = b/n = " + format_number(as_poisson.sampling_rate) +
             " (the run's batches are " + batch_sampling_name(run.sampling) + "): " + r.reason;
  return r;
}

}  // namespace rdpdyn

#include "commands/accounting_run.hpp"

#include <cmath>
#include <string>
#include <variant>

#include "analyses/composition.hpp"
#include "models/noise_units.hpp"
#include "models/privacy_model.hpp"
#include "numerics/format_number.hpp"
#include "numerics/spec_error.hpp"

namespace rdpdyn {

AccountingRun accounting_run_of(const RunConfig& config) {
  const RunSpec& spec = config.spec;
  const AlgorithmSpec& a = spec.algorithm;
  const bool poisson = a.kind == AlgorithmKind::NoisySgd && a.sampling == BatchSampling::Poisson;
  const bool without_replacement = a.kind == AlgorithmKind::NoisySgd && a.sampling == BatchSampling::PerStep;
  if (without_replacement && spec.adjacency != Adjacency::Replace)
    throw SpecError("domain.adjacency", "\"" + adjacency_name(spec.adjacency) + "\"",
                    "a sampled-without-replacement DpEvent is accounted under replace-one neighbours (dp_accounting's "
                    "REPLACE_ONE); use adjacency = \"replace\"");
  if (spec.adjacency == Adjacency::ZeroOut)
    throw SpecError("domain.adjacency", "\"zero-out\"",
                    "the DpEvents written here are accounted under add/remove or replace-one; use one of those");
  if (a.kind != AlgorithmKind::NoisyGd && !poisson && !without_replacement)
    throw SpecError(a.kind == AlgorithmKind::NoisySgd ? "algorithm.sampling" : "algorithm.kind",
                    "\"" +
                        (a.kind == AlgorithmKind::NoisySgd ? batch_sampling_name(a.sampling)
                                                           : name_of(kAlgorithmKindNames, a.kind)) +
                        "\"",
                    "a DpEvent of this tool holds Poisson-sampled (sampling = \"poisson\"), per-step (b of n without "
                    "replacement) or full-batch (noisy-gd) Gaussian steps");
  if (!spec.events.empty())
    throw SpecError(spec.events.front().origin + ".kind", "an event",
                    "events are not exported (a DpEvent of this tool holds the run's steps only)");
  if (!std::holds_alternative<ZeroCurve>(spec.initial))
    throw SpecError("initial.kind", "a curve", "an initial divergence has no DpEvent");
  const TrainingRun run = training_run_of(spec);
  const auto planned = composition_plan(spec, run);
  if (const auto* why = std::get_if<std::string>(&planned)) throw SpecError("algorithm", "the run", *why);
  AccountingRun out;
  out.add_remove = spec.adjacency == Adjacency::AddRemove;
  // The plan's effective multiplier z = s / Delta is m / (clipped-sum sensitivity in clips):
  // m = z under add/remove, 2 z under replace (models/noise_units.hpp).
  const double clips = noise_units::clipped_sum_sensitivity_in_clips(out.add_remove);
  for (const CompositionStretch& s : std::get<CompositionPlan>(planned).stretches) {
    if (s.steps == 0) continue;
    if (std::isinf(s.z))
      throw SpecError("algorithm.schedule", "a phase with sensitivity = 0",
                      "a DpEvent has no step that ignores the record; leave the phase out");
    if (without_replacement)
      out.phases.push_back(
          {run.batch_size / run.n, s.z * clips, s.steps, static_cast<std::int64_t>(run.n), run.batch_size});
    else
      out.phases.push_back({poisson ? s.q : 1.0, s.z * clips, s.steps});
  }
  return out;
}

}  // namespace rdpdyn

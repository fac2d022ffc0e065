#include "commands/run_terms.hpp"

#include "models/training_run.hpp"
#include "numerics/format_number.hpp"

namespace rdpdyn {
namespace {

std::string sampling_words(const AlgorithmSpec& a) {
  switch (a.kind) {
    case AlgorithmKind::NoisyGd:
      return "full batch";
    case AlgorithmKind::Langevin:
      return "the Langevin diffusion (full batch)";
    case AlgorithmKind::Pdi:
      return "";
    case AlgorithmKind::NoisySgd:
      break;
  }
  switch (a.sampling) {
    case BatchSampling::Poisson:
      return "Poisson sampling, q = " + format_number(a.sampling_rate);
    case BatchSampling::PerStep:
      return "b = " + format_number(a.batch_size) + " of n = " + format_number(a.n) + " drawn afresh each step";
    case BatchSampling::Shuffle:
      return "batches of " + format_number(a.batch_size) + " reshuffled each epoch";
    case BatchSampling::ShuffleOnce:
      return "batches of " + format_number(a.batch_size) + " from one shuffle";
    case BatchSampling::Partition:
      return "batches of " + format_number(a.batch_size) + " in a fixed partition";
    case BatchSampling::FullBatch:
      return "full batch";
  }
  return batch_sampling_name(a.sampling);
}

std::string relation_words(const std::string& adjacency) {
  if (adjacency == "replace") return "replace-one neighbours";
  if (adjacency == "add-remove") return "add/remove neighbours";
  if (adjacency == "zero-out") return "zero-out neighbours";
  return adjacency + " neighbours";
}

}  // namespace

RunTerms run_terms(const RunSpec& spec) {
  RunTerms t;
  if (spec.algorithm.kind == AlgorithmKind::Pdi) return t;
  t.adjacency = adjacency_name(spec.adjacency);
  t.adjacency_by_default = !spec.adjacency_given;
  t.sampling = sampling_words(spec.algorithm);
  t.records_per_user = spec.records_per_user;
  t.records_per_user_by_default = !spec.records_per_user_given;
  const bool dpsgd_terms =
      spec.algorithm.kind == AlgorithmKind::NoisySgd && spec.algorithm.noise_multiplier &&
      (spec.algorithm.sampling == BatchSampling::Poisson || spec.algorithm.sampling == BatchSampling::PerStep);
  if (dpsgd_terms && t.adjacency_by_default)
    t.ecosystem_hint =
        "opacus, dp_accounting and tensorflow/privacy count add/remove neighbours: for their number write "
        "[domain] adjacency = \"add-remove\" (or --set domain.adjacency=add-remove)";
  return t;
}

std::string run_terms_line(const RunTerms& t) {
  if (t.adjacency.empty()) return "";
  std::string line =
      "for " + relation_words(t.adjacency) + (t.adjacency_by_default ? " (default)" : "") + ", " + t.sampling + ", ";
  line += t.records_per_user == 1 ? std::string("one record per user")
                                  : "users of up to " + std::to_string(t.records_per_user) + " records";
  if (t.records_per_user_by_default) line += " (default)";
  return line;
}

}  // namespace rdpdyn

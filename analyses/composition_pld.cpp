#include "analyses/composition_pld.hpp"

#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <stdexcept>

#include "accounting/gaussian_dp.hpp"
#include "accounting/pld/antipodal_mixture_pair.hpp"
#include "accounting/pld/gaussian_mixture_pair.hpp"
#include "accounting/pld/poisson_replace_pair.hpp"
#include "accounting/pld/worse_of_pairs.hpp"
#include "accounting/pld/shared_component_pair.hpp"
#include "accounting/sampled_gaussian.hpp"
#include "analyses/composition.hpp"
#include "numerics/format_number.hpp"
#include "numerics/numerical_failure.hpp"
#include "numerics/outward_rounding.hpp"

namespace rdpdyn {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
using Dir = pld::GaussianMixturePair::Direction;

const char* kName = "composition-pld";
const char* kCitation =
    "privacy loss distributions (Koskela, Jälkö & Honkela 2020, arXiv:1906.03049) of the run's dominating pairs "
    "(Poisson-subsampled Gaussian: Mironov, Talwar & Zhang 2019, arXiv:1908.10530; Zhu, Dong & Wang 2022, "
    "arXiv:2106.08567), discretised by connecting the dots (Doroshenko, Ghazi, Kamath, Kumar & Manurangsi 2022, "
    "arXiv:2207.04380) and composed by FFT (FFTW3) with the truncated mass and the round-off bounded and added "
    "(docs/pld.md)";

AnalysisResult refused(std::string why) { return refusal(kName, kCitation, std::move(why)); }

}  // namespace

AnalysisResult composition_pld(const RunSpec& spec, const TrainingRun& run) {
  if (auto problem = accountant_input_problem(run)) return refused(*problem);
  const bool per_step = run.sampling == BatchSampling::PerStep;
  if (per_step && run.adjacency == Adjacency::AddRemove)
    return refused(
        "sampling = per-step under add-remove adjacency: a fixed-size batch refills the removed record's "
        "slot, which the subsampling theorem here (Dong, Roth & Su 2022, Thm 4.2, replace-one) does not "
        "cover; describe the run with replace or zero-out adjacency (zero-out: the batch loses the record's "
        "gradient), or with Poisson sampling");
  // Partition, shuffle-once and shuffle: given the batches, the record is in one batch of each epoch.
  const bool fixed_batches =
      run.sampling != BatchSampling::FullBatch && run.sampling != BatchSampling::Poisson && !per_step;
  if (fixed_batches && run.adjacency == Adjacency::AddRemove)
    return refused(std::string("adjacency = add-remove with fixed-size batches (sampling = ") +
                   batch_sampling_name(run.sampling) +
                   "): the removed record's batch slot is refilled by another record, which is not modelled; "
                   "describe the run with replace adjacency");
  auto planned = composition_plan(spec, run);
  if (const auto* why = std::get_if<std::string>(&planned)) return refused(*why);
  const CompositionPlan& plan = std::get<CompositionPlan>(planned);
  if (plan.initial)
    return refused(
        "the run declares an initial divergence R_0 as a Rényi curve ([initial]); a PLD needs the "
        "initial pair's privacy profile, which a Rényi curve does not determine");

  AnalysisResult r;
  r.name = kName;
  r.citation = kCitation;
  r.applies = true;
  const std::int64_t steps = total_steps(plan);
  const bool poisson = run.sampling == BatchSampling::Poisson;
  // The rate of a stretch: Poisson phases may set their own (CompositionStretch::q).
  const double fixed_q =
      per_step ? std::min(1.0, std::nextafter(static_cast<double>(run.batch_size) / run.n, 2.0)) : 1.0;
  const auto q_of = [&](const CompositionStretch& s) { return poisson ? s.q : fixed_q; };
  double q = poisson ? 0.0 : fixed_q;  // the largest rate, for the reason
  bool every_step_uses_the_record = true;
  for (const auto& s : plan.stretches) {
    if (poisson) q = std::max(q, s.q);
    if (q_of(s) < 1.0 && s.steps > 0 && !std::isinf(s.z)) every_step_uses_the_record = false;
  }

  if (fixed_batches) {
    // One use of the record per epoch at the worst position (composition-gaussian's count): Gaussians
    // only, whatever the draw of the batches (joint quasi-convexity over the draws, A&T 2022 Lemma
    // 2.6): the exact Gaussian-DP profile of the uses' composition (Dong, Roth & Su 2022, Cor 3.3).
    double mu2 = 2.0 * record_uses_slope(run, plan.stretches);
    for (double m : plan.event_mus) mu2 += m * m;
    r.mu = std::sqrt(mu2);
    const std::int64_t N = run.batches_per_epoch();
    r.reason = std::string("sampling = ") + batch_sampling_name(run.sampling) +
               ": the record is in one batch of each epoch (n/b = " + std::to_string(N) +
               "), a Gaussian per use; mu = " + format_number(*r.mu) + " (" + std::to_string(steps) + " steps)";
    return r;
  }
  if (every_step_uses_the_record) {
    // Gaussians only: the exact Gaussian-DP profile of the composition.
    double mu2 = 0.0;
    for (const auto& s : plan.stretches)
      if (!std::isinf(s.z)) mu2 += static_cast<double>(s.steps) / (s.z * s.z);
    for (double m : plan.event_mus) mu2 += m * m;
    r.mu = std::sqrt(mu2);
    r.reason = "every step uses the record: a composition of Gaussians, mu = " + format_number(*r.mu) +
               " (its exact Gaussian-DP profile; " + std::to_string(steps) + " steps)";
    return r;
  }

  // Sampled steps: the pairs of each phase, each event's Gaussian pair.
  r.amplified_by_sampling = true;
  // Add/remove and zero-out with Poisson batches: the record's term is there or not, the others'
  // inclusions independent of it: the remove and add pairs. Zero-out with b of n drawn afresh is not
  // that: when the batch holds the record it holds one other record fewer. Dong, Roth & Su's Thm 4.2
  // (C_q(f), arXiv:1905.02383) needs the batch mechanism f-DP for replacing a record of the batch by
  // ANY other record, and two real records are 2C apart (S_g = C bounds each one), not C: the step
  // is C_q(G(2/z)), z = s / (eta C / b). Not attained: the closest pair known is the others at -C,
  // the record at +C against the null record, (1-q) N(0) + q N(2/z) against (1-q) N(0) + q N(1/z)
  // (q = 0.01, z = 1, delta 1e-5: 2.3989 against this bound's 3.0254; C_q(G(1/z)) gave 0.19946, issue
  // 34; docs/soundness-cells.md section 2.4).
  const bool add_remove = one_record_apart(run.adjacency) && !per_step;
  // mu of a step's Gaussian per unit 1/z: the largest distance of two batch sums in units of Delta.
  const double per_step_mu_factor = per_step && run.adjacency == Adjacency::ZeroOut ? 2.0 : 1.0;
  // Poisson under replace-one: with per-record norms <= S_g/2, the antipodal pair (tight); else the
  // pair given the batch size; where the sizes' law is too wide to tabulate (n q (1 - q) above about
  // 1e10), the shared-component pair, which needs nothing.
  const bool antipodal = poisson && !add_remove && run.gradients_norm_bounded;
  // The batch sizes' law of each rate (one unless phases set their own); empty where too wide to tabulate.
  std::map<double, std::vector<std::pair<double, double>>> bins;
  bool sizes_revealed = poisson && !add_remove && !antipodal;
  if (sizes_revealed)
    for (const auto& s : plan.stretches) {
      if (s.q == 1.0 || bins.count(s.q)) continue;  // an unsampled step is a Gaussian pair (below)
      try {
        bins[s.q] = pld::binomial_size_bins(run.n, s.q, 0.0, run.n);
      } catch (const std::length_error&) {
        sizes_revealed = false;
      }
      if (bins[s.q].empty()) sizes_revealed = false;
    }
  std::vector<pld::Direction> directions(add_remove ? 2 : 1);
  for (const auto& s : plan.stretches) {
    if (s.steps <= 0 || std::isinf(s.z)) continue;
    const double q = q_of(s);
    if (q == 1.0) {
      // A phase that samples every record (a Poisson phase of rate 1 among sampled ones, e.g. a
      // GaussianDpEvent of --from-dp-event): the Gaussian mechanism, G(1/z) in either direction.
      for (auto& d : directions)
        d.push_back({std::make_shared<pld::GaussianMixturePair>(pld::gaussian_pair(1.0 / s.z)), s.steps});
    } else if (add_remove) {
      directions[0].push_back(
          {std::make_shared<pld::GaussianMixturePair>(pld::subsampled_gaussian_pair(q, 1.0 / s.z, Dir::Forward)),
           s.steps});
      directions[1].push_back(
          {std::make_shared<pld::GaussianMixturePair>(pld::subsampled_gaussian_pair(q, 1.0 / s.z, Dir::Reverse)),
           s.steps});
    } else if (antipodal) {
      directions[0].push_back({std::make_shared<pld::AntipodalMixturePair>(q, 0.5 / s.z), s.steps});
    } else if (per_step) {
      directions[0].push_back({pld::fixed_size_subsampled_gaussian_pair(q, per_step_mu_factor / s.z), s.steps});
    } else if (sizes_revealed) {
      directions[0].push_back({pld::sizes_revealed_step_pair(bins.at(s.q), 1.0 / s.z), s.steps});
    } else {
      auto inner = std::make_shared<pld::GaussianMixturePair>(pld::gaussian_pair(1.0 / s.z));
      directions[0].push_back({std::make_shared<pld::SharedComponentPair>(q, inner), s.steps});
    }
  }
  if (antipodal) {
    r.status_here = AnalysisStatus::Derived;
    r.status_note_here =
        "Poisson under replace-one with per-record gradient norms <= S_g/2: the antipodal pair "
        "(1-q) N(0) + q N(c) against (1-q) N(0) + q N(-c), c = S_g/(2 sigma), dominates each step "
        "(derived here: docs/derivations/replace_one_poisson_antipodal.md; dp_accounting's "
        "REPLACE_ONE pair; Lebeda, Regehr, Kamath & Steinke 2025, arXiv:2405.20769, Prop. 13, "
        "credited there, not read here)";
  } else if (sizes_revealed) {
    r.status_here = AnalysisStatus::Derived;
    r.status_note_here =
        "Poisson under replace-one: each step given its batch size is Dong, Roth & Su's C_{k/n} "
        "(arXiv:1905.02383, Thm 4.2), the sizes' law revealed (derived here: docs/pld.md, "
        "\"Replace-one adjacency\")";
  }
  for (double m : plan.event_mus)
    for (auto& d : directions) d.push_back({std::make_shared<pld::GaussianMixturePair>(pld::gaussian_pair(m)), 1});

  // R: the Rényi divergence of the same composed pairs (for the antipodal pair, of the shared-component
  // pair that dominates it: an upper bound). Zero-out with b of n drawn afresh: the shared-component
  // pair at 1/z, tighter than C_q(G(2/z)) here: the batches without the record are common to both
  // datasets, and given the batch's other records the record against the null record moves the sum by
  // at most C, so by the joint convexity of exp((alpha - 1) R_alpha) (van Erven & Harremoës 2014,
  // arXiv:1206.2459, Thm 13) the step's R is at most the pair's.
  try {
    for (double alpha : run.orders) {
      double total = alpha * plan.event_slope;
      for (const auto& s : plan.stretches) {
        if (s.steps <= 0 || std::isinf(s.z)) continue;
        // q = 1: the Gaussian mechanism's alpha / (2 z^2) (Mironov 2017 Prop. 7).
        total += static_cast<double>(s.steps) * (q_of(s) == 1.0 ? alpha / (2.0 * s.z * s.z)
                                                 : add_remove
                                                     ? sampled_gaussian_rdp_upper(q_of(s), s.z, alpha)
                                                     : pld::shared_component_gaussian_rdp(q_of(s), 1.0 / s.z, alpha));
      }
      r.R.push_back(total);
    }
  } catch (const NumericalFailure& e) {  // an order beyond the expansions' reach (alpha > 1e6)
    return refused(std::string("numerical evaluation failed: ") + e.what());
  }
  r.reason = std::string(per_step ? "per-step batches of b of n, q = b/n = " : "Poisson, q = ") + format_number(q) +
             (changing_rate(plan) ? " (the largest of the phases' rates)" : "");
  if (plan.stretches.size() == 1) r.reason += ", z = " + format_number(plan.stretches.front().z);
  r.reason += ", " + std::to_string(steps) + " steps";
  if (plan.stretches.size() > 1) r.reason += ", " + std::to_string(plan.stretches.size()) + " phases";
  if (plan.events > 0) r.reason += ", " + std::to_string(plan.events) + " released Gaussian event(s)";
  r.reason += add_remove ? std::string("; ") + adjacency_name(run.adjacency) +
                               ": remove and add pairs composed separately, delta the larger"
              : antipodal ? "; replace: two records of opposite gradients, norms <= S_g/2 (lipschitz_loss)"
              : per_step && run.adjacency == Adjacency::ZeroOut
                  ? "; zero-out: Dong, Roth & Su's C_q(G(2/z)) per step (the batch's other records change with the "
                    "record's inclusion, so the theorem's replace-one hypothesis is needed: two records are two clips "
                    "apart)"
              : per_step ? "; replace: Dong, Roth & Su's C_q(G(1/z)) per step (S_g bounds the gradients' difference)"
              : sizes_revealed ? "; replace: C_{k/n}(G(1/z)) given the batch size k, the sizes' law revealed (where "
                                 "every per-record gradient norm is <= S_g/2, domain.lipschitz_loss = true gives the "
                                 "tighter antipodal pair)"
                               : "; replace: one common component apart (S_g bounds only the gradients' difference)";
  if (directions[0].empty()) return r;  // nothing depends on the record: R = 0, epsilon 0

  pld::AccountantOptions options;
  options.accuracy = spec.pld.accuracy;
  options.grid = spec.pld.grid.value_or(0.0);
  auto accountant = std::make_shared<pld::PldAccountant>(std::move(directions), options);
  const double reference = spec.report_delta.value_or(1e-5);
  r.fdp_route = "pld";
  r.fdp_epsilon = [accountant](double delta) {
    try {
      return accountant->epsilon(delta).upper;
    } catch (const std::length_error&) {
      return kInf;  // the grid does not fit: no certificate from this route (the RDP one still answers)
    }
  };
  r.fdp_grid = [accountant](double delta) { return accountant->grid(delta); };
  r.fdp_delta = [accountant, reference](double epsilon) { return accountant->delta(epsilon, reference).upper; };
  r.fdp_curves = [accountant, reference]() { return accountant->curves(reference, std::min(reference, 1e-10) * 1e-2); };
  return r;
}

}  // namespace rdpdyn

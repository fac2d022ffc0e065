// The one catalogue of analyses. A new analysis is one entry here (and its file in analyses/).
#include <string>
#include <vector>

#include "analyses/altschuler_talwar_2022.hpp"
#include "analyses/analysis.hpp"
#include "analyses/chourasia_2021.hpp"
#include "analyses/chua_2024.hpp"
#include "analyses/bok_su_altschuler_2024.hpp"
#include "analyses/bounded_domain_pabi.hpp"
#include "analyses/kong_ribero_2024.hpp"
#include "analyses/liang_2025.hpp"
#include "numerics/near_miss.hpp"
#include "analyses/composition.hpp"
#include "analyses/composition_pld.hpp"
#include "analyses/steinke_2025.hpp"
#include "analyses/noisysgd_window.hpp"
#include "analyses/dong_roth_su_2022.hpp"
#include "analyses/ganesh_2024.hpp"
#include "analyses/group_privacy.hpp"
#include "analyses/ganesh_thakurta_upadhyay_2022.hpp"
#include "analyses/quadratic_exact_profile.hpp"
#include "accounting/gaussian_dp.hpp"
#include "analyses/pdi.hpp"
#include "analyses/ye_shokri_2022/derived_entries.hpp"
#include "analyses/ye_shokri_2022/published_entries.hpp"
#include "numerics/format_number.hpp"
#include "numerics/outward_rounding.hpp"

namespace rdpdyn {
namespace {

/// The papers' common setting: identical initial laws, no events, discrete steps, one step size
/// and one noise level. "" when the run is in it.
std::string paper_setting_failure(const RunSpec& spec) {
  if (!std::holds_alternative<ZeroCurve>(spec.initial)) return "needs identical initial laws (R_0 = 0)";
  if (!spec.events.empty()) return "needs a run without boundary events";
  if (spec.algorithm.kind == AlgorithmKind::Langevin)
    return "stated for discrete steps; the run is a Langevin diffusion";
  if (spec.algorithm.kind == AlgorithmKind::Pdi)
    return "stated for training runs; the run is a coefficient-level PDI (kind = \"pdi\")";
  if (spec.algorithm.phases.size() > 1) return "needs one step size and one noise level";
  return "";
}

using RunAnalysis = AnalysisResult (*)(const TrainingRun&);
using SpecAnalysis = AnalysisResult (*)(const RunSpec&, const TrainingRun&);

AnalysisResult refused(std::string why) {
  AnalysisResult r;
  r.reason = std::move(why);
  return r;
}

/// Outward rounding of a paper's bound (docs/analyses.md, "Outward rounding"): its closed forms
/// and recursions take O(steps) operations (powers (1 - eta)^K, exp(-x K), sums over the steps),
/// so the margin is that of a recursion of run.steps steps.
AnalysisResult rounded(AnalysisResult r, const TrainingRun& run) {
  outward::round_up(r.R, outward::recursion_margin(run.steps));
  return r;
}

/// Adapts a paper's analysis of a TrainingRun: the paper setting is checked first, the orders
/// are the requested ones, the result is rounded outward.
std::function<AnalysisResult(const AnalysisInput&, std::span<const double>)> paper(RunAnalysis f) {
  return [f](const AnalysisInput& in, std::span<const double> orders) {
    if (auto why = paper_setting_failure(in.config.spec); !why.empty()) return refused(why);
    TrainingRun run = in.run;
    run.orders.assign(orders.begin(), orders.end());
    return rounded(f(run), run);
  };
}
std::function<AnalysisResult(const AnalysisInput&, std::span<const double>)> paper(SpecAnalysis f) {
  return [f](const AnalysisInput& in, std::span<const double> orders) {
    if (auto why = paper_setting_failure(in.config.spec); !why.empty()) return refused(why);
    TrainingRun run = in.run;
    run.orders.assign(orders.begin(), orders.end());
    return rounded(f(in.config.spec, run), run);
  };
}

/// Adapts a paper's lower bound (the paper setting first, as paper()): rounded DOWN, the outward
/// direction for a lower bound, by the same margin.
std::function<AnalysisResult(const AnalysisInput&, std::span<const double>)> lower_bound_paper(SpecAnalysis f) {
  return [f](const AnalysisInput& in, std::span<const double> orders) {
    if (auto why = paper_setting_failure(in.config.spec); !why.empty()) return refused(why);
    TrainingRun run = in.run;
    run.orders.assign(orders.begin(), orders.end());
    AnalysisResult r = f(in.config.spec, run);
    for (double& x : r.R) x = outward::round_down(x, outward::recursion_margin(run.steps));
    return r;
  };
}

/// Adapts a lower bound of the released sequence that rounds itself down (chua-shuffle-lower): the
/// paper setting first, then the requested orders.
std::function<AnalysisResult(const AnalysisInput&, std::span<const double>)> released_lower_bound(SpecAnalysis f) {
  return [f](const AnalysisInput& in, std::span<const double> orders) {
    if (auto why = paper_setting_failure(in.config.spec); !why.empty()) return refused(why);
    TrainingRun run = in.run;
    run.orders.assign(orders.begin(), orders.end());
    return f(in.config.spec, run);
  };
}

/// Adapts a Langevin paper's analysis: its own setting check replaces the paper setting (which
/// refuses Langevin runs), then the requested orders and outward rounding as paper().
std::function<AnalysisResult(const AnalysisInput&, std::span<const double>)> langevin_paper(SpecAnalysis f) {
  return [f](const AnalysisInput& in, std::span<const double> orders) {
    if (auto why = gtu_langevin_setting_failure(in.config.spec); !why.empty()) return refused(why);
    TrainingRun run = in.run;
    run.orders.assign(orders.begin(), orders.end());
    return rounded(f(in.config.spec, run), run);
  };
}

/// A&T (B.2)/(B.3): the disputed step of the proof concerns the sampled batch; with b = n it is not
/// used, and the bound stands as published.
std::function<AnalysisResult(const AnalysisInput&, std::span<const double>)> disputed_only_when_sampled(RunAnalysis f) {
  return [inner = paper(f)](const AnalysisInput& in, std::span<const double> orders) {
    AnalysisResult r = inner(in, orders);
    if (in.run.sampling == BatchSampling::FullBatch || static_cast<double>(in.run.batch_size) >= in.run.n) {
      r.status_here = AnalysisStatus::Published;
      r.status_note_here = "b = n: the disputed step of the proof (the sampled batch) is not used";
    }
    return r;
  };
}

/// Adapts an accountant that handles phases, events and R_0 itself (analyses/composition.hpp): no
/// paper-setting gate, the orders are the requested ones, the result is rounded outward.
std::function<AnalysisResult(const AnalysisInput&, std::span<const double>)> accountant(SpecAnalysis f) {
  return [f](const AnalysisInput& in, std::span<const double> orders) {
    TrainingRun run = in.run;
    run.orders.assign(orders.begin(), orders.end());
    return rounded(f(in.config.spec, run), run);
  };
}

/// Outward rounding of a Gaussian-DP result: mu raised like a closed form of run.steps steps, R
/// recomputed from the raised mu (alpha mu^2 / 2, two more roundings) and raised again.
AnalysisResult rounded_gdp(AnalysisResult r, const TrainingRun& run, double margin) {
  if (!r.applies || !r.mu) return r;
  r.mu = outward::round_up(*r.mu, margin);
  r.R.clear();
  for (double a : run.orders) r.R.push_back(outward::round_up(gdp_rdp(*r.mu, a), outward::recursion_margin(0)));
  return r;
}

/// Adapts a paper's Gaussian-DP analysis of a TrainingRun (paper setting first, as paper()).
std::function<AnalysisResult(const AnalysisInput&, std::span<const double>)> gdp_paper(RunAnalysis f) {
  return [f](const AnalysisInput& in, std::span<const double> orders) {
    if (auto why = paper_setting_failure(in.config.spec); !why.empty()) return refused(why);
    TrainingRun run = in.run;
    run.orders.assign(orders.begin(), orders.end());
    return rounded_gdp(f(run), run, outward::recursion_margin(run.steps));
  };
}

/// Adapts a Gaussian-DP accountant or exact computation that reads the configured run itself.
/// `margin_per_dimension`: the exact profile's eigenproblems lose about d u more (d the dimension).
std::function<AnalysisResult(const AnalysisInput&, std::span<const double>)> gdp_spec(
    SpecAnalysis f, bool margin_per_dimension = false) {
  return [f, margin_per_dimension](const AnalysisInput& in, std::span<const double> orders) {
    TrainingRun run = in.run;
    run.orders.assign(orders.begin(), orders.end());
    double margin = outward::recursion_margin(run.steps);
    if (margin_per_dimension && in.config.spec.quadratic)
      margin *= 1.0 + static_cast<double>(in.config.spec.quadratic->hessian.size());
    return rounded_gdp(f(in.config.spec, run), run, margin);
  };
}

/// Adapts an accountant with a privacy profile (composition-pld): a Gaussian-DP result (full batch)
/// is rounded as gdp_spec() rounds, an RDP column as accountant() rounds; the profile's epsilon and
/// delta are certified by the accountant itself (accounting/pld/).
std::function<AnalysisResult(const AnalysisInput&, std::span<const double>)> profile_accountant(SpecAnalysis f) {
  return [f](const AnalysisInput& in, std::span<const double> orders) {
    TrainingRun run = in.run;
    run.orders.assign(orders.begin(), orders.end());
    AnalysisResult r = f(in.config.spec, run);
    return r.mu ? rounded_gdp(std::move(r), run, outward::recursion_margin(run.steps)) : rounded(std::move(r), run);
  };
}

/// Adapts a profile accountant of a paper's setting (one phase, no events, R_0 = 0): the setting
/// first, then as profile_accountant().
std::function<AnalysisResult(const AnalysisInput&, std::span<const double>)> paper_profile(SpecAnalysis f) {
  return [inner = profile_accountant(f)](const AnalysisInput& in, std::span<const double> orders) {
    if (auto why = paper_setting_failure(in.config.spec); !why.empty()) return refused(why);
    return inner(in, orders);
  };
}

/// Marks an entry whose privacy profile comes from the PLD accountant (accounting/pld/
/// pld_accountant.hpp), composed by FFT: the entry (Analysis::composes_by_fft) and each of its
/// results that carries such a profile (AnalysisResult::fft_round_off_assumed), so that the outputs'
/// status note says the round-off bound is assumed (kFftRoundOffLabel, status_note_of). Every entry
/// that builds a PldAccountant is registered through here.
Analysis pld_profile(Analysis a) {
  a.composes_by_fft = true;
  a.assess = [inner = std::move(a.assess)](const AnalysisInput& in, std::span<const double> orders) {
    AnalysisResult r = inner(in, orders);
    r.fft_round_off_assumed = r.applies && (r.fdp_epsilon || r.fdp_delta || r.fdp_curves);
    return r;
  };
  return a;
}

constexpr auto P = AnalysisStatus::Published;
constexpr auto D = AnalysisStatus::Derived;
constexpr auto X = AnalysisStatus::Disputed;
constexpr auto E = AnalysisStatus::Exact;
constexpr auto L = AnalysisStatus::LowerBound;
constexpr auto R = AnalysisStatus::RecordSpecific;
constexpr auto H = AnalysisStatus::Heuristic;
constexpr auto RL = AnalysisStatus::ReleasedLowerBound;

std::vector<Analysis> build_registry() {
  const std::string at_gap =
      "for b < n the proof's Step 3b (A&T arXiv:2205.13710, proof of Thm 3.1) takes the random "
      "contractions equal given equal noise although the batch also enters the noise's bias; with only "
      "gradient differences bounded a one-step analogue fails (docs/analyses.md, \"Disputed\")";
  return {
      {"chourasia-thm2", "Chourasia, Ye, Shokri 2021 (arXiv:2102.05855) Thm 2, gamma = 1/2", P, "", true,
       paper(chourasia_thm2)},
      {"chourasia-cor1", "C21 (arXiv:2102.05855) Cor 1", P, "", true, paper(chourasia_cor1)},
      {"chourasia-cor2", "C21 (arXiv:2102.05855) Cor 2", P, "", true, paper(chourasia_cor2)},
      {"chourasia-thm3-exact", "C21 (arXiv:2102.05855) Thm 3, the exact divergence (last equality of its proof)", E,
       "docs/analyses.md, \"chourasia-thm3-exact, chourasia-thm3-lower\"", true, paper(chourasia_thm3_exact)},
      {"chourasia-thm3-lower", "C21 (arXiv:2102.05855) Thm 3, the stated lower bound", L,
       "docs/analyses.md, \"chourasia-thm3-exact, chourasia-thm3-lower\": a lower bound, never an upper one", true,
       lower_bound_paper(chourasia_thm3_lower)},
      {"ye-shokri-thm3.3", "Ye & Shokri 2022 (arXiv:2203.05363) Thm 3.3, eq. (91); Thm D.4, eq. (80)", P, "", true,
       paper(ye_shokri::thm3_3)},
      {"ye-shokri-thm3.3-shifted",
       "derived from Ye & Shokri 2022 (arXiv:2203.05363) Thm 3.3 (91), Thm D.4 (80), Lemma 3.2 (56)", D,
       "docs/analyses.md, \"ye-shokri-thm3.3-shifted\"", true, paper(ye_shokri::thm3_3_shifted),
       /*monotone_in_steps=*/false},
      {"ye-shokri-thm4.2", "Ye & Shokri 2022 (arXiv:2203.05363) Thm 4.2, eq. (135)", P, "", true,
       paper(ye_shokri::thm4_2)},
      {"ye-shokri-thm4.2-mixture", "derived from Ye & Shokri 2022 (arXiv:2203.05363) Lemma 4.1 (133), Thm 4.2 (135)", D,
       "docs/analyses.md, \"ye-shokri-thm4.2-mixture\"", true, paper(ye_shokri::thm4_2_mixture)},
      {"ye-shokri-thm4.3", "Ye & Shokri 2022 (arXiv:2203.05363) Thm 4.3, eqs. (147)-(150)", P, "", true,
       paper(ye_shokri::thm4_3)},
      {"ye-shokri-d5-last-batch",
       "Ye & Shokri 2022 (arXiv:2203.05363) Thm D.5, eq. (111), App. D.6 (YS22 ref. [5], Balle, Barthe, Gaboardi & "
       "Geumlek 2019, "
       "Thm 5), last batch",
       P, "", true, paper(ye_shokri::d5_last_batch)},
      {"ye-shokri-d5-first-batch",
       "Ye & Shokri 2022 (arXiv:2203.05363) Thm D.5, eq. (111), App. D.6 (YS22 ref. [5], Balle, Barthe, Gaboardi & "
       "Geumlek 2019, "
       "Thm 5), first batch",
       R,
       "holds only for the records of the first batch (YS22 Figure 1's lower Balle curve); docs/analyses.md, "
       "\"ye-shokri-d5-last-batch, ye-shokri-d5-first-batch\"",
       true, paper(ye_shokri::d5_first_batch)},
      {"ye-shokri-d6", "Ye & Shokri 2022 (arXiv:2203.05363) Thm D.6, eq. (112)", P, "", true, paper(ye_shokri::d6)},
      {"ye-shokri-d6-optimal-split", "derived from Ye & Shokri 2022 (arXiv:2203.05363) Thm D.6, recursion (122)", D,
       "docs/analyses.md, \"ye-shokri-d6-optimal-split\"", true, paper(ye_shokri::d6_optimal_split)},
      {"altschuler-talwar-b1", "Altschuler & Talwar 2022 (arXiv:2205.13710) eq. (B.1)", P, "", true,
       paper(altschuler_talwar_b1)},
      {"altschuler-talwar-b2", "Altschuler & Talwar 2022 (arXiv:2205.13710) eq. (B.2)", X, at_gap, true,
       disputed_only_when_sampled(altschuler_talwar_b2)},
      {"altschuler-talwar-b3", "Altschuler & Talwar 2022 (arXiv:2205.13710) eq. (B.3)", X, at_gap, true,
       disputed_only_when_sampled(altschuler_talwar_b3)},
      {"altschuler-talwar-thm5.6",
       "derived from Altschuler & Talwar 2022 (arXiv:2205.13710) Thm 5.6, the display (5.6) of its proof (cyclic "
       "batches)",
       D,
       "docs/analyses.md, \"altschuler-talwar-thm5.6\" (the theorem is stated up to constants; the proof's display "
       "is evaluated, over the smaller of two windows, T-bar rounded up to whole epochs)",
       true, paper(altschuler_talwar_thm56)},
      {"pabi-strongly-convex", "derived from Altschuler & Talwar 2022 (arXiv:2205.13710) Prop. 5.4", D,
       "docs/analyses.md, \"pabi-strongly-convex\"", true, paper(pabi_strongly_convex)},
      {"pabi-bounded-domain",
       "derived from Feldman, Mironov, Talwar & Thakurta 2018 (arXiv:1808.06651), shifted Renyi divergences, with the "
       "bounded-domain start of Altschuler & Talwar 2022 (arXiv:2205.13710): projected noisy (S)GD, L-Lipschitz "
       "gradient maps (non-convex smooth losses: L = 1 + eta m), the least absorbed shift over windows",
       D, "docs/analyses.md, \"pabi-bounded-domain\"", false, paper(pabi_bounded_domain),
       /*monotone_in_steps=*/false},
      {"liang-2025-thm3.4",
       "Liang, Zhang, He, Wu & Xing 2025 (arXiv:2502.17772) Thm 3.4 as transcribed in the authors' scripts "
       "(HauLiang/DPSGD-DC ae9946f)",
       X,
       "the paper's body could not be read here; the authors' transcription charges the last release b/n of its "
       "worst-case cost (an average over the record's place, which Renyi divergence does not allow in general) and "
       "leaves open whether D is a radius; docs/analyses.md, \"liang-2025-thm3.4\"",
       true, paper(liang_thm3_4)},
      {"kong-ribero-2024",
       "Kong & Ribero 2024 (arXiv:2407.05237), cyclic DP-SGD on weakly convex losses, as transcribed in Liang et "
       "al. 2025's scripts (HauLiang/DPSGD-DC ae9946f)",
       X,
       "the paper's body could not be read here and its versions state different assumptions; a third party's "
       "transcription, not checked against the paper; docs/analyses.md, \"kong-ribero-2024\"",
       true, paper(kong_ribero_transcribed)},
      {"ganesh-lemma-c1",
       "Ganesh, Thakurta & Upadhyay 2022 (arXiv:2204.01585) Lemma C.1 (path-level bound of the Langevin diffusion)", P,
       "", true, langevin_paper(ganesh_lemma_c1)},
      {"ganesh-lemma-i2", "Ganesh, Thakurta & Upadhyay 2022 (arXiv:2204.01585) Lemma I.2", P, "", true,
       langevin_paper(ganesh_lemma_i2)},
      {"composition-gaussian", "Mironov 2017 (arXiv:1702.07476) Prop. 1 and 7", P, "", true,
       accountant(composition_gaussian), true, /*takes_changing_rates=*/true, /*takes_groups=*/false,
       /*takes_zero_out=*/true},
      {"composition-sgm", "Mironov, Talwar, Zhang 2019 (arXiv:1908.10530) Sec. 3; Mironov 2017 Prop. 1", P, "", true,
       accountant(composition_sgm), true, /*takes_changing_rates=*/true, /*takes_groups=*/false,
       /*takes_zero_out=*/true},
      pld_profile(
          {"composition-pld",
           "privacy loss distributions of the run's dominating pairs (Koskela, Jälkö & Honkela 2020, "
           "arXiv:1906.03049; Zhu, Dong & Wang 2022, arXiv:2106.08567), connect-the-dots discretisation (Doroshenko "
           "et al. 2022, arXiv:2207.04380), FFT composition, certified (docs/pld.md)",
           P, "", false, profile_accountant(composition_pld), true, /*takes_changing_rates=*/true,
           /*takes_groups=*/false, /*takes_zero_out=*/true}),
      pld_profile(
          {"ganesh-group-pld",
           "Ganesh 2024 (arXiv:2401.10294): a user's k Poisson-sampled records, the mixture sum_j Bin(j; k, q) N(j/z, "
           "1) against N(0, 1) per step and the reverse, composed by the certified PLD accountant",
           P,
           "the paper's statement could not be read here (only its abstract): the pair is the one "
           "tensorflow/privacy's user-level statement builds with dp_accounting's MixtureOfGaussiansDpEvent; "
           "docs/analyses.md, \"Users: group privacy\"",
           false, profile_accountant(ganesh_group_pld), true, /*takes_changing_rates=*/true, /*takes_groups=*/true,
           /*takes_zero_out=*/true}),
      pld_profile(
          {"poisson-as-if",
           "the run's fixed-size or shuffled batches accounted as if Poisson-sampled with q = b/n, as opacus and "
           "dp_accounting account them: composition-pld of that run (Poisson-subsampled Gaussian, Mironov, Talwar & "
           "Zhang 2019, arXiv:1908.10530)",
           H,
           "not a bound for the run's batches: shuffled batches can be much less private than Poisson ones (Chua et "
           "al. 2024, arXiv:2403.17673; chua-shuffle-lower shows by how much at least); docs/analyses.md, "
           "\"poisson-as-if\"",
           false, profile_accountant(poisson_as_if), true, /*takes_changing_rates=*/false, /*takes_groups=*/false,
           /*takes_zero_out=*/true}),
      pld_profile({"chua-shuffle-lower",
                   "Chua, Ghazi, Kamath, Kumar, Manurangsi, Sinha & Zhang 2024 (arXiv:2403.17673): the largest batch "
                   "sum of each shuffled epoch for a pair of linear-loss datasets, composed over the epochs (Chua et "
                   "al. 2024b, arXiv:2411.04205)",
                   RL,
                   "a lower bound with every iterate released, not of the last iterate; the paper's body could not be "
                   "read here: the pair and test follow the authors' code (google-research "
                   "dpsgd_batch_sampler_accounting, commit 4c42994) and are derived again in docs/analyses.md, "
                   "\"chua-shuffle-lower, poisson-as-if\"",
                   false, released_lower_bound(chua_shuffle_lower), true, /*takes_changing_rates=*/false,
                   /*takes_groups=*/false, /*takes_zero_out=*/true}),
      {"steinke-last-iterate",
       "Steinke et al. 2025 (arXiv:2410.06186), the last-iterate heuristic: the Binomial(T, q) mixture of Gaussians "
       "against a Gaussian, exact for linear losses",
       H,
       "not a bound for general losses (the paper's Sec. 4.3 gives counterexamples); exact for algorithm.loss = "
       "\"linear\"; docs/analyses.md, \"steinke-last-iterate\"",
       false, accountant(steinke_last_iterate)},
      {"bok-su-altschuler-full-batch",
       "Bok, Su & Altschuler 2024 (arXiv:2403.00278) Sec. 4, NoisyGD, strongly convex (shifted interpolation)", P, "",
       true, gdp_paper(bok_su_altschuler_full_batch)},
      {"bok-su-altschuler-cyclic",
       "Bok, Su & Altschuler 2024 (arXiv:2403.00278) Sec. 4, NoisyCGD, strongly convex (Thm 4.5 as cited by third "
       "parties; formula of the authors' scripts plot_table_ncgd_fdp.py, table_privacy_lr.py)",
       P, "", true, gdp_paper(bok_su_altschuler_cyclic)},
      pld_profile(
          {"noisysgd-window",
           "derived from Bok, Su & Altschuler 2024 (arXiv:2403.00278), shifted interpolation: NoisySGD with batches "
           "drawn at every step (b of n, or Poisson), strongly convex smooth losses, replace-one; a window of the "
           "last K steps composed as PLDs, the earlier steps' shift averaged over its law",
           D,
           "docs/derivations/noisysgd_window.md (Theorem A; Poisson: section 1.4), reviewed in docs/analyses.md, "
           "\"noisysgd-window\"; the paper's own NoisySGD theorem could not be read here, so this is not its formula",
           false, paper_profile(noisysgd_window), /*monotone_in_steps=*/false}),
      {"gdp-composition", "Dong, Roth & Su 2022 (arXiv:1905.02383) Thm 2.7, Cor 3.3 (Gaussian-DP composition)", P, "",
       true, gdp_spec(gdp_composition)},
      {"exact",
       "this tool: the exact trade-off G_mu of the two Gaussian last iterates (quadratic loss; Dong, Roth & Su 2022, "
       "arXiv:1905.02383, Cor 2.13)",
       E, "docs/analyses.md, \"exact\"; models/quadratic_exact.hpp", true,
       gdp_spec(quadratic_exact_profile, /*margin_per_dimension=*/true), /*monotone_in_steps=*/false},
      {"pdi",
       "this tool: the PDI of C21 (arXiv:2102.05855) eq. (13) solved for the configured run; on partition and "
       "shuffle-once batches also, per placement, shifted Renyi divergences (Altschuler & Talwar 2022, "
       "arXiv:2205.13710, Prop. 2.17) and their Gaussian-DP form (Bok, Su & Altschuler 2024, arXiv:2403.00278)",
       D, "docs/analyses.md, \"pdi\"; docs/math.md section 2", false, pdi_analysis, /*monotone_in_steps=*/false},
  };
}

}  // namespace

std::string status_note_of(const Analysis& analysis, const AnalysisResult& result) {
  const std::string& note = result.status_here ? result.status_note_here : analysis.status_note;
  if (!result.fft_round_off_assumed) return note;
  return note.empty() ? std::string(kFftRoundOffLabel) : note + "; " + kFftRoundOffLabel;
}

std::string status_note_of(const Analysis& analysis) {
  if (!analysis.composes_by_fft) return analysis.status_note;
  return analysis.status_note.empty() ? std::string(kFftRoundOffLabel)
                                      : analysis.status_note + "; " + kFftRoundOffLabel;
}

const char* status_name(AnalysisStatus status) {
  switch (status) {
    case AnalysisStatus::Published:
      return "published";
    case AnalysisStatus::Derived:
      return "derived";
    case AnalysisStatus::Disputed:
      return "disputed";
    case AnalysisStatus::Exact:
      return "exact";
    case AnalysisStatus::LowerBound:
      return "lower-bound";
    case AnalysisStatus::RecordSpecific:
      return "record-specific";
    case AnalysisStatus::Heuristic:
      return "heuristic";
    case AnalysisStatus::ReleasedLowerBound:
      return "released-lower-bound";
  }
  return "unknown";
}

const char* status_meaning(AnalysisStatus status) {
  switch (status) {
    case AnalysisStatus::Published:
      return "a paper's result, reproduced as printed";
    case AnalysisStatus::Derived:
      return "this project's own result, derived step by step in docs/analyses.md";
    case AnalysisStatus::Disputed:
      return "published with a known or suspected gap in its proof; never best unless included";
    case AnalysisStatus::Exact:
      return "the run's exact privacy from its two known last-iterate laws: no valid bound is below it; never best "
             "(best is the tightest analysis)";
    case AnalysisStatus::LowerBound:
      return "a lower bound on the run's exact privacy, not an upper bound: every valid bound is at or above it; "
             "never best, never calibrated";
    case AnalysisStatus::RecordSpecific:
      return "a bound for only the records its note names (e.g. the first batch), not for every record: not a "
             "bound on the run's privacy; never best, never calibrated";
    case AnalysisStatus::Heuristic:
      return "a principled heuristic, exact only in the special case its note names (e.g. a linear loss, where it "
             "is reported as exact): not a bound for general losses; never best, never calibrated";
    case AnalysisStatus::ReleasedLowerBound:
      return "a lower bound on the run's privacy with every iterate released (the composition entries' and the "
             "DP-SGD accountants' setting): every composition bound is at or above it; the last iterate alone may "
             "be more private; never best, never calibrated";
  }
  return "";
}

namespace {

/// The phase of a run that sets its own sampling rate, if one does.
const Phase* phase_with_own_rate(const RunSpec& spec) {
  for (const Phase& phase : spec.algorithm.phases)
    if (phase.sampling_rate) return &phase;
  return nullptr;
}

/// The gate of every entry that takes one rate (Analysis::takes_changing_rates false).
std::vector<Analysis> with_rate_gates(std::vector<Analysis> entries) {
  for (Analysis& a : entries) {
    if (a.takes_changing_rates) continue;
    a.assess = [inner = std::move(a.assess)](const AnalysisInput& in, std::span<const double> orders) {
      if (const Phase* p = phase_with_own_rate(in.config.spec))
        return refused("takes one sampling rate for the whole run; " + p->origin + " sets its own (" + p->origin +
                       ".sampling_rate = " + format_number(*p->sampling_rate) +
                       "): composition-gaussian, composition-sgm and composition-pld compose such runs phase by phase");
      return inner(in, orders);
    };
  }
  return entries;
}

/// Zero-out neighbours: only the entries that account them (Analysis::takes_zero_out) see such a run.
std::vector<Analysis> with_zero_out_gate(std::vector<Analysis> entries) {
  std::string takers;
  for (const Analysis& a : entries)
    if (a.takes_zero_out) takers += (takers.empty() ? "" : ", ") + a.name;
  for (Analysis& a : entries) {
    if (a.takes_zero_out) continue;
    a.assess = [inner = std::move(a.assess), takers](const AnalysisInput& in, std::span<const double> orders) {
      if (in.run.adjacency == Adjacency::ZeroOut)
        return refused("stated for replace or add/remove neighbours; zero-out neighbours are accounted by " + takers);
      return inner(in, orders);
    };
  }
  return entries;
}

/// Users of several records (records_per_user = k > 1): every entry that does not take groups itself
/// is evaluated for one record and made user-level (analyses/group_privacy.hpp); a lower bound or a
/// bound for some records only has no user-level form here and refuses.
std::vector<Analysis> with_group_privacy(std::vector<Analysis> entries) {
  for (Analysis& a : entries) {
    if (a.takes_groups) continue;
    const bool bounds = bounds_the_run(a.status) || a.status == AnalysisStatus::Heuristic;
    const bool exact = a.status == AnalysisStatus::Exact;
    a.assess = [inner = std::move(a.assess), bounds, exact](const AnalysisInput& in, std::span<const double> orders) {
      const std::int64_t k = in.run.records_per_user;
      if (k <= 1) return inner(in, orders);
      if (!bounds)
        return refused("records_per_user = " + std::to_string(k) +
                       ": a lower bound for one record; group privacy turns upper bounds only into user-level ones");
      AnalysisResult record = inner(in, orders);
      if (!record.applies) return record;
      // R where Mironov's Prop. 2 reads it, 2^c max(alpha, 2): the entry evaluated there too (where it
      // cannot be, e.g. orders beyond an expansion's reach, R is looked up among the recorded orders).
      const std::vector<double> stretched = stretched_orders(k, orders);
      const AnalysisResult at_stretched = inner(in, stretched);
      AnalysisResult user = user_level(std::move(record), k, orders, at_stretched.applies ? &at_stretched.R : nullptr);
      if (user.status_here == AnalysisStatus::Exact || (!user.status_here && exact)) {
        // An exact record-level value made user-level by group privacy is a bound, not the exact value.
        user.status_here = AnalysisStatus::Derived;
        user.status_note_here = "the exact record-level value made user-level by group privacy (an upper bound)";
      }
      return user;
    };
  }
  return entries;
}

}  // namespace

const std::vector<Analysis>& analysis_registry() {
  static const std::vector<Analysis> registry =
      with_group_privacy(with_zero_out_gate(with_rate_gates(build_registry())));
  return registry;
}

const Analysis* find_analysis(std::string_view name) {
  for (const auto& a : analysis_registry())
    if (a.name == name) return &a;
  return nullptr;
}

std::string analysis_names() {
  std::string out;
  for (const auto& a : analysis_registry()) out += (out.empty() ? "" : ", ") + a.name;
  return out;
}

std::string unknown_analysis_rule(std::string_view name, bool best_allowed) {
  std::vector<std::string> names;
  if (best_allowed) names.emplace_back("best");
  for (const auto& a : analysis_registry()) names.push_back(a.name);
  const std::string near = closest_name(name, names);
  return std::string(best_allowed ? "must be \"best\" or one of " : "must be one of ") + analysis_names() +
         (near.empty() ? "" : " (did you mean \"" + near + "\"?)");
}

}  // namespace rdpdyn

// Runs from and to the other libraries (docs/config.md, "Runs from other libraries"): an opacus
// history and a dp_accounting DpEvent of each supported kind give the epsilons of the equivalent
// TOML run; unsupported events are refused by name; export-dp-event round-trips.
#include <catch2/catch.hpp>

#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "commands/accounting_run.hpp"
#include "commands/compare.hpp"
#include "io/config.hpp"
#include "io/dp_event_json.hpp"
#include "numerics/spec_error.hpp"
#include "solver/engine_registry.hpp"

using namespace rdpdyn;

namespace {

std::map<std::string, double> epsilons(const RunConfig& config) {
  std::map<std::string, double> out;
  for (const auto& e : run_comparison(config, engine_registry(MPI_COMM_SELF)).entries)
    if (e.result.applies) out[e.result.name] = e.epsilon;
  return out;
}

std::map<std::string, double> epsilons_of_event(const nlohmann::json& event) {
  return epsilons(parse_config_text(accounting_run_toml(accounting_run_from_dp_event(event), "a test"), "<event>"));
}

nlohmann::json gaussian(double m) {
  return {{"module_name", "dp_accounting.dp_event"}, {"class_name", "GaussianDpEvent"}, {"noise_multiplier", m}};
}
nlohmann::json poisson(double q, nlohmann::json inner) {
  return {{"class_name", "PoissonSampledDpEvent"}, {"sampling_probability", q}, {"event", std::move(inner)}};
}
nlohmann::json without_replacement(std::int64_t n, std::int64_t m, nlohmann::json inner) {
  return {{"class_name", "SampledWithoutReplacementDpEvent"},
          {"source_dataset_size", n},
          {"sample_size", m},
          {"event", std::move(inner)}};
}
nlohmann::json self_composed(nlohmann::json inner, std::int64_t count) {
  return {{"class_name", "SelfComposedDpEvent"}, {"event", std::move(inner)}, {"count", count}};
}

// examples/dpsgd_accounting.toml's run with opacus' default orders: q = 0.01, z = 1.1, 10^4 steps, add/remove.
std::string dpsgd_text(const std::string& steps_lines) {
  std::string orders;
  for (int x = 1; x < 100; ++x) orders += std::to_string(1.0 + x / 10.0) + ", ";
  for (int a = 12; a < 64; ++a) orders += std::to_string(a) + (a < 63 ? ", " : "");
  return "[orders]\nvalues = [" + orders + "]\n[algorithm]\nkind = \"noisy-sgd\"\nsampling = \"poisson\"\nn = 60000\n" +
         steps_lines + "[domain]\nadjacency = \"add-remove\"\n[report]\ndelta = 1e-5\n";
}

}  // namespace

TEST_CASE("A DpEvent of each supported kind gives the epsilons of the same TOML run", "[dp-event]") {
  const auto toml = epsilons(
      parse_config_text(dpsgd_text("sampling_rate = 0.01\nnoise_multiplier = 1.1\nsteps = 10000\n"), "<toml>"));
  // SelfComposed(PoissonSampled(Gaussian)).
  const auto self = epsilons_of_event(self_composed(poisson(0.01, gaussian(1.1)), 10000));
  // Composed of two self-composed halves: the same run.
  const auto halves = epsilons_of_event({{"class_name", "ComposedDpEvent"},
                                         {"events",
                                          {self_composed(poisson(0.01, gaussian(1.1)), 4000),
                                           {{"class_name", "NoOpDpEvent"}},
                                           self_composed(poisson(0.01, gaussian(1.1)), 6000)}}});
  for (const char* name : {"composition-sgm", "composition-pld", "composition-gaussian"}) {
    INFO(name);
    REQUIRE(toml.count(name));
    CHECK(self.at(name) == Approx(toml.at(name)).epsilon(1e-12));
    CHECK(halves.at(name) == Approx(toml.at(name)).epsilon(1e-12));
  }
  // dp_accounting b5b0286 (0.6.0), PLDAccountant(value_discretization_interval = 1e-4) on this event
  // (ADD_OR_REMOVE_ONE): get_epsilon(1e-5) = 5.192620123006306 (run here with Debian's numpy/scipy).
  CHECK(self.at("composition-pld") == Approx(5.192620123006306).epsilon(5e-3));
  // The floor (the equalities above are between routes of this code): the record at +C against no
  // record, the others at 0, is the remove pair 0.99 N(0) + 0.01 N(1/1.1) against N(0) at each of the
  // 10^4 steps; its epsilon at 1e-5 is at least 5.1591775 (certified lower bracket,
  // tests/soundness/floors/values.py, "poisson_add_remove_m1.1_10000").
  for (const char* name : {"composition-sgm", "composition-pld", "composition-gaussian"}) {
    INFO(name);
    CHECK(toml.at(name) >= 5.1591775);
  }
  // Gaussian steps alone (q = 1): ten of multiplier 2 compose to mu = sqrt(10) / 2, whose exact GDP
  // profile composition-pld reports; the TOML run with sampling_rate = 1 is the same.
  const auto plain = epsilons_of_event(self_composed(gaussian(2.0), 10));
  const auto plain_toml =
      epsilons(parse_config_text(dpsgd_text("sampling_rate = 1.0\nnoise_multiplier = 2.0\nsteps = 10\n"), "<toml>"));
  CHECK(plain.at("composition-pld") == Approx(plain_toml.at("composition-pld")).epsilon(1e-12));
  CHECK(plain.at("composition-gaussian") == Approx(plain_toml.at("composition-gaussian")).epsilon(1e-12));
}

TEST_CASE("An opacus history gives the epsilons of the same TOML run", "[dp-event]") {
  const auto history = epsilons(parse_config_text(
      accounting_run_toml(accounting_run_from_opacus_history(nlohmann::json::parse("[[1.1, 0.01, 4000], [1.1, 0.01, "
                                                                                   "6000]]")),
                          "a test"),
      "<history>"));
  const auto toml = epsilons(
      parse_config_text(dpsgd_text("sampling_rate = 0.01\nnoise_multiplier = 1.1\nsteps = 10000\n"), "<toml>"));
  for (const char* name : {"composition-sgm", "composition-pld", "gdp-composition"}) {
    INFO(name);
    CHECK(history.at(name) == Approx(toml.at(name)).epsilon(1e-12));  // consistency (one run read two ways)
    CHECK(history.at(name) >= 5.1591775);  // the floor of the test above ("poisson_add_remove_m1.1_10000")
  }
}

TEST_CASE("Unsupported DpEvents and histories are refused by name", "[dp-event]") {
  const auto key_of = [](const auto& f) {
    try {
      f();
    } catch (const SpecError& e) {
      return e.key() + " | " + e.value();
    }
    return std::string("(accepted)");
  };
  CHECK(key_of([] {
          accounting_run_from_dp_event({{"class_name", "LaplaceDpEvent"}, {"parameter", 1.0}});
        }) == "DpEvent.class_name | \"LaplaceDpEvent\"");
  // Batches without replacement (replace-one) together with Poisson steps (add/remove): two relations.
  CHECK(key_of([] {
          accounting_run_from_dp_event(
              {{"class_name", "ComposedDpEvent"},
               {"events", {without_replacement(100, 10, gaussian(1.0)), poisson(0.1, gaussian(1.0))}}});
        }) == "DpEvent | sampled-without-replacement events with other steps");
  CHECK(key_of([] { accounting_run_from_dp_event(without_replacement(10, 11, gaussian(1.0))); }) ==
        "DpEvent.sample_size | 11");
  // One Poisson sample for several Gaussian queries is not a DP-SGD step.
  CHECK(key_of([] { accounting_run_from_dp_event(poisson(0.1, self_composed(gaussian(1.0), 3))); }) ==
        "DpEvent.event.class_name | SelfComposedDpEvent");
  CHECK(key_of([] { accounting_run_from_opacus_history(nlohmann::json::parse("[[1.1, 1.5, 10]]")); }) ==
        "history[0][1] | 1.5");
}

TEST_CASE("export-dp-event: the run's phases as a DpEvent, and back", "[dp-event]") {
  const RunConfig doubling = parse_config_text(
      dpsgd_text("batch_size = 600\nnoise_multiplier = 1.1\n[[algorithm.schedule]]\nsteps = 500\n[[algorithm."
                 "schedule]]\nsteps = 500\nbatch_size = 1200\n"),
      "<toml>");
  const AccountingRun run = accounting_run_of(doubling);
  REQUIRE(run.phases.size() == 2);
  CHECK(run.phases[0].sampling_rate == 0.01);
  CHECK(run.phases[1].sampling_rate == 0.02);
  CHECK(run.phases[1].noise_multiplier == Approx(1.1).epsilon(1e-15));
  const nlohmann::json event = dp_event_json(run);
  CHECK(event.at("class_name") == "ComposedDpEvent");
  CHECK(event.at("events")[1].at("event").at("sampling_probability") == 0.02);
  const auto back = epsilons_of_event(event);
  const auto direct = epsilons(doubling);
  CHECK(back.at("composition-pld") == Approx(direct.at("composition-pld")).epsilon(1e-9));
  CHECK(back.at("composition-sgm") == Approx(direct.at("composition-sgm")).epsilon(1e-9));
  // What the form cannot hold is refused by key.
  const RunConfig shuffled =
      parse_config_text(dpsgd_text("sampling = \"shuffle\"\nbatch_size = 600\nnoise_multiplier = 1.1\nsteps = 100\n")
                            .replace(dpsgd_text("").find("sampling = \"poisson\"\n"), 21, ""),
                        "<toml>");
  CHECK_THROWS_AS(accounting_run_of(shuffled), SpecError);
}

TEST_CASE("A DpEvent mixing unsampled Gaussian steps and Poisson steps, both adjacencies", "[dp-event]") {
  // Review of this change: a phase of rate 1 among sampled ones ended in an internal error under
  // replace-one (the batch sizes' law of q = 1); it is now the Gaussian pair it is.
  const nlohmann::json event = {
      {"class_name", "ComposedDpEvent"},
      {"events", {self_composed(gaussian(5.0), 10), self_composed(poisson(0.01, gaussian(1.1)), 1000)}}};
  const std::string text = accounting_run_toml(accounting_run_from_dp_event(event), "a test");
  const auto add_remove = epsilons(parse_config_text(text, "<event>"));
  const auto replace =
      epsilons(parse_config_text(text, "<event>", {"domain.adjacency=\"replace\"", "domain.lipschitz_loss=true"}));
  // dp_accounting b5b0286 (0.6.0), PLDAccountant(relation, value_discretization_interval = 1e-4) on
  // this event, get_epsilon(1e-5), run here: ADD_OR_REMOVE_ONE 3.0721776417995654, REPLACE_ONE
  // 6.501981084645505 (its replace-one pair is the antipodal one, so per-record norms <= S_g/2 here).
  CHECK(add_remove.at("composition-pld") == Approx(3.0721776417995654).epsilon(5e-3));
  CHECK(replace.at("composition-pld") == Approx(6.501981084645505).epsilon(5e-3));
  CHECK(add_remove.at("composition-pld") >= 3.0721776417995654 * (1 - 1e-4));
  CHECK(replace.at("composition-pld") >= 6.501981084645505 * (1 - 1e-4));
  // Without the norm bound replace-one still applies (the batch-size-revealed pairs, derived here). Its
  // floor is a concrete pair's, not another route of this code: S_g = 2C bounds only the gradients'
  // difference, so the record's gradient may be 2C against 0 with the others at 0: the Poisson remove
  // pair 0.99 N(0) + 0.01 N(2/1.1) against N(0) at every sampled step. Its 1000 steps alone (the ten
  // Gaussian steps dropped: a post-processing) have epsilon at least 9.8083187 at 1e-5 (certified lower
  // bracket, tests/soundness/floors/values.py, "poisson_replace_m1.1_1000").
  const auto revealed = epsilons(parse_config_text(text, "<event>", {"domain.adjacency=\"replace\""}));
  CHECK(revealed.at("composition-pld") >= 9.8083187);
  // Consistency check (not a floor): above the norm-bounded (antipodal) value of the same run.
  CHECK(revealed.at("composition-pld") > replace.at("composition-pld"));
}

TEST_CASE("A sampled-without-replacement DpEvent: the per-step run under replace-one, and back", "[dp-event]") {
  // SelfComposed(SampledWithoutReplacement(50000, 500, Gaussian(0.8)), 1000): dp_accounting's
  // Gaussian(0.8) under REPLACE_ONE is noise std 0.8 times the replace-one sensitivity, i.e. the run
  // of b = 500 of n = 50000 drawn afresh at every step with DP-SGD multiplier 1.6 (noise std 1.6 C,
  // neighbours' clipped gradients 2C apart).
  const nlohmann::json event = self_composed(without_replacement(50000, 500, gaussian(0.8)), 1000);
  const AccountingRun run = accounting_run_from_dp_event(event);
  REQUIRE(run.phases.size() == 1);
  CHECK_FALSE(run.add_remove);
  CHECK(run.phases[0].noise_multiplier == 1.6);
  const auto from_event = epsilons_of_event(event);
  std::string orders;
  for (int x = 1; x < 100; ++x) orders += std::to_string(1.0 + x / 10.0) + ", ";
  for (int a = 12; a < 64; ++a) orders += std::to_string(a) + (a < 63 ? ", " : "");
  const RunConfig toml = parse_config_text(
      "[orders]\nvalues = [" + orders +
          "]\n[algorithm]\nkind = \"noisy-sgd\"\nsampling = \"per-step\"\nn = 50000\nbatch_size = 500\n"
          "noise_multiplier = 1.6\nsteps = 1000\n[domain]\nadjacency = \"replace\"\n[report]\ndelta = 1e-5\n",
      "<toml>");
  const auto direct = epsilons(toml);
  REQUIRE(from_event.count("composition-pld"));
  // Consistency checks (the event and the TOML run are one run read two ways; not floors):
  CHECK(from_event.at("composition-pld") == direct.at("composition-pld"));
  CHECK(from_event.at("composition-gaussian") == direct.at("composition-gaussian"));
  // dp_accounting b5b0286 (0.6.0): RdpAccountant(REPLACE_ONE) on this event, get_epsilon(1e-5) =
  // 5.356566637489464 (order 4; Wang, Balle & Kasiviswanathan 2019, arXiv:1808.00087, Thm 27), run
  // here. The PLD of the subsampled pair (Dong, Roth & Su's C_q) is below that RDP bound.
  INFO("composition-pld " << from_event.at("composition-pld"));
  CHECK(from_event.at("composition-pld") < 5.356566637489464);
  // The floor (it used to be half the RDP bound, no floor at all): the datasets with the others at -C
  // and the record at +C against -C (shift 2C, mu = 1.25 noise std) give the remove pair 0.99 N(0) +
  // 0.01 N(1.25) against N(0) at each of the 1000 steps (swapped, the add pair); epsilon at 1e-5 at
  // least 3.1392567 (certified lower bracket, tests/soundness/floors/values.py,
  // "replace_per_step_m1.6_1000"). C_q composes the worse of the two directions at every step, which
  // no single pair of datasets does, so it is not claimed tight over 1000 steps: a floor only.
  CHECK(from_event.at("composition-pld") >= 3.1392567);
  // Back to a DpEvent: the same event.
  const nlohmann::json back = dp_event_json(accounting_run_of(toml));
  CHECK(back.at("class_name") == "SelfComposedDpEvent");
  CHECK(back.at("count") == 1000);
  CHECK(back.at("event").at("class_name") == "SampledWithoutReplacementDpEvent");
  CHECK(back.at("event").at("source_dataset_size") == 50000);
  CHECK(back.at("event").at("sample_size") == 500);
  CHECK(back.at("event").at("event").at("noise_multiplier") == Approx(0.8).epsilon(1e-15));
  // Per-step batches under add/remove are refused by key (dp_accounting accounts them under replace-one only).
  CHECK_THROWS_AS(accounting_run_of(parse_config_text(
                      "[algorithm]\nkind = \"noisy-sgd\"\nsampling = \"per-step\"\nn = 600\nbatch_size = 6\n"
                      "noise_multiplier = 2.2\nsteps = 10\n[domain]\nadjacency = \"add-remove\"\n",
                      "<toml>")),
                  SpecError);
}

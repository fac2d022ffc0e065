// The analysis registry (analyses/registry.cpp): stable unique names, a citation for each, a
// status with its note, and the status A&T (B.2) carries on a sampled and on a full-batch run.
#include <catch2/catch.hpp>
#include <set>

#include "analyses/analysis.hpp"
#include "models/privacy_model.hpp"
#include "solver/characteristics_engine.hpp"

using namespace rdpdyn;

TEST_CASE("Registry: unique names, citations, statuses with notes", "[registry]") {
  std::set<std::string> names;
  for (const Analysis& a : analysis_registry()) {
    INFO(a.name);
    CHECK(names.insert(a.name).second);
    CHECK(find_analysis(a.name) == &a);
    CHECK((a.citation.find("arXiv:") != std::string::npos));                   // papers are cited by arXiv id
    if (a.status != AnalysisStatus::Published) CHECK(!a.status_note.empty());  // where the gap / derivation is
    CHECK(a.assess);
  }
  CHECK(find_analysis("no-such") == nullptr);
  CHECK(analysis_names().find("pdi") != std::string::npos);
}

namespace {

/// Projected noisy SGD of A&T's plateau setting (A&T arXiv:2205.13710, App. B), batch b of n = 1000.
RunConfig plateau(std::int64_t batch) {
  RunConfig c;
  RunSpec& s = c.spec;
  s.algorithm.kind = batch < 1000 ? AlgorithmKind::NoisySgd : AlgorithmKind::NoisyGd;
  s.algorithm.sampling = batch < 1000 ? BatchSampling::PerStep : BatchSampling::FullBatch;
  s.algorithm.batch_size = batch;
  s.algorithm.n = 1000;
  s.algorithm.sensitivity = 2.0;
  s.algorithm.phases = {Phase::of(2000, 0.05, 0.158113883)};
  s.lsi = LsiSpec::recursion(0.0, 4.0);
  s.diameter = 0.1;
  s.gradients_norm_bounded = true;
  s.orders = {2.0, 4.0};
  return c;
}

AnalysisResult assess(const RunConfig& c, const std::string& name, const EngineRegistry& engines) {
  const TrainingRun run = training_run_of(c.spec);
  return find_analysis(name)->assess({c, run, engines}, c.spec.orders);
}

}  // namespace

TEST_CASE("Registry: A&T (B.2) is disputed with sampled batches and published at b = n", "[registry]") {
  EngineRegistry engines;
  engines.add(make_characteristics_engine());
  const Analysis& b2 = *find_analysis("altschuler-talwar-b2");
  CHECK(b2.status == AnalysisStatus::Disputed);
  const AnalysisResult sampled = assess(plateau(100), b2.name, engines);
  REQUIRE(sampled.applies);
  CHECK(b2.status_of(sampled) == AnalysisStatus::Disputed);
  const AnalysisResult full = assess(plateau(1000), b2.name, engines);
  REQUIRE(full.applies);
  CHECK(b2.status_of(full) == AnalysisStatus::Published);
  CHECK(!full.status_note_here.empty());
}

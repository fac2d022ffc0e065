// Every example in a blink (issue 35): `compare` and `solve` of every file of examples/, in process
// (Google Benchmark), as the command and the Python module run them after reading the file.
//   build/rdpdyn_bench_examples                       (the README's table: CPU time per call)
//   build/rdpdyn_bench_examples --budget 1.0          (the slow-tier test: exit 1 when the least of
//                                                      three calls takes more than 1 s of CPU, naming it)
// A file a command refuses (a sweep file, an accounting-only run given to `solve`) is not a case.
// The time is the process's CPU time per call (both threads of an add/remove PLD count), the
// configuration read once outside the loop; the command line adds its start (about 0.06 s).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "commands/compare.hpp"
#include "commands/solve.hpp"
#include "io/config.hpp"
#include "numerics/spec_error.hpp"
#include "solver/engine_registry.hpp"
#include "solver/petsc_session.hpp"

namespace {

using namespace rdpdyn;

PetscSession& petsc() {
  static PetscSession session("rdpdyn_bench_examples", {});
  return session;
}

std::vector<std::filesystem::path> example_files() {
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(RDPDYN_SOURCE_DIR "/examples"))
    if (e.path().extension() == ".toml") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  return files;
}

/// Whether `solve` takes the file (an accounting-only run is refused: bad input by design, not a
/// case to time); `compare` takes every file the reader takes.
bool solve_accepts(const RunConfig& config) {
  try {
    (void)solve_run(config, engines_for(config.engine, petsc()));
    return true;
  } catch (const SpecError&) {
    return false;
  }
}

void register_cases() {
  for (const auto& path : example_files()) {
    RunConfig config;
    try {
      config = load_config(path.string());
    } catch (const SpecError&) {
      continue;  // a [sweep] file: `rdpdyn sweep` reads it (bench_sweep.cpp)
    }
    for (const bool compare : {true, false}) {
      if (!compare && !solve_accepts(config)) continue;
      const std::string name = std::string(compare ? "compare/" : "solve/") + path.stem().string();
      benchmark::RegisterBenchmark(name.c_str(),
                                   [config, compare](benchmark::State& state) {
                                     const EngineRegistry engines = engines_for(config.engine, petsc());
                                     for (auto _ : state) {
                                       if (compare)
                                         benchmark::DoNotOptimize(run_comparison(config, engines));
                                       else
                                         benchmark::DoNotOptimize(solve_run(config, engines));
                                     }
                                   })
          ->MeasureProcessCPUTime()
          ->Unit(benchmark::kMillisecond);
    }
  }
}

/// --budget SECONDS: three calls of each case, exit 1 if the least CPU time of any case is above
/// it. The least of three: a machine's load only ever adds time, and the first call also pays
/// one-time set-up (tables, FFT plans) that a user's second call does not.
class BudgetReporter : public benchmark::ConsoleReporter {
 public:
  explicit BudgetReporter(double budget) : budget_(budget) {}
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& r : runs) {
      if (r.error_occurred) {
        std::fprintf(stderr, "failed: %s: %s\n", r.benchmark_name().c_str(), r.error_message.c_str());
        failed_ = true;
        continue;
      }
      if (r.run_type != Run::RT_Iteration) continue;
      const double seconds = r.GetAdjustedCPUTime() / 1e3;  // the unit is ms
      auto [it, fresh] = least_.emplace(r.run_name.str(), seconds);
      if (!fresh) it->second = std::min(it->second, seconds);
    }
  }
  /// Names every case over budget on stderr.
  bool over() const {
    bool over = failed_;
    for (const auto& [name, seconds] : least_) {
      if (seconds <= budget_) continue;
      std::fprintf(stderr, "over budget: %s took at least %.3f s of CPU in three calls (budget %.3f s)\n", name.c_str(),
                   seconds, budget_);
      over = true;
    }
    return over;
  }

 private:
  double budget_;
  bool failed_ = false;
  std::map<std::string, double> least_;
};

}  // namespace

int main(int argc, char** argv) {
  double budget = 0.0;
  std::vector<char*> args;
  for (int i = 0; i < argc; ++i) {
    if (std::strcmp(argv[i], "--budget") == 0 && i + 1 < argc) {
      budget = std::atof(argv[++i]);
      continue;
    }
    args.push_back(argv[i]);
  }
  // the budget check: one iteration per repetition, three repetitions
  std::string once = "--benchmark_min_time=0", thrice = "--benchmark_repetitions=3";
  if (budget > 0.0) {
    args.push_back(once.data());
    args.push_back(thrice.data());
  }
  int count = static_cast<int>(args.size());
  benchmark::Initialize(&count, args.data());
  register_cases();
  if (budget > 0.0) {
    BudgetReporter reporter(budget);
    benchmark::RunSpecifiedBenchmarks(&reporter);
    benchmark::Shutdown();
    return reporter.over() ? 1 : 0;
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

// The memory estimate of a run (models/run_limits.hpp): its parts computed by hand, and the
// refusal naming the estimate and the key.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <string>

#include "dynamics/privacy_program.hpp"
#include "models/run_limits.hpp"
#include "numerics/spec_error.hpp"
#include "solver/characteristics_engine.hpp"

using namespace rdpdyn;

namespace {

const double kPhase = sizeof(ProgramPhase) + sizeof(std::int64_t);
const std::unique_ptr<Engine> kCharacteristics = make_characteristics_engine();

/// A partition noisy-SGD run: n = 100, b = 10 (10 batch positions), 1000 steps, 4 orders.
RunConfig partition_run() {
  RunConfig c;
  RunSpec& s = c.spec;
  s.orders = {2, 4, 8, 16};
  s.algorithm.kind = AlgorithmKind::NoisySgd;
  s.algorithm.sampling = BatchSampling::Partition;
  s.algorithm.n = 100;
  s.algorithm.batch_size = 10;
  s.algorithm.sensitivity = 1.0;
  s.algorithm.phases = {Phase::of(1000, 0.1, 1.0)};
  s.lsi = LsiSpec::constant(1.0);
  return c;
}

double part(const MemoryEstimate& e, const std::string& key) {
  double bytes = 0.0;
  for (const auto& t : e.terms)
    if (t.key == key) bytes += t.bytes;
  return bytes;
}

}  // namespace

TEST_CASE("Memory estimate of the noisy-SGD worst case: every position's records for solve, two for compare",
          "[run_limits]") {
  const RunConfig c = partition_run();
  const MemoryEstimate solve = estimate_run_memory(c, *kCharacteristics, RunCommand::Solve);
  // Working rows: 4 orders x 32 x 8 B.
  CHECK(part(solve, "orders") == 4 * 32 * 8);
  // One program at a time: 2 ceil(1000 / 10) + 2 = 202 phases.
  CHECK(part(solve, "algorithm.steps") == 202 * kPhase);
  // 10 positions + their maximum, 1001 records (record_every = 1), each 4 x 8 B + 24 B.
  CHECK(part(solve, "output.record_every") == 11.0 * 1001 * (4 * 8 + 24));
  CHECK(solve.bytes() == 4 * 32 * 8 + 202 * kPhase + 11.0 * 1001 * 56);
  CHECK(solve.largest().key == "output.record_every");

  // compare keeps the final row only: records = 2.
  const MemoryEstimate compare = estimate_run_memory(c, *kCharacteristics, RunCommand::Compare);
  CHECK(part(compare, "algorithm.batch_size") == 11.0 * 2 * 56);

  // record_every = 100: records 0, 100, ..., 1000 (11), bounded by 2 + 1000/100 = 12.
  RunConfig sparse = c;
  sparse.spec.record.every = 100;
  CHECK(part(estimate_run_memory(sparse, *kCharacteristics, RunCommand::Solve), "output.record_every") ==
        11.0 * 12 * 56);

  // calibrate --for steps plans for --max-steps: 2 ceil(10^6 / 10) + 2 phases.
  const MemoryEstimate calibrate =
      estimate_run_memory(c, *kCharacteristics, RunCommand::Calibrate, std::int64_t{1000000});
  CHECK(part(calibrate, "--max-steps") == 200002 * kPhase);
}

TEST_CASE("Memory estimate of a sweep's surfaces", "[run_limits]") {
  // 1000 points, 10 orders, 2 analyses: per point 2 x (12 x 8 + 2 strings) + delta, flag, reason, cost.
  const double per_point = 2 * (12 * 8 + 2 * sizeof(std::string)) + 8 + 1 + sizeof(std::string) + 8;
  CHECK(estimate_sweep_memory(1000, 10, 2, 1).bytes() == 1000 * per_point);
  CHECK(estimate_sweep_memory(1000, 10, 2, 4).bytes() == 2 * 1000 * per_point);  // rank 0 gathers
}

TEST_CASE("A run over the budget is refused naming the estimate, its largest part and the key", "[run_limits]") {
  RunConfig c = partition_run();
  c.spec.orders.assign(4096, 2.0);
  c.spec.algorithm.phases = {Phase::of(std::int64_t{1} << 36, 0.1, 1.0)};
  const MemoryEstimate e = estimate_run_memory(c, *kCharacteristics, RunCommand::Solve);
  try {
    require_memory_fits(e, {24.0 * (1 << 30), "this machine's physical memory"});
    FAIL("accepted");
  } catch (const SpecError& err) {
    CHECK(err.key() == "output.record_every");
    CHECK(err.value() == "1");
    CHECK_THAT(err.rule(), Catch::Contains("the run would keep an estimated " + format_bytes(e.bytes())) &&
                               Catch::Contains("4096 orders x 68719476737 records x 8 B") &&
                               Catch::Contains("more than this machine's physical memory (24 GiB)") &&
                               Catch::Contains("raise output.record_every"));
  }
  CHECK_NOTHROW(
      require_memory_fits(estimate_run_memory(partition_run(), *kCharacteristics, RunCommand::Solve), {1e9, "test"}));
}

TEST_CASE("Bytes for people, and the budget from RDPDYN_MEMORY_LIMIT", "[run_limits]") {
  CHECK(format_bytes(512) == "512 B");
  CHECK(format_bytes(1536) == "1.5 KiB");
  CHECK(format_bytes(3.2 * 1099511627776.0) == "3.2 TiB");
  CHECK(memory_budget().bytes > 0.0);
  setenv("RDPDYN_MEMORY_LIMIT", "8G", 1);
  CHECK(memory_budget().bytes == 8.0 * (1 << 30));
  CHECK(memory_budget().source == "RDPDYN_MEMORY_LIMIT");
  setenv("RDPDYN_MEMORY_LIMIT", "1.5 MiB", 1);
  CHECK(memory_budget().bytes == 1.5 * (1 << 20));
  setenv("RDPDYN_MEMORY_LIMIT", "lots", 1);
  CHECK_THROWS_AS(memory_budget(), SpecError);
  unsetenv("RDPDYN_MEMORY_LIMIT");
}

TEST_CASE("The size of solve's HDF5 file: records x (rows x orders x 8 B + step, t, c)", "[run_limits]") {
  RunSpec spec;
  spec.orders = {2, 4, 8};
  spec.algorithm.phases = {Phase::of(100, 0.1, 1.0)};
  spec.record.every = 10;
  // Records 0, 10, ..., 100: at most 2 + 100/10 = 12; 5 rows (R, 4 closed forms) of 3 orders.
  const MemoryTerm file = estimate_solve_output(spec, 5);
  CHECK(file.bytes == 12 * (5 * 3 * 8 + 24));
  CHECK(file.key == "output.record_every");
  CHECK(file.value == "10");
  CHECK(file.what == "12 records x 5 rows x 3 orders x 8 B");
}

#pragma once
// Whether a run fits in memory, decided before it starts: the bytes it will keep, estimated from
// its configuration, against the memory of the machine (docs/config.md, "Memory estimate"). A run
// that cannot fit is refused with exit 2, naming the estimate and the key to change, instead of
// allocating for minutes and being killed.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "models/run_config.hpp"
#include "solver/engine.hpp"  // MemoryTerm (solver/engine_request.hpp), the engine's own terms

namespace rdpdyn {

/// What the command does with the run: `solve` streams its records to the sinks and keeps rows
/// only where the engine does (the noisy-SGD worst case); `compare`, `calibrate` and each point
/// of `sweep` solve for the final row.
enum class RunCommand { Solve, Compare, Calibrate };

struct MemoryEstimate {
  std::vector<MemoryTerm> terms;
  double bytes() const;
  /// The largest term (the one the refusal names); requires a term.
  const MemoryTerm& largest() const;
};

/// The memory the run will keep at its peak (the terms that grow with its sizes; fixed costs
/// of the program and libraries are not counted). `steps` replaces the run's steps (calibrate
/// --for steps plans for --max-steps).
MemoryEstimate estimate_run_memory(const RunConfig& config, const Engine& engine, RunCommand command,
                                   std::optional<std::int64_t> steps = std::nullopt);

/// The memory of a sweep's surfaces: every process keeps points x analyses x (orders + 2) values
/// and per point its reasons; under MPI rank 0 also receives the other ranks' values.
MemoryEstimate estimate_sweep_memory(std::size_t points, std::size_t orders, std::size_t analyses, int ranks);

/// The HDF5 file `solve -o` writes, at least: every record's step, time, LSI constant and
/// `rows_per_record` rows of one value per order (/R, the engine's extras, the closed forms).
/// The records are step 0, the multiples of output.record_every, output.record_steps and the last
/// step. Streamed to disk, so not part of the memory estimate; checked against the free space.
MemoryTerm estimate_solve_output(const RunSpec& spec, std::size_t rows_per_record);

/// The memory a run may use and where that figure comes from.
struct MemoryBudget {
  double bytes = 0.0;
  std::string source;  ///< e.g. "this machine's physical memory", "RDPDYN_MEMORY_LIMIT"
};

/// RDPDYN_MEMORY_LIMIT when set (bytes, or a number with a suffix K, M, G or T, powers of 1024),
/// else the smaller of the physical memory (sysconf) and the cgroup's memory.max. SpecError for
/// an unreadable RDPDYN_MEMORY_LIMIT.
MemoryBudget memory_budget();

/// SpecError(key, value, rule) naming the estimate, its largest part and the key to change when
/// the estimate exceeds the budget; nothing otherwise.
void require_memory_fits(const MemoryEstimate& estimate, const MemoryBudget& budget);

/// Bytes for people: "3.2 TiB", "512 MiB", "40 B".
std::string format_bytes(double bytes);

}  // namespace rdpdyn

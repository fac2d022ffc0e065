#include "models/run_limits.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <unistd.h>

#include "dynamics/privacy_program.hpp"
#include "models/engine_request_of.hpp"
#include "models/privacy_model.hpp"
#include "numerics/spec_error.hpp"

namespace rdpdyn {
namespace {

constexpr double kValue = sizeof(double);
/// A kept record besides its values: its step, time and LSI constant (dynamics/solution.hpp).
constexpr double kRecordHeader = sizeof(std::int64_t) + 2 * sizeof(double);
/// Rows of one value per order alive at once in any run: the engine's row and its outward-rounded
/// copy, the final row, the closed forms (up to 9), the per-order outputs, epsilon's work.
constexpr double kWorkingRows = 32;
/// A phase of a privacy program (dynamics/privacy_program.hpp): the step and its end index.
constexpr double kPhaseBytes = sizeof(ProgramPhase) + sizeof(std::int64_t);

std::string count(double x) { return format_count(x); }

/// Records of a solve of `steps` steps under `plan`, at most: step 0, the multiples of `every`,
/// the listed steps and the last step.
double records_kept(double steps, const RecordPlan& plan) {
  if (steps <= 0.0) return 1.0;
  const double every = plan.every > 0 ? std::floor(steps / static_cast<double>(plan.every)) : 0.0;
  return std::min(steps + 1.0, 2.0 + every + static_cast<double>(plan.steps.size()));
}

/// The key that sets how many records a solve keeps, and its value.
std::pair<std::string, std::string> record_key(const RecordPlan& plan) {
  if (plan.every > 0) return {"output.record_every", std::to_string(plan.every)};
  return {"output.record_steps", std::to_string(plan.steps.size()) + " steps"};
}

void add(MemoryEstimate& e, double bytes, std::string what, std::string key, std::string value, std::string advice) {
  if (bytes > 0.0) e.terms.push_back({bytes, std::move(what), std::move(key), std::move(value), std::move(advice)});
}

/// "1e+12" as a byte count from the environment: digits, an optional fraction, a suffix K/M/G/T
/// (powers of 1024, "KiB", "GB" read alike) or none.
std::optional<double> parse_byte_count(const std::string& text) {
  char* end = nullptr;
  const double x = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || !(x > 0.0) || !std::isfinite(x)) return std::nullopt;
  std::string suffix(end);
  suffix.erase(std::remove(suffix.begin(), suffix.end(), ' '), suffix.end());
  if (suffix.empty() || suffix == "B") return x;
  const std::string units = "KMGT";
  const auto at = units.find(static_cast<char>(std::toupper(static_cast<unsigned char>(suffix[0]))));
  const std::string rest = suffix.substr(1);
  if (at == std::string::npos || !(rest.empty() || rest == "B" || rest == "iB")) return std::nullopt;
  return x * std::pow(1024.0, static_cast<double>(at + 1));
}

/// The cgroup's memory limit (v2 memory.max, else v1 memory.limit_in_bytes), if there is one.
std::optional<double> cgroup_limit() {
  for (const char* path : {"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"}) {
    std::ifstream in(path);
    std::string text;
    if (!(in >> text) || text == "max") continue;
    char* end = nullptr;
    const double x = std::strtod(text.c_str(), &end);
    if (end != text.c_str() && x > 0.0) return x;
  }
  return std::nullopt;
}

}  // namespace

double MemoryEstimate::bytes() const {
  double total = 0.0;
  for (const auto& t : terms) total += t.bytes;
  return total;
}

const MemoryTerm& MemoryEstimate::largest() const {
  return *std::max_element(terms.begin(), terms.end(), [](const auto& a, const auto& b) { return a.bytes < b.bytes; });
}

MemoryEstimate estimate_run_memory(const RunConfig& config, const Engine& engine, RunCommand command,
                                   std::optional<std::int64_t> steps) {
  const RunSpec& spec = config.spec;
  const AlgorithmSpec& a = spec.algorithm;
  const double orders = static_cast<double>(spec.orders.size());
  const double K = static_cast<double>(steps.value_or(spec.total_steps()));
  const std::string steps_key = steps ? "--max-steps"
                                : a.kind == AlgorithmKind::Langevin || a.kind == AlgorithmKind::Pdi
                                    ? "algorithm.intervals"
                                    : "algorithm.steps";
  const std::string steps_value = std::to_string(steps.value_or(spec.total_steps()));
  const std::string fewer_orders = "lower the number of orders (orders.count or orders.values)";
  MemoryEstimate e;
  add(e, orders * kWorkingRows * kValue, count(orders) + " orders x 32 working rows x 8 B", "orders",
      count(orders) + " orders", fewer_orders);

  // Only a run the PDI can solve builds a program; compare and calibrate skip the pdi entry otherwise.
  if (!missing_pdi_constants(spec).empty()) return e;
  const double configured_phases = static_cast<double>(std::max<std::size_t>(a.phases.size(), 1));
  const double event_phases = 2.0 * static_cast<double>(spec.events.size());  // isolate() splits a phase in up to 3
  const double record_bytes = orders * kValue + kRecordHeader;
  const bool solve = command == RunCommand::Solve;

  if (a.kind == AlgorithmKind::NoisySgd) {
    const bool positions = a.sampling == BatchSampling::Partition || a.sampling == BatchSampling::ShuffleOnce ||
                           a.sampling == BatchSampling::Shuffle;
    const double P = positions ? std::floor(a.n / static_cast<double>(a.batch_size)) : 1.0;
    const double per_program = positions ? configured_phases * (2.0 * std::ceil(K / P) + 2.0) + event_phases
                                         : configured_phases + event_phases;
    const std::string positions_text = "n/b = " + count(P) + " batch positions";
    if (a.sampling == BatchSampling::Shuffle) {
      // Every position's program is alive at once; one record per epoch.
      add(e, P * per_program * kPhaseBytes,
          count(P) + " programs (" + positions_text + ") x " + count(per_program) + " phases x " + count(kPhaseBytes) +
              " B",
          steps_key, steps_value, "lower " + steps_key + " or raise algorithm.batch_size");
      const double epochs = std::ceil(K / P) + 1.0;
      add(e, epochs * record_bytes, count(orders) + " orders x " + count(epochs) + " epoch records x 8 B", steps_key,
          steps_value, "lower " + steps_key + " or " + fewer_orders);
    } else {
      add(e, per_program * kPhaseBytes, count(per_program) + " program phases x " + count(kPhaseBytes) + " B",
          steps_key, steps_value, "lower " + steps_key);
      // Partition and shuffle-once keep every position's records, and their pointwise maximum.
      const double solutions = positions ? P + 1.0 : 1.0;
      const double records = solve ? records_kept(K, spec.record) : 2.0;
      const std::string what =
          (positions ? count(solutions) + " solutions (" + positions_text + ", and their maximum) x " : std::string()) +
          count(orders) + " orders x " + count(records) + " records x 8 B";
      if (solve) {
        const auto [key, value] = record_key(spec.record);
        add(e, solutions * records * record_bytes, what, key, value,
            "raise output.record_every (the noisy-sgd worst case keeps every record" +
                std::string(positions ? " of each batch position" : "") + ") or " + fewer_orders);
      } else {
        add(e, solutions * records * record_bytes, what, positions ? "algorithm.batch_size" : "orders",
            positions ? std::to_string(a.batch_size) : count(orders) + " orders",
            positions ? "raise algorithm.batch_size (fewer batch positions) or " + fewer_orders : fewer_orders);
      }
    }
    return e;
  }

  // Noisy GD and Langevin: one program of the configured phases, records streamed to the sinks.
  double phases = configured_phases + event_phases;
  if (spec.lsi.kind == LsiKind::ExactQuadratic) phases += K;  // one phase per step
  add(e, phases * kPhaseBytes, count(phases) + " program phases x " + count(kPhaseBytes) + " B",
      spec.lsi.kind == LsiKind::ExactQuadratic ? steps_key : "algorithm.schedule",
      spec.lsi.kind == LsiKind::ExactQuadratic ? steps_value : count(configured_phases) + " phases",
      spec.lsi.kind == LsiKind::ExactQuadratic ? "lower " + steps_key : "use fewer phases and events");
  if (spec.quadratic) {
    // The Gaussian laws of every step (models/quadratic_exact.cpp, step_laws): the exact LSI
    // schedule, and compare's exact divergence.
    const double d = static_cast<double>(spec.quadratic->hessian.size());
    const double copies = (spec.lsi.kind == LsiKind::ExactQuadratic ? 1.0 : 0.0) + (solve ? 0.0 : 1.0);
    add(e, copies * (K + 1.0) * 2.0 * d * d * kValue,
        count(copies) + " x " + count(K + 1.0) + " step laws x 2 matrices of " + count(d) + " x " + count(d) + " x 8 B",
        steps_key, steps_value, "lower " + steps_key + " or the dimension of quadratic.hessian");
  }
  // The engine's own working set (the finite-difference grid and its optimal-gamma history).
  EngineRequest request = engine_request_of(config);
  request.steps = K;
  request.steps_key = steps_key;
  request.steps_value = steps_value;
  for (MemoryTerm& t : engine.memory_terms(request))
    add(e, t.bytes, std::move(t.what), std::move(t.key), std::move(t.value), std::move(t.advice));
  return e;
}

MemoryTerm estimate_solve_output(const RunSpec& spec, std::size_t rows_per_record) {
  const double orders = static_cast<double>(spec.orders.size()), rows = static_cast<double>(rows_per_record);
  const double records = records_kept(static_cast<double>(spec.total_steps()), spec.record);
  const auto [key, value] = record_key(spec.record);
  return {records * (rows * orders * kValue + kRecordHeader),
          count(records) + " records x " + count(rows) + " rows x " + count(orders) + " orders x 8 B", key, value,
          "raise output.record_every, lower the number of orders, or leave out -o (the summary needs no file)"};
}

MemoryEstimate estimate_sweep_memory(std::size_t points, std::size_t orders, std::size_t analyses, int ranks) {
  const double P = static_cast<double>(points), K = static_cast<double>(orders), A = static_cast<double>(analyses);
  // Per point and analysis: R, epsilon, best order, a reason and the chosen analysis ("best").
  const double per_point = A * ((K + 2.0) * kValue + 2.0 * sizeof(std::string)) +
                           // its delta, the computed flag, the invalid reason, the cost for balancing
                           kValue + 1.0 + sizeof(std::string) + kValue;
  const double copies = ranks > 1 ? 2.0 : 1.0;  // rank 0 also receives the others' packed values
  MemoryEstimate e;
  add(e, copies * P * per_point,
      count(copies) + " x " + count(P) + " points x " + count(A) + " analyses x (" + count(K) + " orders + 2) x 8 B",
      "sweep.axis", count(P) + " points", "split the sweep or lower the number of orders");
  return e;
}

MemoryBudget memory_budget() {
  if (const char* env = std::getenv("RDPDYN_MEMORY_LIMIT"); env && *env) {
    const auto bytes = parse_byte_count(env);
    if (!bytes)
      throw SpecError("RDPDYN_MEMORY_LIMIT", "\"" + std::string(env) + "\"",
                      "must be a number of bytes > 0, optionally with a suffix K, M, G or T (powers of 1024), e.g. 8G");
    return {*bytes, "RDPDYN_MEMORY_LIMIT"};
  }
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  MemoryBudget b{pages > 0 && page > 0 ? static_cast<double>(pages) * static_cast<double>(page) : 0.0,
                 "this machine's physical memory"};
  if (const auto cgroup = cgroup_limit(); cgroup && (b.bytes == 0.0 || *cgroup < b.bytes))
    b = {*cgroup, "this process's cgroup memory limit"};
  return b;
}

void require_memory_fits(const MemoryEstimate& estimate, const MemoryBudget& budget) {
  if (estimate.terms.empty() || !(budget.bytes > 0.0) || estimate.bytes() <= budget.bytes) return;
  const MemoryTerm& t = estimate.largest();
  const std::string part = estimate.terms.size() > 1 ? "; " + format_bytes(t.bytes) + " of it for " : " for ";
  throw SpecError(t.key, t.value,
                  "the run would keep an estimated " + format_bytes(estimate.bytes()) + " in memory" + part + t.what +
                      ", more than " + budget.source + " (" + format_bytes(budget.bytes) + "); " + t.advice +
                      " (docs/config.md, Memory estimate)");
}

std::string format_bytes(double bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB", "ZiB", "YiB"};
  std::size_t u = 0;
  while (bytes >= 1024.0 && u + 1 < std::size(units)) bytes /= 1024.0, ++u;
  char text[48];
  std::snprintf(text, sizeof text, u == 0 ? "%.0f %s" : "%.3g %s", bytes, units[u]);
  return text;
}

}  // namespace rdpdyn

#pragma once
// A configuration file with a [sweep] table (docs/config.md, "[sweep]"): the sweep it asks for and
// the configuration of each of its points, the file with the point's values set on the axes' keys.
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "commands/sweep.hpp"
#include "models/run_config.hpp"

namespace rdpdyn {

class SweepConfiguration {
 public:
  /// Parses the file, applies `overrides` (--set) and reads [sweep]; SpecError (exit 2) when the
  /// TOML, the orders, the analyses or the axes are invalid. The points are checked one by one.
  static SweepConfiguration parse(const std::string& text, const std::string& source_name,
                                  const std::vector<std::string>& overrides = {});
  static SweepConfiguration load(const std::filesystem::path& path, const std::vector<std::string>& overrides = {});
  ~SweepConfiguration();
  SweepConfiguration(SweepConfiguration&&) noexcept;
  SweepConfiguration& operator=(SweepConfiguration&&) noexcept;

  const SweepSpec& spec() const;
  /// The orders of every point (the last dimension of R).
  const std::vector<double>& orders() const;
  /// The effective configuration text (the file, then the overrides as a comment block).
  const std::string& text() const;
  const std::string& source_name() const;

  /// The configuration of the point with these axis values, checked by the rules of `solve`.
  RunConfig point(std::span<const double> axis_values) const;
  /// Estimated cost of a point for balancing ranks: (steps + 1) x orders, times 64 for the
  /// finite-difference engine, plus a fixed per-point overhead.
  double estimated_cost(std::span<const double> axis_values) const;

 private:
  struct State;
  explicit SweepConfiguration(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

/// Values of `range = { start, stop, count, scale }`: count values from start to stop (both
/// exact), equally spaced ("linear") or equally spaced in log ("log", start and stop > 0).
std::vector<double> sweep_range(double start, double stop, std::int64_t count, bool log_scale);

}  // namespace rdpdyn

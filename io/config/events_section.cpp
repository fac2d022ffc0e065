#include <algorithm>
#include <string>

#include "io/config/section_rules.hpp"
#include "io/config/sections.hpp"
#include "models/size_limits.hpp"

namespace rdpdyn::config_reader {

std::vector<ScheduledEvent> parse_events(const Section& root, const RunSpec& spec) {
  check_list_size(root, "events", limits::kMaxEvents, "each event splits a phase of the privacy program");
  std::vector<ScheduledEvent> out;
  for (const Section& e : root.tables("events")) {
    const std::string kind = one_of(e, "kind", {"gaussian-release", "lipschitz", "lsi-restart"});
    ScheduledEvent ev;
    ev.origin = e.path();
    // A pdi run places its events by time (kind = "pdi" section above); the others by step.
    const bool by_time = spec.algorithm.kind == AlgorithmKind::Pdi;
    const std::string when = by_time ? "time" : "after_step";
    ev.after_step = by_time ? pdi_event_step(e, spec.algorithm) : non_negative_integer(e, "after_step");
    if (kind == "gaussian-release") {
      e.allow_only({"kind", when, "sensitivity", "noise_std"});
      ev.event = GaussianRelease{non_negative(e, "sensitivity"), positive(e, "noise_std")};
    } else if (kind == "lipschitz") {
      e.allow_only({"kind", when, "lipschitz"});
      ev.event = LipschitzMap{non_negative(e, "lipschitz")};
    } else {
      e.allow_only({"kind", when, "c"});
      ev.event = LsiRestart{positive(e, "c")};
    }
    out.push_back(ev);
  }
  // The rules against the rest of the run (steps, LSI model): models/run_validation.cpp.
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.after_step < b.after_step; });
  return out;
}

}  // namespace rdpdyn::config_reader

#include <algorithm>
#include <cmath>
#include <string>

#include "io/config/section_rules.hpp"
#include "io/config/sections.hpp"
#include "models/size_limits.hpp"
#include "numerics/format_number.hpp"
#include "numerics/spec_error.hpp"

namespace rdpdyn::config_reader {
void parse_domain(const Section& d, RunSpec& spec) {
  d.allow_only({"diameter", "adjacency", "lipschitz_loss", "records_per_user"});
  if (d.has("lipschitz_loss")) spec.gradients_norm_bounded = boolean(d, "lipschitz_loss");
  if (d.has("records_per_user")) {
    spec.records_per_user = d.integer("records_per_user");
    spec.records_per_user_given = true;
    if (spec.records_per_user < 1 || spec.records_per_user > limits::kMaxRecordsPerUser)
      throw SpecError(d.key("records_per_user"), std::to_string(spec.records_per_user),
                      "must be an integer in [1, " + std::to_string(limits::kMaxRecordsPerUser) +
                          "] (the most records one user contributes)");
  }
  if (d.has("diameter")) spec.diameter = positive(d, "diameter");
  // "remove" is the older spelling of "add-remove" (one record more or less, either direction).
  if (d.has("adjacency")) {
    spec.adjacency = enum_value(d, "adjacency", kAdjacencyNames);
    spec.adjacency_given = true;
  }
}

void parse_report(const Section& r, RunSpec& spec) {
  r.allow_only({"delta", "epsilon", "include_disputed"});
  if (r.has("delta")) {
    const double delta = r.number("delta");
    if (!(delta > 0.0 && delta < 1.0)) throw SpecError(r.key("delta"), format_number(delta), "must be in (0, 1)");
    spec.report_delta = delta;
  }
  if (r.has("epsilon")) {
    const double eps = r.number("epsilon");
    if (!(eps >= 0.0) || !std::isfinite(eps))
      throw SpecError(r.key("epsilon"), format_number(eps), "must be a finite number >= 0");
    spec.report_epsilon = eps;
  }
  if (r.has("include_disputed")) spec.include_disputed = boolean(r, "include_disputed");
}

void parse_output(const Section& out, RunSpec& spec) {
  out.allow_only({"record_every", "record_steps"});
  if (out.has("record_steps")) {
    spec.record.every = 0;  // only the listed steps (and the first and last)
    const auto& list = out.at("record_steps");
    if (!list.is_array()) throw SpecError(out.key("record_steps"), "not an array", "must be an array of step numbers");
    check_list_size(out, "record_steps", limits::kMaxRecordSteps, "each listed step is a record of every output");
    for (std::size_t i = 0; i < list.as_array().size(); ++i) {
      const auto& v = list.as_array()[i];
      const std::string key = out.key("record_steps") + "[" + std::to_string(i) + "]";
      if (!v.is_integer()) throw SpecError(key, describe(v), "must be an integer");
      if (v.as_integer() < 0 || v.as_integer() > spec.total_steps())
        throw SpecError(key, std::to_string(v.as_integer()),
                        "must be in [0, " + std::to_string(spec.total_steps()) + "] (the number of steps)");
      spec.record.steps.push_back(v.as_integer());
    }
    std::sort(spec.record.steps.begin(), spec.record.steps.end());
  }
  if (out.has("record_every")) {
    spec.record.every = out.integer("record_every");
    if (spec.record.every < 1)
      throw SpecError(out.key("record_every"), std::to_string(spec.record.every), "must be >= 1");
  }
}

}  // namespace rdpdyn::config_reader

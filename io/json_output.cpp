#include "io/json_output.hpp"

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

namespace rdpdyn {
namespace {

/// JSON has no infinity: non-finite values are written as null.
nlohmann::json number_or_null(double x) { return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(); }

nlohmann::json row_json(std::span<const double> row) {
  auto out = nlohmann::json::array();
  for (double x : row) out.push_back(number_or_null(x));
  return out;
}

}  // namespace

nlohmann::json run_terms_json(const RunTerms& t) {
  if (t.adjacency.empty()) return nullptr;
  return {{"adjacency", t.adjacency},
          {"adjacency_default", t.adjacency_by_default},
          {"sampling", t.sampling},
          {"records_per_user", t.records_per_user},
          {"records_per_user_default", t.records_per_user_by_default},
          {"line", run_terms_line(t)},
          {"ecosystem_hint", t.ecosystem_hint.empty() ? nlohmann::json() : nlohmann::json(t.ecosystem_hint)}};
}

std::string report_to_json(const RunReport& report) {
  const Solution& s = report.solution;
  const std::size_t last = s.record_count() - 1;
  nlohmann::json j;
  j["orders"] = s.orders;
  j["R"] = row_json(s.final_row());
  j["t"] = s.times[last];
  j["step"] = s.steps[last];
  j["closed_forms"] = nlohmann::json::object();
  j["closed_form_roles"] = nlohmann::json::object();
  for (const auto& cf : report.closed_forms) {
    j["closed_forms"][cf.name] = row_json({cf.R.data() + last * s.orders.size(), s.orders.size()});
    j["closed_form_roles"][cf.name] = cf.role;
  }
  j["engine"] = report.metadata.engine;
  j["gamma_mode"] = report.metadata.gamma_mode;
  j["version"] = report.metadata.program_version;
  // Which constants the user vouches for and which the tool derived or checked.
  j["declared_constants"] = report.metadata.declared_constants;
  j["derived_constants"] = report.metadata.derived_constants;
  j["terms"] = run_terms_json(report.metadata.terms);
  j["quantity"] = report.metadata.quantity.empty() ? nlohmann::json() : nlohmann::json(report.metadata.quantity);
  j["units"] = {{"R", kUnitsRdp}, {"t", kUnitsTime}, {"orders", kUnitsOrder}};
  // [report] delta: epsilon at the final time and the order attaining it.
  if (const auto it = report.extra_attributes.find("epsilon"); it != report.extra_attributes.end()) {
    j["delta"] = std::stod(report.extra_attributes.at("delta"));
    j["epsilon"] = std::stod(it->second);
    j["best_order"] = std::stod(report.extra_attributes.at("best_order"));
    // The RDP -> (epsilon, delta) conversion attaining it (commands/solve.cpp).
    if (const auto c = report.extra_attributes.find("conversion"); c != report.extra_attributes.end())
      j["conversion"] = c->second;
  }
  // [report] epsilon: delta there at the final time and the order attaining it (commands/solve.cpp).
  if (const auto it = report.extra_attributes.find("delta_at_epsilon"); it != report.extra_attributes.end()) {
    j["report_epsilon"] = std::stod(report.extra_attributes.at("report_epsilon"));
    j["delta_at_epsilon"] = std::stod(it->second);
    j["delta_at_epsilon_order"] = number_or_null(std::stod(report.extra_attributes.at("delta_at_epsilon_order")));
  }
  return j.dump();
}

}  // namespace rdpdyn

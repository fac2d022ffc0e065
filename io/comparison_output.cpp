#include "io/comparison_output.hpp"

#include <H5Cpp.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

#include "io/atomic_output.hpp"
#include "io/hdf5_primitives.hpp"
#include "io/json_output.hpp"
#include "commands/run_report.hpp"
#include "numerics/format_number.hpp"
#include "rdpdyn_version.hpp"

namespace rdpdyn {
namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
}  // namespace

namespace {
nlohmann::json number_or_null(double x) { return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(); }
nlohmann::json numbers(const std::vector<double>& v) {
  auto a = nlohmann::json::array();
  for (double x : v) a.push_back(number_or_null(x));
  return a;
}

/// "profile" and "tradeoff" of an entry with curves, null otherwise.
nlohmann::json profile_json(const std::optional<pld::PrivacyCurves>& c) {
  if (!c) return nullptr;
  return {{"epsilon", numbers(c->epsilon)},
          {"delta", numbers(c->delta)},
          {"units", {{"epsilon", kUnitsProfileEpsilon}, {"delta", kUnitsProbability}}},
          {"meaning", kProfileMeaning}};
}
nlohmann::json tradeoff_json(const std::optional<pld::PrivacyCurves>& c) {
  if (!c) return nullptr;
  return {{"alpha", numbers(c->alpha)}, {"beta", numbers(c->beta)}, {"meaning", kTradeoffMeaning}};
}

/// How the summary line names the route of an epsilon without an order.
const char* orderless_route(const std::string& conversion) {
  if (conversion == "gdp") return "exact GDP profile of the worst placement";
  if (conversion == "gdp-mixture") return "Gaussian-DP profiles of the placements averaged (gdp-mixture)";
  if (conversion == "pld") return "privacy loss distribution's profile (pld)";
  if (conversion == "group") return "record-level profile made user-level by group privacy (Vadhan 2017, Lemma 2.2)";
  if (conversion == "pld-lower") return "certified lower estimate of the composed pairs' profile (pld-lower)";
  return nullptr;
}

std::string joined(const std::vector<std::string>& entries, const char* separator) {
  std::string out;
  for (const auto& e : entries) out += (out.empty() ? "" : separator) + e;
  return out;
}

/// The footer of the table: which constants the user vouches for, which the tool derived or checked.
/// A heading and its items, one an indented line (read at a glance, not one 400-character line).
std::string listed(const std::string& heading, const std::vector<std::string>& items) {
  if (items.empty()) return heading + ": none\n";
  return heading + ":\n  " + joined(items, "\n  ") + "\n";
}

std::string constants_footer(const ConstantProvenance& p) {
  return listed("declared constants (the configuration vouches for them; not checked)", p.declared) +
         listed("derived constants (computed or checked from what the run defines)", p.derived);
}
}  // namespace

std::string comparison_to_json(const Comparison& c) {
  nlohmann::json j;
  j["orders"] = c.orders;
  j["delta"] = c.delta ? nlohmann::json(*c.delta) : nlohmann::json();
  j["analyses"] = nlohmann::json::array();
  for (const auto& e : c.entries)
    j["analyses"].push_back(
        {{"name", e.result.name},
         {"status", status_name(e.status)},
         {"status_note", e.status_note},
         {"applies", e.result.applies},
         {"reason", e.result.reason},
         {"citation", e.result.citation},
         {"R", numbers(e.result.R)},
         {"mu", e.result.mu ? nlohmann::json(*e.result.mu) : nlohmann::json()},
         {"epsilon", number_or_null(e.epsilon)},
         {"best_order", number_or_null(e.best_order)},
         {"epsilon_recorded_orders", number_or_null(e.epsilon_recorded_orders)},
         {"best_recorded_order", number_or_null(e.best_recorded_order)},
         {"epsilon_orders", e.epsilon_orders.empty() ? nlohmann::json() : nlohmann::json(e.epsilon_orders)},
         {"conversion", e.conversion.empty() ? nlohmann::json() : nlohmann::json(e.conversion)},
         {"delta_at_epsilon", number_or_null(e.delta_at_epsilon)},
         {"profile", profile_json(e.curves)},
         {"tradeoff", tradeoff_json(e.curves)}});
  j["epsilon"] = c.epsilon ? nlohmann::json(*c.epsilon) : nlohmann::json();
  j["include_disputed"] = c.include_disputed;
  j["statuses"] = nlohmann::json::object();
  for (AnalysisStatus s : kAllStatuses) j["statuses"][status_name(s)] = status_meaning(s);
  j["best"] = {
      {"name", c.best_name},
      {"status", c.best_name.empty() ? nlohmann::json() : nlohmann::json(status_name(c.best_status))},
      {"R", numbers(c.best_R)},
      {"mu", c.best_mu ? nlohmann::json(*c.best_mu) : nlohmann::json()},
      {"epsilon", number_or_null(c.best_epsilon)},
      {"best_order", number_or_null(c.best_order)},
      {"conversion", c.best_conversion.empty() ? nlohmann::json() : nlohmann::json(c.best_conversion)},
      {"delta_at_epsilon", number_or_null(c.best_delta)},
      {"delta_at_epsilon_analysis", c.best_delta_name.empty() ? nlohmann::json() : nlohmann::json(c.best_delta_name)}};
  j["amplification_warning"] =
      c.amplification_warning.empty() ? nlohmann::json() : nlohmann::json(c.amplification_warning);
  if (!c.exact_R.empty()) j["exact"] = {{"name", "quadratic-exact"}, {"R", numbers(c.exact_R)}};
  j["declared_constants"] = c.constants.declared;
  j["derived_constants"] = c.constants.derived;
  j["terms"] = run_terms_json(c.terms);
  return j.dump();
}

namespace {

/// The orders the compact table shows: at most four, spread over the configured ones (the first, the
/// last and two between); every order with --wide.
std::vector<std::size_t> shown_orders(const std::vector<double>& orders, bool wide) {
  std::vector<std::size_t> idx;
  const std::size_t n = orders.size();
  if (wide || n <= 4) {
    for (std::size_t j = 0; j < n; ++j) idx.push_back(j);
    return idx;
  }
  for (std::size_t k = 0; k < 4; ++k) idx.push_back((k * (n - 1) + 1) / 3);
  idx.erase(std::unique(idx.begin(), idx.end()), idx.end());
  return idx;
}

/// A number of the table to five significant digits, rounded outward for what it is: down for a
/// lower bound, up for everything else (a rounded bound must still hold). NaN prints as "-".
std::string table_number(double x, AnalysisStatus status) {
  if (std::isnan(x)) return "-";
  const bool lower = status == AnalysisStatus::LowerBound || status == AnalysisStatus::ReleasedLowerBound;
  return lower ? format_rounded_down(x, 5) : format_rounded_up(x, 5);
}

/// Published, derived and disputed entries bound the run from above (a disputed one with a doubt);
/// exact values, lower bounds, heuristics and record-specific bounds do not.
bool upper_bound_row(AnalysisStatus s) {
  return s == AnalysisStatus::Published || s == AnalysisStatus::Derived || s == AnalysisStatus::Disputed;
}

/// Where a refused row's reason starts (after name, status and applies).
constexpr std::size_t kReasonColumn = 60;
constexpr std::size_t kLineWidth = 140;

/// `text` in lines of at most kLineWidth - column characters, broken at spaces, the continuation
/// lines indented to `column`.
std::string wrapped(const std::string& text, std::size_t column) {
  const std::size_t width = kLineWidth - column;
  std::string out, line;
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t end = text.find(' ', at);
    if (end == std::string::npos) end = text.size();
    const std::string word = text.substr(at, end - at);
    if (!line.empty() && line.size() + 1 + word.size() > width) {
      out += line + "\n" + std::string(column, ' ');
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
    at = end + 1;
  }
  return out + line;
}

}  // namespace

std::string comparison_table(const Comparison& c, bool wide, bool all) {
  // The number wanted first (epsilon, its order and conversion), then mu and a few orders' R, each
  // to five significant digits; the JSON and HDF5 outputs keep every digit and every order.
  std::ostringstream out;
  char buf[256];
  const std::vector<std::size_t> columns = shown_orders(c.orders, wide);
  std::snprintf(buf, sizeof buf, "%-30s %-20s %-7s", "analysis", "status", "applies");
  out << buf;
  if (c.delta) {
    std::snprintf(buf, sizeof buf, " %10s %8s %-11s", "epsilon", "order", "conversion");
    out << buf;
  }
  if (c.epsilon) {
    std::snprintf(buf, sizeof buf, " %11s", ("delta@" + format_number(*c.epsilon)).c_str());
    out << buf;
  }
  std::snprintf(buf, sizeof buf, " %10s", "mu");
  out << buf;
  for (std::size_t j : columns) {
    char label[32];
    std::snprintf(label, sizeof label, "R@%.4g", c.orders[j]);
    std::snprintf(buf, sizeof buf, " %10s", label);
    out << buf;
  }
  out << "\n";
  auto row = [&](const ComparisonEntry& e) {
    const bool best = e.result.applies && e.result.name == c.best_name;
    std::snprintf(buf, sizeof buf, "%-30s %-20s %-7s", (e.result.name + (best ? " *" : "")).c_str(),
                  status_name(e.status), e.result.applies ? "yes" : "no");
    out << buf;
    if (!e.result.applies) {
      out << " " << wrapped(e.result.reason, kReasonColumn) << "\n";
      return;
    }
    if (c.delta) {
      char order[32] = "-";
      if (!std::isnan(e.best_order)) std::snprintf(order, sizeof order, "%.4g", e.best_order);
      std::snprintf(buf, sizeof buf, " %10s %8s %-11s", table_number(e.epsilon, e.status).c_str(), order,
                    e.conversion.empty() ? "-" : e.conversion.c_str());
      out << buf;
    }
    if (c.epsilon) {
      std::snprintf(buf, sizeof buf, " %11s", table_number(e.delta_at_epsilon, e.status).c_str());
      out << buf;
    }
    std::snprintf(buf, sizeof buf, " %10s", e.result.mu ? table_number(*e.result.mu, e.status).c_str() : "-");
    out << buf;
    for (std::size_t j : columns) {
      std::snprintf(buf, sizeof buf, " %10s", table_number(e.result.R[j], e.status).c_str());
      out << buf;
    }
    out << "\n";
  };
  // The upper bounds on the run first, tightest first; then the exact values, lower bounds and
  // heuristics, which are not upper bounds; then the analyses that do not apply: a count, or with
  // `all` each with its reason.
  std::vector<const ComparisonEntry*> bounds, others, refused;
  for (const auto& e : c.entries) {
    if (!e.result.applies)
      refused.push_back(&e);
    else if (upper_bound_row(e.status))
      bounds.push_back(&e);
    else
      others.push_back(&e);
  }
  const auto tightest_first = [&](const ComparisonEntry* a, const ComparisonEntry* b) {
    const double x = c.delta ? a->epsilon : a->result.R.back(), y = c.delta ? b->epsilon : b->result.R.back();
    return !std::isnan(x) && (std::isnan(y) || x < y);
  };
  std::stable_sort(bounds.begin(), bounds.end(), tightest_first);
  std::stable_sort(others.begin(), others.end(), tightest_first);
  for (const auto* e : bounds) row(*e);
  if (!others.empty()) {
    out << "-- not upper bounds on the run (exact values, lower bounds, heuristics, record-specific bounds):\n";
    for (const auto* e : others) row(*e);
  }
  if (!refused.empty() && all) {
    out << "-- do not apply to this run:\n";
    for (const auto* e : refused) row(*e);
  }
  // best.R as a row of its own, under the R columns it shares.
  std::snprintf(buf, sizeof buf, "%-30s %-20s %-7s", "(best.R: eligible minimum)", "", "");
  out << buf;
  if (c.delta) out << std::string(1 + 10 + 1 + 8 + 1 + 11, ' ');
  if (c.epsilon) out << std::string(1 + 11, ' ');
  out << std::string(1 + 10, ' ');
  for (std::size_t j : columns) {
    std::snprintf(buf, sizeof buf, " %10s",
                  table_number(j < c.best_R.size() ? c.best_R[j] : kNaN, AnalysisStatus::Published).c_str());
    out << buf;
  }
  out << "\n";
  if (!wide && columns.size() < c.orders.size())
    out << "R at " << columns.size() << " of the " << c.orders.size()
        << " orders (every order: --wide, --json or -o)\n";
  if (!refused.empty() && !all)
    out << refused.size() << " of the " << c.entries.size()
        << " analyses do not apply to this run (each with its reason: --all)\n";
  const char* among = c.include_disputed ? "published, derived and disputed (included by [report] include_disputed)"
                                         : "published and derived";
  if (c.best_name.empty()) {
    // No row to name: say so, and why, instead of "epsilon nan by none".
    out << "* no valid analysis among the " << among << " applies to this run (each one's reason: --all)";
  } else {
    out << "* tightest valid analysis among the " << among;
    if (c.delta) out << " (smallest epsilon at delta = " << format_number(*c.delta) << ")";
  }
  if (!c.best_name.empty() && !c.delta) {
    // No [report] delta: the best is chosen by R at the largest order; say so, and how to get epsilon.
    std::snprintf(buf, sizeof buf, " (smallest R at alpha = %.6g): %s, R = %s; epsilon: set [report] delta",
                  c.orders.back(), c.best_name.c_str(),
                  format_rounded_up(c.best_R.empty() ? kNaN : c.best_R.back(), 5).c_str());
    out << buf;
  } else if (c.best_name.empty()) {
    // nothing to name: the line above says why
  } else if (c.best_mu) {
    std::snprintf(buf, sizeof buf, ": epsilon %s by %s, mu = %s, exact GDP conversion",
                  format_rounded_up(c.best_epsilon, 5).c_str(), c.best_name.c_str(),
                  format_rounded_up(*c.best_mu, 6).c_str());
    out << buf;
  } else if (const char* route = c.delta ? orderless_route(c.best_conversion) : nullptr) {
    // A route to epsilon besides R (pdi's Gaussian-DP per placement, the PLD accountant): no order.
    std::snprintf(buf, sizeof buf, ": epsilon %s by %s, %s", format_rounded_up(c.best_epsilon, 5).c_str(),
                  c.best_name.c_str(), route);
    out << buf;
  } else if (c.delta) {
    char at[64] = "";  // an epsilon without an order names none
    if (!std::isnan(c.best_order)) std::snprintf(at, sizeof at, " at alpha = %.6g", c.best_order);
    std::snprintf(buf, sizeof buf, ": epsilon %s by %s%s, %s conversion", format_rounded_up(c.best_epsilon, 5).c_str(),
                  c.best_name.c_str(), at, c.best_conversion.empty() ? "no" : c.best_conversion.c_str());
    out << buf;
  }
  if (c.epsilon && !c.best_delta_name.empty()) {
    std::snprintf(buf, sizeof buf, "; smallest delta at epsilon = %s: %s (%s)", format_number(*c.epsilon).c_str(),
                  format_rounded_up(c.best_delta, 5).c_str(), c.best_delta_name.c_str());
    out << buf;
  } else if (c.epsilon) {
    out << "; no delta at epsilon = " << format_number(*c.epsilon);
  }
  out << "\n";
  if (!c.amplification_warning.empty()) out << c.amplification_warning << "\n";
  if (const std::string line = run_terms_line(c.terms); !line.empty()) out << "  " << line << "\n";
  if (!c.terms.ecosystem_hint.empty()) out << "  " << c.terms.ecosystem_hint << "\n";
  if (!c.best_name.empty() && c.best_status == AnalysisStatus::Disputed)
    out << "WARNING: the tightest bound, " << c.best_name
        << ", is DISPUTED (a suspected gap in its proof; see below); "
           "without include_disputed it would not be best\n";
  // The statuses of the rows that apply, each with its meaning (every one: JSON `statuses`).
  std::vector<std::string> shown;
  for (AnalysisStatus s : kAllStatuses)
    for (const auto& e : c.entries)
      if (e.status == s && e.result.applies) {
        shown.push_back(std::string(status_name(s)) + ": " + status_meaning(s));
        break;
      }
  out << listed("status", shown);
  out << "mu: Gaussian-DP parameter of the f-DP entries (R = alpha mu^2/2; epsilon by the exact mu-GDP profile, "
         "Dong, Roth & Su 2022 Cor 2.13)\n";
  if (c.epsilon)
    out << "delta@" << format_number(*c.epsilon)
        << ": certified delta at [report] epsilon, the smallest of the entry's "
           "routes (its privacy loss distribution, the exact mu-GDP profile, the RDP conversions over the recorded "
           "orders)\n";
  for (const auto& e : c.entries)
    if (e.status == AnalysisStatus::Disputed && e.result.applies)
      out << "disputed " << e.result.name << ": " << e.status_note << "\n";
  // Applies, yet not an upper bound on the run: say why beside it; or an upper bound certified up to
  // the assumed FFT round-off bound (AnalysisResult::fft_round_off_assumed): say so.
  for (const auto& e : c.entries)
    if (e.result.applies && e.status != AnalysisStatus::Disputed &&
        (!bounds_the_run(e.status) || e.result.fft_round_off_assumed))
      out << status_name(e.status) << " " << e.result.name << ": " << e.status_note << "\n";
  if (!c.exact_R.empty()) {
    out << "exact divergence of the worst pair (quadratic loss; a lower bound of every valid analysis):";
    for (double r : c.exact_R) {
      std::snprintf(buf, sizeof buf, " %.5g", r);
      out << buf;
    }
    out << "\n";
  }
  out << constants_footer(c.constants);
  return out.str();
}

namespace {

using hdf5::number_attribute;
using hdf5::string_attribute;
using hdf5::vector_dataset;

}  // namespace

void write_comparison_hdf5(const std::filesystem::path& path, const Comparison& c, const RunConfig& config) {
  write_atomically(path, [&](const std::filesystem::path& tmp) {
    try {
      H5::Exception::dontPrint();
      H5::H5File file(tmp.string(), H5F_ACC_TRUNC);
      hdf5::common_root_attributes(file, kHdf5SchemaVersion, "compare", kVersion);
      string_attribute(file, "config", config.text);
      string_attribute(file, "config_path", config.path);
      // One entry per line, as solve writes them.
      string_attribute(file, "declared_constants", joined(c.constants.declared, "\n"));
      string_attribute(file, "derived_constants", joined(c.constants.derived, "\n"));
      string_attribute(file, "terms", run_terms_line(c.terms));
      string_attribute(file, "units_R", kUnitsRdp);
      string_attribute(file, "units_orders", kUnitsOrder);
      number_attribute(file, "delta", c.delta ? *c.delta : kNaN);
      if (c.epsilon) number_attribute(file, "epsilon", *c.epsilon);  // [report] epsilon (schema >= 4)
      string_attribute(file, "epsilon_conversion",
                       "smallest of the RDP conversions (Mironov 2017 Prop. 3; Balle et al. 2020 Thm 21 = Canonne, "
                       "Kamath, Steinke 2020 Prop. 12; Asoodeh et al. 2021; for bounds linear in alpha the zCDP route, "
                       "Bun & Steinke 2016 Prop. 1.3 and CKS 2020 Cor. 13), rounded outward, minimised over alpha in "
                       "[1.001, 10000] and /orders where the bound is known at any order (attribute epsilon_orders = "
                       "continuous), else over /orders (recorded); attribute conversion names the one attaining "
                       "epsilon; Gaussian-DP entries (attribute mu, epsilon_orders = gdp, conversion = gdp): the "
                       "exact mu-GDP profile inverted (Dong, Roth & Su 2022 Cor 2.13), rounded outward");
      // The root's one array, a dimension scale: xarray.open_dataset(file, engine="h5netcdf") opens it.
      const H5::DataSet orders = vector_dataset(file, "orders", c.orders);
      hdf5::make_scale(orders, "orders");
      // Every R has one value per order (NaN where there is none: an entry that does not apply, no
      // best), so each is a variable over the one dimension "orders" (schema >= 5).
      const auto over_orders = [&](const H5::Group& group, const std::string& name, const std::vector<double>& R) {
        if (!R.empty() && R.size() != c.orders.size())
          throw std::logic_error("compare: '" + name + "' has " + std::to_string(R.size()) + " values for " +
                                 std::to_string(c.orders.size()) + " orders");
        const H5::DataSet d = vector_dataset(group, name, R.empty() ? std::vector<double>(c.orders.size(), kNaN) : R);
        hdf5::attach_scales(d, {orders}, {"orders"});
        return d;
      };
      H5::Group analyses = file.createGroup("analyses");
      for (const auto& e : c.entries) {
        H5::DataSet d = over_orders(analyses, e.result.name, e.result.R);
        number_attribute(d, "applies", e.result.applies ? 1.0 : 0.0);
        string_attribute(d, "reason", e.result.reason);
        string_attribute(d, "status", status_name(e.status));
        string_attribute(d, "status_note", e.status_note);
        string_attribute(d, "citation", e.result.citation);
        number_attribute(d, "epsilon", e.epsilon);
        number_attribute(d, "mu", e.result.mu ? *e.result.mu : kNaN);
        number_attribute(d, "epsilon_recorded_orders", e.epsilon_recorded_orders);
        number_attribute(d, "best_recorded_order", e.best_recorded_order);
        number_attribute(d, "best_order", e.best_order);
        string_attribute(d, "epsilon_orders", e.epsilon_orders);
        string_attribute(d, "conversion", e.conversion);
        number_attribute(d, "delta_at_epsilon", e.delta_at_epsilon);  // schema >= 4
      }
      // The profiles and trade-off curves of the entries that know them (schema >= 4): a group per
      // entry, beside /analyses, whose members are one dataset per analysis.
      bool any_curves = false;
      for (const auto& e : c.entries) any_curves = any_curves || e.curves.has_value();
      if (any_curves) {
        H5::Group curves = file.createGroup("curves");
        for (const auto& e : c.entries) {
          if (!e.curves) continue;
          H5::Group g = curves.createGroup(e.result.name);
          string_attribute(g, "citation", e.result.citation);
          const auto described = [](H5::DataSet d, const char* units, const std::string& description) {
            string_attribute(d, "units", units);
            string_attribute(d, "description", description);
          };
          described(vector_dataset(g, "profile_epsilon", e.curves->epsilon), kUnitsProfileEpsilon,
                    "epsilon of the privacy profile (natural log), increasing from 0");
          described(vector_dataset(g, "profile_delta", e.curves->delta), kUnitsProbability,
                    std::string(kProfileMeaning) + " of profile_epsilon");
          described(vector_dataset(g, "tradeoff_alpha", e.curves->alpha), kUnitsProbability,
                    "type I error alpha, increasing from 0 to 1");
          described(vector_dataset(g, "tradeoff_beta", e.curves->beta), kUnitsProbability, kTradeoffMeaning);
        }
      }
      H5::Group best = file.createGroup("best");
      H5::DataSet d = over_orders(best, "R", c.best_R);
      string_attribute(d, "name", c.best_name);
      string_attribute(d, "status", c.best_name.empty() ? "" : status_name(c.best_status));
      number_attribute(d, "include_disputed", c.include_disputed ? 1.0 : 0.0);
      string_attribute(d, "description",
                       c.include_disputed ? "pointwise minimum over the valid analyses, disputed ones included"
                                          : "pointwise minimum over the valid published and derived analyses");
      number_attribute(d, "epsilon", c.best_epsilon);
      number_attribute(d, "mu", c.best_mu ? *c.best_mu : kNaN);
      number_attribute(d, "best_order", c.best_order);
      string_attribute(d, "conversion", c.best_conversion);
      number_attribute(d, "delta_at_epsilon", c.best_delta);  // schema >= 4
      string_attribute(d, "delta_at_epsilon_analysis", c.best_delta_name);
      string_attribute(file, "amplification_warning", c.amplification_warning);
    } catch (const H5::Exception& e) {
      throw std::runtime_error("HDF5 comparison '" + path.string() + "': " + e.getDetailMsg());
    }
  });
}

std::string analysis_registry_json() {
  auto j = nlohmann::json::array();
  for (const auto& a : analysis_registry())
    j.push_back({{"name", a.name},
                 {"citation", a.citation},
                 {"status", status_name(a.status)},
                 {"status_note", status_note_of(a)},
                 {"any_order", a.any_order}});
  return j.dump();
}

std::string analysis_registry_table() {
  std::ostringstream out;
  char buf[512];
  for (const auto& a : analysis_registry()) {
    std::snprintf(buf, sizeof buf, "%-28s %-15s %s\n", a.name.c_str(), status_name(a.status), a.citation.c_str());
    out << buf;
    if (const std::string note = status_note_of(a); !note.empty()) out << std::string(45, ' ') << note << "\n";
  }
  for (auto s : kAllStatuses) out << status_name(s) << ": " << status_meaning(s) << "\n";
  return out.str();
}

}  // namespace rdpdyn

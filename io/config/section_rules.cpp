#include "io/config/section_rules.hpp"

#include <set>
#include <string>
#include <vector>

#include "numerics/format_number.hpp"
#include "numerics/near_miss.hpp"
#include "numerics/spec_error.hpp"

namespace rdpdyn::config_reader {

double positive(const Section& s, const std::string& k) {
  const double x = s.number(k);
  if (!(x > 0.0)) throw SpecError(s.key(k), format_number(x), "must be > 0");
  return x;
}
double non_negative(const Section& s, const std::string& k) {
  const double x = s.number(k);
  if (!(x >= 0.0)) throw SpecError(s.key(k), format_number(x), "must be >= 0");
  return x;
}
std::int64_t non_negative_integer(const Section& s, const std::string& k) {
  const std::int64_t x = s.integer(k);
  if (x < 0) throw SpecError(s.key(k), std::to_string(x), "must be >= 0");
  return x;
}
bool boolean(const Section& s, const std::string& k) {
  const auto& v = s.at(k);
  if (!v.is_boolean()) throw SpecError(s.key(k), describe(v), "must be true or false");
  return v.as_boolean();
}
std::string one_of(const Section& s, const std::string& k, const std::set<std::string>& options,
                   const std::string& fallback) {
  if (!s.has(k) && !fallback.empty()) return fallback;
  const std::string v = s.string(k);
  if (!options.count(v)) {
    std::string list;
    for (const auto& o : options) list += (list.empty() ? "\"" : ", \"") + o + "\"";
    const std::string near = closest_name(v, std::vector<std::string>(options.begin(), options.end()));
    throw SpecError(s.key(k), "\"" + v + "\"",
                    "must be one of " + list + (near.empty() ? "" : " (did you mean \"" + near + "\"?)"));
  }
  return v;
}

/// A limit of models/size_limits.hpp as the messages print it: "65536 (2^16)".
std::string limit_text(std::int64_t limit) {
  const bool power_of_two = limit > 0 && (limit & (limit - 1)) == 0;
  int k = 0;
  while (power_of_two && (std::int64_t{1} << k) < limit) ++k;
  return std::to_string(limit) + (power_of_two ? " (2^" + std::to_string(k) + ")" : "");
}
/// A size of the configuration against its limit (docs/config.md, "Limits"): `why` says what the
/// limit protects.
void check_size(const std::string& key, const std::string& value, std::int64_t size, std::int64_t limit,
                const std::string& why) {
  if (size > limit)
    throw SpecError(key, value, "must be <= " + limit_text(limit) + ": " + why + " (docs/config.md, Limits)");
}
void check_size(const std::string& key, std::int64_t size, std::int64_t limit, const std::string& why) {
  check_size(key, std::to_string(size), size, limit, why);
}
/// The length of a list against its limit, before its entries are read.
void check_list_size(const Section& s, const std::string& k, std::int64_t limit, const std::string& why) {
  const auto& v = s.at(k);
  if (!v.is_array()) return;  // the typed reader names the type error
  const auto n = static_cast<std::int64_t>(v.as_array().size());
  check_size(s.key(k), std::to_string(n) + " entries", n, limit, why);
}

}  // namespace rdpdyn::config_reader

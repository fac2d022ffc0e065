#pragma once
// The typed rules the section readers of io/config/ share: a number's sign, a name out of a list
// (an enumeration's NameTable), a size against its limit (docs/config.md, "Limits"). Every error is
// a SpecError naming the dotted key, the value found and the rule.
#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <set>
#include <string>
#include <type_traits>

#include "io/toml_section.hpp"
#include "numerics/name_table.hpp"

namespace rdpdyn::config_reader {

double positive(const Section& s, const std::string& k);
double non_negative(const Section& s, const std::string& k);
std::int64_t non_negative_integer(const Section& s, const std::string& k);
bool boolean(const Section& s, const std::string& k);
/// The string at `k`, one of `options` (`fallback` when absent and not empty).
std::string one_of(const Section& s, const std::string& k, const std::set<std::string>& options,
                   const std::string& fallback = "");
/// The enumerator named at `k` by `table` (`fallback` when absent), but for the values `excluded`
/// from this key; the error lists every name allowed.
template <class Enum, std::size_t N>
Enum enum_value(const Section& s, const std::string& k, const NameTable<Enum, N>& table,
                std::type_identity_t<std::optional<Enum>> fallback = std::nullopt,
                std::type_identity_t<std::initializer_list<Enum>> excluded = {}) {
  if (!s.has(k) && fallback) return *fallback;
  std::set<std::string> allowed;
  for (const auto& entry : table)
    if (std::find(excluded.begin(), excluded.end(), entry.value) == excluded.end()) allowed.emplace(entry.name);
  return *value_named(table, one_of(s, k, allowed));
}

/// A limit of models/size_limits.hpp as the messages print it: "65536 (2^16)".
std::string limit_text(std::int64_t limit);
/// A size of the configuration against its limit: `why` says what the limit protects.
void check_size(const std::string& key, const std::string& value, std::int64_t size, std::int64_t limit,
                const std::string& why);
void check_size(const std::string& key, std::int64_t size, std::int64_t limit, const std::string& why);
/// The length of a list against its limit, before its entries are read.
void check_list_size(const Section& s, const std::string& k, std::int64_t limit, const std::string& why);

inline constexpr const char* kOrdersWhy =
    "the orders sample one smooth curve R(alpha), and every kept row holds one value per order";
inline constexpr const char* kStepsWhy =
    "the outward rounding margin grows with the steps (4.9e-4 relative at 2^40) and 2^40 steps already take about 18 "
    "hours";

}  // namespace rdpdyn::config_reader

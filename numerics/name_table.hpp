#pragma once
// One table of names per enumeration, read by the configuration reader (name -> value) and by every
// output that prints the value (value -> name), so the two can never disagree.
#include <array>
#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace rdpdyn {

template <class Enum>
struct NamedValue {
  Enum value;
  std::string_view name;
};

template <class Enum, std::size_t N>
using NameTable = std::array<NamedValue<Enum>, N>;

/// The name of `value`; std::logic_error (an internal error: the table misses an enumerator) otherwise.
template <class Enum, std::size_t N>
std::string name_of(const NameTable<Enum, N>& table, Enum value) {
  for (const auto& entry : table)
    if (entry.value == value) return std::string(entry.name);
  throw std::logic_error("name_of: an enumerator has no name in its table");
}

/// The value named `name`, or nullopt.
template <class Enum, std::size_t N>
std::optional<Enum> value_named(const NameTable<Enum, N>& table, std::string_view name) {
  for (const auto& entry : table)
    if (entry.name == name) return entry.value;
  return std::nullopt;
}

/// Every name of the table, in its order.
template <class Enum, std::size_t N>
std::vector<std::string> names_of(const NameTable<Enum, N>& table) {
  std::vector<std::string> out;
  for (const auto& entry : table) out.emplace_back(entry.name);
  return out;
}

}  // namespace rdpdyn

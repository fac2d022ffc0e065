#include "io/config/sections.hpp"

#include <cmath>
#include <string>
#include <vector>

#include "io/config/section_rules.hpp"
#include "models/size_limits.hpp"
#include "numerics/format_number.hpp"
#include "numerics/spec_error.hpp"

namespace rdpdyn::config_reader {

std::vector<double> parse_orders(const Section& s) {
  s.allow_only({"values", "min", "max", "count"});
  std::vector<double> orders;
  if (s.has("values")) {
    if (s.has("min") || s.has("max") || s.has("count"))
      throw SpecError(s.key("values"), "given with min/max/count", "give either values or min, max, count");
    check_list_size(s, "values", limits::kMaxOrders, kOrdersWhy);
    orders = s.numbers("values");
    if (orders.empty()) throw SpecError(s.key("values"), "[]", "must list at least one order");
    for (std::size_t i = 0; i < orders.size(); ++i) {
      if (!(orders[i] > 1.0))
        throw SpecError(s.key("values") + "[" + std::to_string(i) + "]", format_number(orders[i]),
                        "Renyi orders must be > 1");
      if (i > 0 && !(orders[i] > orders[i - 1]))
        throw SpecError(s.key("values") + "[" + std::to_string(i) + "]", format_number(orders[i]),
                        "orders must be strictly increasing");
    }
    return orders;
  }
  const double lo = s.number("min"), hi = s.number("max");
  const std::int64_t count = s.integer("count");
  if (!(lo > 1.0)) throw SpecError(s.key("min"), format_number(lo), "Renyi orders must be > 1");
  if (!(hi > lo)) throw SpecError(s.key("max"), format_number(hi), "must be > orders.min = " + format_number(lo));
  if (count < 2) throw SpecError(s.key("count"), std::to_string(count), "must be >= 2");
  check_size(s.key("count"), count, limits::kMaxOrders, kOrdersWhy);
  // Log-spaced in alpha - 1 (the characteristic variable y = ln(alpha - 1)).
  const double y0 = std::log(lo - 1.0), y1 = std::log(hi - 1.0);
  for (std::int64_t i = 0; i < count; ++i) {
    const double y = y0 + (y1 - y0) * static_cast<double>(i) / static_cast<double>(count - 1);
    orders.push_back(i == 0 ? lo : i == count - 1 ? hi : 1.0 + std::exp(y));
  }
  return orders;
}

}  // namespace rdpdyn::config_reader

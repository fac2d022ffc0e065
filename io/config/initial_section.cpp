#include <string>

#include "io/config/section_rules.hpp"
#include "io/config/sections.hpp"
#include "io/expression.hpp"
#include "models/size_limits.hpp"
#include "numerics/format_number.hpp"
#include "numerics/spec_error.hpp"

namespace rdpdyn::config_reader {

InitialCurve parse_initial(const Section& s) {
  const std::string kind = one_of(s, "kind", {"zero", "linear", "power", "table", "function"});
  if (kind == "zero") {
    s.allow_only({"kind"});
    return ZeroCurve{};
  }
  if (kind == "linear") {
    s.allow_only({"kind", "slope"});
    return LinearCurve{non_negative(s, "slope")};
  }
  if (kind == "power") {
    s.allow_only({"kind", "scale", "exponent"});
    const double e = s.number("exponent");
    if (!(e >= 0.0)) throw SpecError(s.key("exponent"), format_number(e), "must be >= 0");
    return PowerCurve{non_negative(s, "scale"), e};
  }
  if (kind == "table") {
    s.allow_only({"kind", "alpha", "R"});
    for (const char* k : {"alpha", "R"})
      check_list_size(s, k, limits::kMaxTableEntries, "a tabulated curve R(alpha), as the orders");
    TableCurve t{s.numbers("alpha"), s.numbers("R")};
    if (t.alpha.empty()) throw SpecError(s.key("alpha"), "[]", "must list at least one order");
    if (t.alpha.size() != t.values.size())
      throw SpecError(s.key("R"), std::to_string(t.values.size()) + " values",
                      "must have as many entries as initial.alpha (" + std::to_string(t.alpha.size()) + ")");
    for (std::size_t i = 0; i < t.alpha.size(); ++i) {
      const std::string ia = s.key("alpha") + "[" + std::to_string(i) + "]";
      const std::string ir = s.key("R") + "[" + std::to_string(i) + "]";
      if (!(t.alpha[i] > 1.0)) throw SpecError(ia, format_number(t.alpha[i]), "orders must be > 1");
      if (i > 0 && !(t.alpha[i] > t.alpha[i - 1]))
        throw SpecError(ia, format_number(t.alpha[i]), "orders must be strictly increasing");
      if (!(t.values[i] >= 0.0)) throw SpecError(ir, format_number(t.values[i]), "must be >= 0");
      if (i > 0 && !(t.values[i] >= t.values[i - 1]))
        throw SpecError(ir, format_number(t.values[i]),
                        "must be >= the previous value: R_alpha is non-decreasing in alpha");
    }
    return t;
  }
  s.allow_only({"kind", "R"});
  const std::string text = s.string("R");
  auto f = compile_expression(s.key("R"), text, {"alpha"});
  return FunctionCurve{[f](double a) { return f({a}); }, text};
}

}  // namespace rdpdyn::config_reader

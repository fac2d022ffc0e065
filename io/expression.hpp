#pragma once
// User-supplied formulas (LSI schedules c(s, t), initial curves R_0(alpha)), parsed by muparser.
#include <functional>
#include <string>
#include <vector>

namespace rdpdyn {

/// Compiles `expression` in the named variables (e.g. {"s", "t"}) into a callable taking the
/// variables in that order. Throws SpecError(key, expression, reason) if it does not parse or
/// uses unknown variables. The callable is safe to copy; each copy owns its parser.
std::function<double(const std::vector<double>&)> compile_expression(const std::string& key,
                                                                     const std::string& expression,
                                                                     const std::vector<std::string>& variables);

/// True when `expression` refers to the variable `name` (e.g. whether a schedule uses alpha).
bool expression_uses(const std::string& expression, const std::string& name);

}  // namespace rdpdyn

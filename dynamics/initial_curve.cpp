#include "dynamics/initial_curve.hpp"

#include "dynamics/overloaded.hpp"
#include "dynamics/rdp_interpolation.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace rdpdyn {
namespace {

double table_upper_bound(const TableCurve& table, double alpha) {
  // Below the first node the closure is the first value (monotonicity; the chord through (1, 0)
  // gives the same).
  if (alpha <= table.alpha.front()) return table.values.front();
  return rdp_upper_interpolation(table.alpha, table.values, alpha);
}

}  // namespace

double initial_rdp(const InitialCurve& curve, double alpha) {
  return std::visit(Overloaded{
                        [](const ZeroCurve&) { return 0.0; },
                        [&](const LinearCurve& c) { return c.slope * alpha; },
                        [&](const PowerCurve& c) { return c.scale * std::pow(alpha, c.exponent); },
                        [&](const TableCurve& c) { return table_upper_bound(c, alpha); },
                        [&](const FunctionCurve& c) { return c.rdp(alpha); },
                    },
                    curve);
}

bool is_linear_in_alpha(const InitialCurve& curve) {
  return std::holds_alternative<ZeroCurve>(curve) || std::holds_alternative<LinearCurve>(curve) ||
         (std::holds_alternative<PowerCurve>(curve) && std::get<PowerCurve>(curve).exponent == 1.0);
}

double linear_initial_slope(const InitialCurve& curve) {
  if (std::holds_alternative<ZeroCurve>(curve)) return 0.0;
  if (const auto* c = std::get_if<LinearCurve>(&curve)) return c->slope;
  if (const auto* c = std::get_if<PowerCurve>(&curve); c && c->exponent == 1.0) return c->scale;
  throw std::logic_error("linear_initial_slope: initial curve is not linear in alpha");
}

std::string initial_curve_kind(const InitialCurve& curve) {
  return std::visit(Overloaded{
                        [](const ZeroCurve&) { return std::string("zero"); },
                        [](const LinearCurve&) { return std::string("linear"); },
                        [](const PowerCurve&) { return std::string("power"); },
                        [](const TableCurve&) { return std::string("table"); },
                        [](const FunctionCurve&) { return std::string("function"); },
                    },
                    curve);
}

}  // namespace rdpdyn

#include "io/expression.hpp"

#include <muParser.h>

#include <algorithm>
#include <memory>

#include "numerics/spec_error.hpp"

namespace rdpdyn {
namespace {

/// One muparser instance bound to its own variable storage (muparser keeps pointers to them).
struct CompiledExpression {
  mu::Parser parser;
  std::vector<double> values;

  CompiledExpression(const std::string& expression, const std::vector<std::string>& variables)
      : values(variables.size(), 0.0) {
    for (std::size_t i = 0; i < variables.size(); ++i) parser.DefineVar(variables[i], &values[i]);
    parser.SetExpr(expression);
    values.assign(values.size(), 0.5);
    parser.Eval();  // parse now, so errors surface while reading the configuration
  }
};

}  // namespace

std::function<double(const std::vector<double>&)> compile_expression(const std::string& key,
                                                                     const std::string& expression,
                                                                     const std::vector<std::string>& variables) {
  std::shared_ptr<CompiledExpression> compiled;
  try {
    compiled = std::make_shared<CompiledExpression>(expression, variables);
  } catch (const mu::Parser::exception_type& e) {
    std::string allowed;
    for (const auto& v : variables) allowed += (allowed.empty() ? "" : ", ") + v;
    throw SpecError(key, "\"" + expression + "\"", "not a valid expression in (" + allowed + "): " + e.GetMsg());
  }
  // Copies of the callable share one parser; evaluation is sequential within a solve.
  return [compiled](const std::vector<double>& x) {
    std::copy(x.begin(), x.end(), compiled->values.begin());
    return compiled->parser.Eval();
  };
}

bool expression_uses(const std::string& expression, const std::string& name) {
  mu::Parser parser;
  parser.SetExpr(expression);
  const auto used = parser.GetUsedVar();  // collects the variables without defining them
  return used.count(name) != 0;
}

}  // namespace rdpdyn

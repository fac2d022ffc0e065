#include <cmath>
#include <string>

#include "io/config/section_rules.hpp"
#include "io/config/sections.hpp"
#include "io/expression.hpp"
#include "numerics/format_number.hpp"
#include "numerics/spec_error.hpp"

namespace rdpdyn::config_reader {

namespace {

/// [lsi] strongly-convex on a Langevin run (models/langevin_strongly_convex.hpp): lambda only. The
/// diffusion has no step size, so its LSI constant lambda/sigma^2 needs no smoothness beta.
void parse_langevin_strongly_convex(const Section& s, LsiSpec& lsi) {
  if (s.has("beta"))
    throw SpecError(s.key("beta"), describe(s.at("beta")),
                    "is not used with algorithm.kind = \"langevin\": the diffusion has no step size, so the LSI "
                    "constant lambda/sigma^2 needs no smoothness (docs/config.md); remove it");
  s.allow_only({"kind", "lambda"});
  lsi.kind = LsiKind::StronglyConvex;
  if (!s.has("lambda")) throw SpecError(s.key("lambda"), "missing", "this key is required");
  lsi.lambda = s.number("lambda");
  if (!(lsi.lambda > 0.0) || !std::isfinite(lsi.lambda))
    throw SpecError(s.key("lambda"), format_number(lsi.lambda),
                    "must be a finite number > 0 (the loss is lambda-strongly convex)");
  lsi.beta = 0.0;  // not declared
}

/// The LSI model of the ITERATES of strongly convex or smooth runs: lambda, beta (both 1 for the
/// squared loss), or the gradient map's Lipschitz constant; c0 for the recursion's start.
void parse_convexity_constants(const Section& s, LsiSpec& lsi, LossKind loss) {
  const bool rec = lsi.kind == LsiKind::Recursion;
  if (rec)
    s.allow_only({"kind", "lambda", "beta", "c0", "lipschitz"});
  else
    s.allow_only({"kind", "lambda", "beta"});
  // The squared loss |theta - x|^2/2 has lambda = beta = 1.
  const double unit = loss == LossKind::Squared ? 1.0 : NAN;
  lsi.lambda = s.has("lambda") ? s.number("lambda") : unit;
  lsi.beta = s.has("beta") ? s.number("beta") : unit;
  if (rec && s.has("lipschitz")) {
    for (const char* unused : {"lambda", "beta"})
      if (s.has(unused))
        throw SpecError(s.key(unused), describe(s.at(unused)),
                        "is not used when lsi.lipschitz is given (the gradient map's Lipschitz "
                        "constant replaces 1 - eta lambda); remove one of them");
    const double L = s.number("lipschitz");
    if (!(L >= 0.0)) throw SpecError(s.key("lipschitz"), format_number(L), "must be >= 0");
    lsi.lipschitz = L;
  } else {
    if (std::isnan(lsi.lambda)) throw SpecError(s.key("lambda"), "missing", "this key is required");
    if (std::isnan(lsi.beta)) throw SpecError(s.key("beta"), "missing", "this key is required");
  }
  if (loss == LossKind::Squared && (lsi.lambda != 1.0 || lsi.beta != 1.0))
    throw SpecError(s.key("lambda"), format_number(lsi.lambda),
                    "the squared loss has lambda = beta = 1; omit lambda and beta");
  if (rec && s.has("c0")) lsi.c0 = positive(s, "c0");
}

/// [lsi] bounded-domain: the loss's smoothness beta (>= 0) and its Hessian's lower bound lambda
/// (default -beta, smooth only; -m for an m-weakly convex loss; >= 0 for a convex one); c0 for the
/// start. The diameter comes from [domain] (checked by models/privacy_model.cpp).
void parse_bounded_domain(const Section& s, LsiSpec& lsi) {
  s.allow_only({"kind", "lambda", "beta", "c0"});
  if (!s.has("beta")) throw SpecError(s.key("beta"), "missing", "this key is required (the loss's smoothness)");
  lsi.beta = s.number("beta");
  lsi.lambda = s.has("lambda") ? s.number("lambda") : -lsi.beta;
  if (s.has("c0")) lsi.c0 = positive(s, "c0");
}

}  // namespace

void parse_lsi(const Section& s, LsiSpec& lsi, const AlgorithmSpec& algorithm) {
  lsi.kind = enum_value(s, "kind", kLsiKindNames);
  switch (lsi.kind) {  // every kind on purpose: a new one does not compile until it is read here
    case LsiKind::StronglyConvex:
      if (algorithm.kind == AlgorithmKind::Langevin) return parse_langevin_strongly_convex(s, lsi);
      return parse_convexity_constants(s, lsi, algorithm.loss);
    case LsiKind::Recursion:
      return parse_convexity_constants(s, lsi, algorithm.loss);
    case LsiKind::BoundedDomain:
      return parse_bounded_domain(s, lsi);
    case LsiKind::ExactQuadratic:
    case LsiKind::SquaredLoss:
      return s.allow_only({"kind"});
    case LsiKind::Constant:
      s.allow_only({"kind", "c"});
      lsi.c = positive(s, "c");
      return;
    case LsiKind::Function: {
      s.allow_only({"kind", "c"});
      const std::string text = s.string("c");
      auto f = compile_expression(s.key("c"), text, {"s", "t", "alpha"});
      lsi.function = FunctionLsi(
          [f](double sv, double tv, double av) {
            return f({sv, tv, av});
          },
          text, expression_uses(text, "alpha"));
      return;
    }
  }
}

}  // namespace rdpdyn::config_reader

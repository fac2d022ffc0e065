#include <Eigen/Dense>
#include <cmath>
#include <string>
#include <vector>

#include "io/config/section_rules.hpp"
#include "io/config/sections.hpp"
#include "models/size_limits.hpp"
#include "numerics/format_number.hpp"
#include "numerics/spec_error.hpp"

namespace rdpdyn::config_reader {

/// [quadratic]: the Hessian H (rows), optionally the pair difference x - x' and the standard
/// deviation s of a shared start N(mu, s^2 I). H must be symmetric positive definite; the pair
/// against the sensitivity is a rule of the run (models/run_validation.cpp).
QuadraticLoss parse_quadratic(const Section& s) {
  s.allow_only({"hessian", "pair", "initial_std"});
  QuadraticLoss q;
  const auto& rows = s.at("hessian");
  if (!rows.is_array() || rows.as_array().empty())
    throw SpecError(s.key("hessian"), describe(rows), "must be a non-empty array of rows");
  check_size(s.key("hessian"), std::to_string(rows.as_array().size()) + " rows",
             static_cast<std::int64_t>(rows.as_array().size()), limits::kMaxQuadraticDimension,
             "every step of the exact model decomposes d x d matrices (O(d^3)) and keeps two of them");
  for (std::size_t i = 0; i < rows.as_array().size(); ++i) {
    const std::string key = s.key("hessian") + "[" + std::to_string(i) + "]";
    const auto& row = rows.as_array()[i];
    if (!row.is_array()) throw SpecError(key, describe(row), "must be an array of numbers");
    std::vector<double> values;
    for (std::size_t j = 0; j < row.as_array().size(); ++j) {
      const auto& v = row.as_array()[j];
      if (!v.is_floating() && !v.is_integer())
        throw SpecError(key + "[" + std::to_string(j) + "]", describe(v), "must be a number");
      values.push_back(v.is_floating() ? v.as_floating() : static_cast<double>(v.as_integer()));
      if (!std::isfinite(values.back()))
        throw SpecError(key + "[" + std::to_string(j) + "]", describe(v), "must be finite");
    }
    q.hessian.push_back(values);
  }
  const std::size_t d = q.hessian.size();
  Eigen::MatrixXd H(static_cast<Eigen::Index>(d), static_cast<Eigen::Index>(d));
  for (std::size_t i = 0; i < d; ++i) {
    if (q.hessian[i].size() != d)
      throw SpecError(s.key("hessian") + "[" + std::to_string(i) + "]",
                      std::to_string(q.hessian[i].size()) + " entries",
                      "the Hessian must be square (" + std::to_string(d) + " x " + std::to_string(d) + ")");
    for (std::size_t j = 0; j < d; ++j) H(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) = q.hessian[i][j];
  }
  // Symmetric up to a relative 1e-12 (Eigen's isApprox, in Frobenius norms), then Cholesky.
  const Eigen::MatrixXd transposed = H.transpose();
  if (!H.isApprox(transposed, 1e-12) || H.llt().info() != Eigen::Success)
    throw SpecError(s.key("hessian"), "a " + std::to_string(d) + " x " + std::to_string(d) + " matrix",
                    "must be symmetric positive definite");
  if (s.has("pair")) {
    const std::vector<double> pair = s.numbers("pair");
    if (pair.size() != d)
      throw SpecError(s.key("pair"), std::to_string(pair.size()) + " entries",
                      "must have d = " + std::to_string(d) + " entries");
    q.pair = pair;
  }
  if (s.has("initial_std")) q.initial_std = positive(s, "initial_std");
  return q;
}

}  // namespace rdpdyn::config_reader

#pragma once
// The error raised for invalid input: names the key, the value found and the rule it breaks. It
// means one thing (exit 2, "bad input"): it is caught by its own type, never as a
// std::invalid_argument, which the numerics throw for a broken precondition (a bug: exit 1,
// "internal error"), nor as a std::runtime_error (it derives from neither, so a numerical
// route's catch of NumericalFailure, numerics/numerical_failure.hpp, cannot swallow it). "This
// analysis does not apply" is a value (AnalysisResult::applies), not an exception. Here, in the
// lowest layer, so that an engine can refuse a run by its key.
#include <exception>
#include <string>

#include "numerics/format_number.hpp"

namespace rdpdyn {

class SpecError : public std::exception {
 public:
  SpecError(std::string key, std::string value, std::string rule)
      : message_("'" + key + "' = " + value + ": " + rule),
        key_(std::move(key)),
        value_(std::move(value)),
        rule_(std::move(rule)) {}
  const char* what() const noexcept override { return message_.c_str(); }
  const std::string& key() const { return key_; }
  const std::string& value() const { return value_; }
  const std::string& rule() const { return rule_; }

 private:
  std::string message_, key_, value_, rule_;
};

}  // namespace rdpdyn

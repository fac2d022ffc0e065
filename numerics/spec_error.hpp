#pragma once
// The error raised for invalid input: names the key, the value found and the rule it breaks. It
// means one thing (exit 2, "bad input"): it is caught by its own type, never as a
// std::invalid_argument, which the numerics throw for a broken precondition (a bug: exit 1,
// "internal error"). "This analysis does not apply" is a value (AnalysisResult::applies), not an
// exception. Here, in the lowest layer, so that an engine can refuse a run by its key.
#include <stdexcept>
#include <string>

#include "numerics/format_number.hpp"

namespace rdpdyn {

class SpecError : public std::runtime_error {
 public:
  SpecError(std::string key, std::string value, std::string rule)
      : std::runtime_error("'" + key + "' = " + value + ": " + rule),
        key_(std::move(key)),
        value_(std::move(value)),
        rule_(std::move(rule)) {}
  const std::string& key() const { return key_; }
  const std::string& value() const { return value_; }
  const std::string& rule() const { return rule_; }

 private:
  std::string key_, value_, rule_;
};

}  // namespace rdpdyn

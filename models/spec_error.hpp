#pragma once
// The error raised for invalid input: names the key, the value found and the rule it breaks.
#include <stdexcept>
#include <string>

#include "numerics/format_number.hpp"

namespace rdpdyn {

class SpecError : public std::invalid_argument {
 public:
  SpecError(std::string key, std::string value, std::string rule)
      : std::invalid_argument("'" + key + "' = " + value + ": " + rule),
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

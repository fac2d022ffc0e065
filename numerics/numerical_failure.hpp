#pragma once
// The error a numerical method raises when it cannot evaluate at a valid input: a series that does
// not converge, an order beyond an expansion's reach, a cancellation that leaves no digit. It means
// one thing: "this route has no number here", so an analysis may catch it (and only it) and refuse
// with its message. Bad input is a SpecError (numerics/spec_error.hpp), a broken precondition a
// std::invalid_argument (a bug); neither is a NumericalFailure, so no such catch can swallow them.
#include <stdexcept>
#include <string>

namespace rdpdyn {

class NumericalFailure : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace rdpdyn

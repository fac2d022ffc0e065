#pragma once
// How an engine reports its progress through the steps of a program (for a progress line).
#include <cstdint>
#include <functional>

namespace rdpdyn {

/// Called now and then during a solve with (steps done, steps in the program); on the writing
/// rank only.
using StepProgress = std::function<void(std::int64_t done, std::int64_t total)>;

}  // namespace rdpdyn

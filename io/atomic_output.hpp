#pragma once
// Atomic output: write to a temporary sibling of the target, then rename it over the target.
// A failure (exception) removes the temporary, so no partial output file is ever left behind.
#include <filesystem>
#include <functional>

namespace rdpdyn {

/// Calls write(tmp) with a fresh temporary path in the target's directory, then renames tmp to
/// `target` (atomic on POSIX within one file system). Rethrows whatever write throws, after
/// removing the temporary.
void write_atomically(const std::filesystem::path& target,
                      const std::function<void(const std::filesystem::path& tmp)>& write);

}  // namespace rdpdyn

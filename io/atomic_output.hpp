#pragma once
// Atomic output: write to a temporary sibling of the target ("TARGET.tmp-PID-N"), then rename it
// over the target. A failure (exception) removes the temporary, and so does a signal handler
// (remove_temporaries), so no partial output file is left behind; only SIGKILL or a power cut can
// leave a temporary, recognisable by its name (docs/hdf5.md, "Atomic writing").
#include <filesystem>
#include <functional>

#include "models/run_limits.hpp"

namespace rdpdyn {

/// A fresh temporary path beside `target`, registered for removal on a signal until released.
std::filesystem::path reserve_temporary(const std::filesystem::path& target);
/// Ends the registration of a temporary (after it was renamed or removed).
void release_temporary(const std::filesystem::path& tmp);
/// Removes every registered temporary. Async-signal-safe (unlink on preformatted paths only):
/// for the command line's SIGINT, SIGTERM and SIGHUP handlers.
void remove_temporaries() noexcept;

/// Checks, before any work, that an output can be written at `target`: its directory exists and
/// accepts a new file (a temporary is created and removed there), and `target` is not a
/// directory. SpecError naming `option` (e.g. "-o") with the system's reason otherwise.
void check_output_path(const std::filesystem::path& target, const char* option);

/// Checks, before any work, that the file system of `target` has room for `file` (an estimate of
/// the output, models/run_limits.hpp): SpecError naming the estimate's key otherwise.
void check_output_space(const std::filesystem::path& target, const MemoryTerm& file);

/// Calls write(tmp) with a fresh temporary path in the target's directory, then renames tmp to
/// `target` (atomic on POSIX within one file system). Rethrows whatever write throws, after
/// removing the temporary.
void write_atomically(const std::filesystem::path& target,
                      const std::function<void(const std::filesystem::path& tmp)>& write);

}  // namespace rdpdyn

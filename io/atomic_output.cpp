#include "io/atomic_output.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

#include <array>
#include <atomic>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <string>
#include <system_error>

#include "numerics/spec_error.hpp"

namespace rdpdyn {
namespace {

// The live temporaries, as fixed buffers a signal handler can read: a slot is published by
// setting `used` after its path is written, and unpublished before the path is touched again.
constexpr std::size_t kSlots = 16;
constexpr std::size_t kPathBytes = 4096;
struct Slot {
  std::atomic<bool> used{false};
  char path[kPathBytes];
};
std::array<Slot, kSlots> slots;
std::mutex slots_mutex;  // between threads; the signal handler only reads published slots

}  // namespace

std::filesystem::path reserve_temporary(const std::filesystem::path& target) {
  static std::atomic<unsigned> counter{0};
  std::filesystem::path tmp = target;
  tmp += ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
  const std::string text = std::filesystem::absolute(tmp).string();
  if (text.size() >= kPathBytes) throw std::runtime_error("output path too long: " + text);
  std::lock_guard<std::mutex> lock(slots_mutex);
  for (auto& s : slots)
    if (!s.used.load()) {
      std::memcpy(s.path, text.c_str(), text.size() + 1);
      s.used.store(true);
      return tmp;
    }
  throw std::runtime_error("more than 16 outputs written at once");
}

void release_temporary(const std::filesystem::path& tmp) {
  const std::string text = std::filesystem::absolute(tmp).string();
  std::lock_guard<std::mutex> lock(slots_mutex);
  for (auto& s : slots)
    if (s.used.load() && text == s.path) s.used.store(false);
}

void remove_temporaries() noexcept {
  for (auto& s : slots)
    if (s.used.load()) ::unlink(s.path);
}

void check_output_path(const std::filesystem::path& target, const char* option) {
  const std::string shown = "\"" + target.string() + "\"";
  if (target.empty()) throw SpecError(option, "\"\"", "needs a file name");
  std::error_code ec;
  if (std::filesystem::is_directory(target, ec)) throw SpecError(option, shown, "is a directory; give a file name");
  const std::filesystem::path dir = std::filesystem::absolute(target).parent_path();
  if (!std::filesystem::is_directory(dir, ec))
    throw SpecError(option, shown, "its directory " + dir.string() + " does not exist");
  const std::filesystem::path probe = reserve_temporary(target);
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0644);
  const int error = errno;
  if (fd >= 0) {
    ::close(fd);
    ::unlink(probe.c_str());
  }
  release_temporary(probe);
  if (fd < 0) throw SpecError(option, shown, "cannot be written: " + std::string(std::strerror(error)));
}

void check_output_space(const std::filesystem::path& target, const MemoryTerm& file) {
  std::error_code ec;
  const auto space = std::filesystem::space(std::filesystem::absolute(target).parent_path(), ec);
  if (ec || static_cast<double>(space.available) >= file.bytes) return;  // unknown space: the write will tell
  throw SpecError(file.key, file.value,
                  "the output file would take an estimated " + format_bytes(file.bytes) + " (" + file.what +
                      "), more than the " + format_bytes(static_cast<double>(space.available)) +
                      " free on the file system of -o \"" + target.string() + "\"; " + file.advice +
                      " (docs/config.md, Memory estimate)");
}

void write_atomically(const std::filesystem::path& target,
                      const std::function<void(const std::filesystem::path& tmp)>& write) {
  const std::filesystem::path tmp = reserve_temporary(target);
  try {
    write(tmp);
    std::filesystem::rename(tmp, target);
    release_temporary(tmp);
  } catch (...) {
    std::error_code ignored;
    std::filesystem::remove(tmp, ignored);
    release_temporary(tmp);
    throw;
  }
}

}  // namespace rdpdyn

#include "io/atomic_output.hpp"

#include <unistd.h>

#include <atomic>
#include <string>
#include <system_error>

namespace rdpdyn {

void write_atomically(const std::filesystem::path& target,
                      const std::function<void(const std::filesystem::path& tmp)>& write) {
  static std::atomic<unsigned> counter{0};
  std::filesystem::path tmp = target;
  tmp += ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
  try {
    write(tmp);
    std::filesystem::rename(tmp, target);
  } catch (...) {
    std::error_code ignored;
    std::filesystem::remove(tmp, ignored);
    throw;
  }
}

}  // namespace rdpdyn

#include "apps/signals.hpp"

#include <unistd.h>

#include <csignal>

#include "io/atomic_output.hpp"

namespace rdpdyn {
namespace {

extern "C" void remove_outputs_and_exit(int signal_number) {
  remove_temporaries();  // async-signal-safe: unlink only
  // One line, so that an interrupted run does not end in silence (write(2) is async-signal-safe).
  static const char kInterrupted[] = "\nrdpdyn: interrupted; no output file was written\n";
  const ssize_t written = ::write(STDERR_FILENO, kInterrupted, sizeof kInterrupted - 1);
  (void)written;
  ::_exit(128 + signal_number);
}

}  // namespace

void install_signal_handlers() {
  struct sigaction action {};
  action.sa_handler = remove_outputs_and_exit;
  sigemptyset(&action.sa_mask);
  for (int s : {SIGINT, SIGTERM, SIGHUP}) sigaction(s, &action, nullptr);
  std::signal(SIGPIPE, SIG_IGN);
}

}  // namespace rdpdyn

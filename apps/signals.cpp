#include "apps/signals.hpp"

#include <unistd.h>

#include <csignal>

#include "io/atomic_output.hpp"

namespace rdpdyn {
namespace {

extern "C" void remove_outputs_and_exit(int signal_number) {
  remove_temporaries();  // async-signal-safe: unlink only
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

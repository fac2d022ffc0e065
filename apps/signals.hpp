#pragma once
// How the command line ends on signals: SIGINT, SIGTERM and SIGHUP remove the temporary outputs
// in flight (io/atomic_output.hpp) and exit with 128 + the signal's number; SIGPIPE is ignored, so
// a closed stdout (`rdpdyn ... --json | head`) ends the process quietly when it next writes.
namespace rdpdyn {

void install_signal_handlers();

}  // namespace rdpdyn

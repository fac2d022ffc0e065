#pragma once
// `rdpdyn plot FILE.h5 [-o FIG.png] [--orders A,B] [--analysis NAME] [--dpi N]`: the drawing is
// Python's (python/rdpdyn/plot.py, h5py + matplotlib), so the command replaces this process with
// `/usr/bin/python3 -m rdpdyn.plot ...`, PYTHONPATH pointing at the package of this build (when the
// binary runs from its build tree) or of its install prefix. Exit codes are then Python's, which
// follow the command line's (0 success, 2 bad input).
#include <string>
#include <vector>

namespace rdpdyn {

/// Runs the plot module with `arguments` (those after `plot`); returns only on failure to start it
/// (exit code 1, with the reason on stderr).
int exec_plot_module(const char* argv0, const std::vector<std::string>& arguments);

}  // namespace rdpdyn

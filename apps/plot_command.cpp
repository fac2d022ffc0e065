#include "apps/plot_command.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "rdpdyn_python_paths.hpp"

namespace rdpdyn {
namespace {

namespace fs = std::filesystem;

/// The directory holding the package rdpdyn for this binary: the build tree's when the binary is
/// the one built there (a stale installed copy must not shadow the code just built), else
/// <prefix>/<install dir> with prefix = the binary's directory's parent (relocatable installs).
fs::path package_parent(const char* argv0) {
  std::error_code ec;
  fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (ec) self = fs::absolute(argv0, ec);
  const fs::path bin = self.parent_path();
  if (fs::equivalent(bin, kBuildDirectory, ec)) return kBuildPythonPath;
  for (const char* dir : kInstallPythonPaths)
    if (fs::exists(bin.parent_path() / dir / "rdpdyn" / "plot.py", ec)) return bin.parent_path() / dir;
  return bin.parent_path() / kInstallPythonPaths[0];  // named in the error message
}

}  // namespace

int exec_plot_module(const char* argv0, const std::vector<std::string>& arguments) {
  if (!kPythonModuleBuilt) {
    std::fputs(
        "rdpdyn: error: `plot` needs the Python module, which this build left out "
        "(configure with -DRDPDYN_BUILD_PYTHON=ON)\n",
        stderr);
    return 1;
  }
  const fs::path parent = package_parent(argv0);
  if (!fs::exists(parent / "rdpdyn" / "plot.py")) {
    std::fprintf(stderr,
                 "rdpdyn: error: `plot` found no Python package rdpdyn at %s (build it, or `cmake --install`)\n",
                 parent.c_str());
    return 1;
  }
  // The package first; a PYTHONPATH already set stays after it.
  std::string path = parent.string();
  if (const char* old = std::getenv("PYTHONPATH"); old && *old) path += std::string(":") + old;
  setenv("PYTHONPATH", path.c_str(), 1);
  std::vector<std::string> words{kPythonInterpreter, "-m", "rdpdyn.plot"};
  words.insert(words.end(), arguments.begin(), arguments.end());
  std::vector<char*> argv;
  for (auto& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  execv(kPythonInterpreter, argv.data());
  std::fprintf(stderr, "rdpdyn: error: `plot` could not run %s: %s (scripts/install-deps.sh installs it)\n",
               kPythonInterpreter, std::strerror(errno));
  return 1;
}

}  // namespace rdpdyn

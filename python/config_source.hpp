#pragma once
// A configuration handed over from Python (docs/guide-dpsgd.md, "From Python"): a path (os.PathLike, or a str
// naming a file), TOML text (a str with a newline or an `=`), or a dict of tables; and overrides,
// the keys of `--set` with Python values. Everything is turned into what the command line has (a
// file or a text, and KEY=VALUE assignments; the text rendered by io/config_text.hpp) so that the
// configuration reader (io/config.hpp) checks it with the same rules and messages.
#include <pybind11/pybind11.h>

#include <optional>
#include <string>
#include <vector>

#include "io/config_text.hpp"
#include "io/sweep_config.hpp"
#include "models/run_config.hpp"

namespace rdpdyn::python {

struct ConfigSource {
  std::optional<std::string> path;     ///< a file to read; otherwise `text`
  std::string text;                    ///< TOML text
  std::string source_name;             ///< how messages name it ("<string>", "<dict>")
  std::vector<std::string> overrides;  ///< KEY=VALUE, as --set
};

/// Reads the Python arguments (needs the GIL). TypeError for a config of another type.
ConfigSource config_source(const pybind11::handle& config, const pybind11::dict& overrides);

/// The checked configuration (no Python involved: call it without the GIL). Throws SpecError.
RunConfig run_config(const ConfigSource& source);
SweepConfiguration sweep_configuration(const ConfigSource& source);

/// A Python value as a configuration value (io/config_text.hpp renders it): bool, int (or anything
/// with __index__, within 64 bits), float, str, a list or tuple of them (or a numpy array, through
/// tolist) and dicts (tables, in the dict's order). SpecError naming `key` for anything else.
ConfigValue config_value(const pybind11::handle& value, const std::string& key);

}  // namespace rdpdyn::python

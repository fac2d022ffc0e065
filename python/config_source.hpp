#pragma once
// A configuration handed over from Python (README, "From Python"): a path (os.PathLike, or a str
// naming a file), TOML text (a str with a newline or an `=`), or a dict of tables; and overrides,
// the keys of `--set` with Python values. Everything is turned into what the command line has (a
// file or a text, and KEY=VALUE assignments) so that the configuration reader (io/config.hpp) checks it with the same
// rules and messages.
#include <pybind11/pybind11.h>

#include <optional>
#include <string>
#include <vector>

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

/// A Python value as a TOML value: bool, int (or anything with __index__), float, str, a list or
/// tuple of them (or a numpy array, through tolist) and dicts as inline tables. Floats are
/// written in their shortest round-trip form, with ".0" when integral (TOML reads "10" as an integer).
std::string toml_literal(const pybind11::handle& value, const std::string& key);

/// A dict of tables (and top-level values) as a TOML document, in the dict's order.
std::string toml_document(const pybind11::dict& tables);

}  // namespace rdpdyn::python

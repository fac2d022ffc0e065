#include <algorithm>
#include <cctype>
#include <optional>
#include <sstream>
#include <string>
#include <toml.hpp>
#include <utility>
#include <vector>

#include "io/config_document.hpp"
#include "io/toml_section.hpp"
#include "numerics/spec_error.hpp"

// `--set KEY=VALUE`: a TOML value set at a dotted key of the parsed document, before any check.
namespace rdpdyn {
namespace {

/// The TOML value of VALUE in `--set KEY=VALUE`: any TOML value (number, "string", array, inline
/// table, boolean); a bare word that is not TOML (optimal, finite-difference) is taken as a string.
toml::value override_value(const std::string& key, const std::string& text) {
  check_toml_limits("v = " + text + "\n", "--set " + key);
  try {
    std::istringstream in("v = " + text + "\n");
    const toml::value doc = toml::parse(in, "--set " + key);
    if (doc.as_table().size() == 1 && doc.as_table().count("v")) return doc.as_table().at("v");
  } catch (const toml::exception&) {}
  const bool bare = !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.' || c == '+';
  });
  if (!bare)
    throw SpecError(key, text.empty() ? std::string("(empty)") : text,
                    "--set needs a TOML value: a number, true/false, \"a string\", [an, array] or a bare word");
  return toml::value(text);
}

/// "KEY=VALUE" split and trimmed; SpecError when there is no '='.
std::pair<std::string, std::string> split_assignment(const std::string& assignment) {
  const auto eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0)
    throw SpecError("--set", "\"" + assignment + "\"", "must be KEY=VALUE, e.g. algorithm.sigma=0.1");
  auto trim = [](std::string t) {
    const auto b = t.find_first_not_of(" \t"), e = t.find_last_not_of(" \t");
    return b == std::string::npos ? std::string() : t.substr(b, e - b + 1);
  };
  return {trim(assignment.substr(0, eq)), trim(assignment.substr(eq + 1))};
}

}  // namespace

void set_config_key(toml::value& root, const std::string& key, toml::value value) {
  const std::string value_text = describe(value);
  std::vector<std::string> parts;
  for (std::size_t start = 0;;) {
    const auto dot = key.find('.', start);
    parts.push_back(key.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  toml::value* node = &root;
  std::string path;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    std::string name = parts[i];
    std::optional<std::size_t> index;
    if (const auto open = name.find('['); open != std::string::npos && name.back() == ']') {
      const std::string digits = name.substr(open + 1, name.size() - open - 2);
      if (digits.empty() || !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
        throw SpecError(key, value_text, "an index must be a number, e.g. algorithm.schedule[0].eta");
      // stoul would throw std::out_of_range past 2^64; no array has 10^9 entries anyway.
      if (digits.size() > 9) throw SpecError(key, value_text, "index " + digits + " is out of range");
      index = std::stoul(digits);
      name = name.substr(0, open);
    }
    if (name.empty()) throw SpecError(key, value_text, "not a dotted key such as algorithm.sigma");
    path += (path.empty() ? "" : ".") + name;
    if (!node->is_table())
      throw SpecError(path.substr(0, path.rfind('.')), describe(*node), "is not a table; cannot set " + key);
    auto& table = node->as_table();
    const bool last = i + 1 == parts.size();
    if (last && !index) {
      table[name] = std::move(value);
      return;
    }
    if (!table.count(name)) {
      if (index) throw SpecError(path, "missing", "no such array of tables to index in " + key);
      table[name] = toml::table{};
    }
    node = &table[name];
    if (index) {
      if (!node->is_array() || *index >= node->as_array().size())
        throw SpecError(path + "[" + std::to_string(*index) + "]", "missing",
                        node->is_array()
                            ? "index out of range (" + std::to_string(node->as_array().size()) + " entries)"
                            : "is not an array of tables");
      path += "[" + std::to_string(*index) + "]";
      node = &node->as_array()[*index];
      if (last) {
        *node = std::move(value);
        return;
      }
    }
  }
}

void apply_override(toml::value& root, const std::string& assignment) {
  const auto [key, value_text] = split_assignment(assignment);
  set_config_key(root, key, override_value(key, value_text));
}

std::string effective_config_text(const std::string& text, const std::vector<std::string>& overrides) {
  if (overrides.empty()) return text;
  // Self-describing outputs: the effective configuration is the text plus these.
  std::string out = text + "\n# Overridden on the command line (--set), applied to the text above:\n";
  for (const auto& o : overrides) out += "# " + o + "\n";
  return out;
}

}  // namespace rdpdyn

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <toml.hpp>
#include <vector>

#include "io/config/section_rules.hpp"
#include "io/config_document.hpp"
#include "models/size_limits.hpp"
#include "numerics/format_number.hpp"
#include "numerics/spec_error.hpp"

// The text of a configuration before the TOML parser sees it: its file, its size, UTF-8, and the
// nesting, key and array limits the parser needs (docs/config.md, "Limits").
namespace rdpdyn {
namespace {

/// Offset of the first byte that does not start a well-formed UTF-8 sequence (RFC 3629: no
/// overlong forms, no surrogates, at most U+10FFFF), or npos when the text is UTF-8. The TOML
/// parser's own check reads out of bounds on a bad byte in a 'literal string' (a heap overflow
/// found by tests/fuzz), so the text is checked before it gets there.
std::size_t invalid_utf8_at(const std::string& text) {
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  const std::size_t n = text.size();
  for (std::size_t i = 0; i < n;) {
    const unsigned char c = p[i];
    if (c < 0x80) {
      ++i;
      continue;
    }
    std::size_t length = 0;
    unsigned char lo = 0x80, hi = 0xBF;  // range of the second byte
    if (c >= 0xC2 && c <= 0xDF) {
      length = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
      length = 3;
      if (c == 0xE0) lo = 0xA0;  // overlong
      if (c == 0xED) hi = 0x9F;  // surrogates
    } else if (c >= 0xF0 && c <= 0xF4) {
      length = 4;
      if (c == 0xF0) lo = 0x90;  // overlong
      if (c == 0xF4) hi = 0x8F;  // above U+10FFFF
    } else {
      return i;
    }
    if (i + length > n || p[i + 1] < lo || p[i + 1] > hi) return i;
    for (std::size_t k = 2; k < length; ++k)
      if (p[i + k] < 0x80 || p[i + k] > 0xBF) return i;
    i += length;
  }
  return std::string::npos;
}

/// Where a TOML text exceeds kMaxTomlNesting or kMaxKeyParts, found by a small scanner of its
/// structure (strings and comments skipped as TOML reads them); empty when within the limits.
/// It runs before the parser, so it must not trust the text to be valid TOML: on malformed text
/// it still only counts brackets and dots, and the parser reports the error.
std::string toml_limit_violation(const std::string& text) {
  std::vector<char> open;           // '[' array, '{' inline table, 'h' table header
  std::vector<std::size_t> commas;  // per open bracket: commas seen directly inside it
  std::vector<double> nested;       // per open bracket: entries of the arrays inside it, at any depth
  // Sum over the outermost arrays of (the entries they hold at any depth)^2: toml11 parses an
  // array in time quadratic in all the entries it holds (a 400 x 400 array of arrays: 19 s), and
  // the arrays inside are parsed within that.
  double parse_work = 0.0;
  bool in_key = true;  // at a key: start of a line, header, after '{' or ',' in an inline table
  std::size_t key_parts = 1, line = 1;
  const std::size_t n = text.size();
  auto where = [&] { return " (line " + std::to_string(line) + ")"; };
  for (std::size_t i = 0; i < n; ++i) {
    const char c = text[i];
    if (c == '\n') {
      ++line;
      if (open.empty() || open.back() == 'h') {
        open.clear();  // a header never spans lines; the parser reports an unclosed one
        commas.clear();
        nested.clear();
        in_key = true;
        key_parts = 1;
      }
    } else if (c == '#') {
      while (i + 1 < n && text[i + 1] != '\n') ++i;
    } else if (c == '"' || c == '\'') {
      const bool basic = c == '"';
      if (i + 2 < n && text[i + 1] == c && text[i + 2] == c) {  // multi-line string
        i += 3;
        for (; i < n; ++i) {
          if (basic && text[i] == '\\') {
            ++i;
            if (i < n && text[i] == '\n') ++line;
          } else if (text[i] == '\n') {
            ++line;
          } else if (text[i] == c && i + 2 < n && text[i + 1] == c && text[i + 2] == c) {
            while (i + 3 < n && text[i + 3] == c) ++i;  // """" ends with a quote inside
            i += 2;
            break;
          }
        }
      } else {  // one-line string: ends at its quote or (an error for the parser) the line
        for (++i; i < n && text[i] != c && text[i] != '\n'; ++i)
          if (basic && text[i] == '\\' && i + 1 < n && text[i + 1] != '\n') ++i;
        if (i < n && text[i] == '\n') --i;  // let the loop count the line
      }
    } else if (c == '[' || c == '{') {
      const bool header = c == '[' && open.empty() && in_key;
      if (header && i + 1 < n && text[i + 1] == '[') ++i;  // [[array.of.tables]]
      open.push_back(header ? 'h' : c);
      commas.push_back(0);
      nested.push_back(0.0);
      if (open.size() > kMaxTomlNesting)
        return "arrays and inline tables nested more than " + std::to_string(kMaxTomlNesting) + " levels deep" +
               where();
      in_key = header || c == '{';
      key_parts = 1;
    } else if (c == ']' || c == '}') {
      if (!open.empty()) {
        if (open.back() == 'h' && i + 1 < n && text[i + 1] == ']') ++i;
        double held = nested.back();
        if (open.back() == '[') {
          const double entries = static_cast<double>(commas.back()) + 1.0;
          if (entries > static_cast<double>(limits::kMaxArrayEntries))
            return "an array of more than " + std::to_string(limits::kMaxArrayEntries) + " entries" + where();
          held = std::max(held, entries);  // an array of arrays holds their entries; of scalars, its own
          const bool outermost = std::count(open.begin(), open.end(), '[') == 1;
          if (outermost) parse_work += held * held;
          if (parse_work > limits::kMaxArrayParseWork)
            return "arrays whose entries (nested arrays' included) squared sum to more than " +
                   format_number(limits::kMaxArrayParseWork) + " (the TOML parser's time grows with that sum)" +
                   where();
        }
        open.pop_back();
        commas.pop_back();
        nested.pop_back();
        if (!nested.empty()) nested.back() += held;
      }
      in_key = false;
    } else if (c == ',' && !open.empty() && open.back() == '{') {
      in_key = true;
      key_parts = 1;
    } else if (c == ',' && !open.empty() && open.back() == '[') {
      ++commas.back();
    } else if (c == '=' && in_key) {
      in_key = false;
    } else if (c == '.' && in_key && ++key_parts > kMaxKeyParts) {
      return "a dotted key of more than " + std::to_string(kMaxKeyParts) + " parts" + where();
    }
  }
  return {};
}

}  // namespace

void check_toml_limits(const std::string& text, const std::string& source_name) {
  if (text.size() > static_cast<std::size_t>(limits::kMaxConfigBytes))
    throw SpecError(source_name, "(file)",
                    "is " + std::to_string(text.size()) + " bytes; a configuration may have at most " +
                        std::to_string(limits::kMaxConfigBytes) + " (64 MiB; docs/config.md, \"Limits\")");
  if (const auto bad = invalid_utf8_at(text); bad != std::string::npos)
    throw SpecError(
        source_name, "(file)",
        "is not UTF-8 at byte " + std::to_string(bad) + " (line " +
            std::to_string(1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(bad), '\n')) +
            "): TOML documents are UTF-8");
  if (const std::string violation = toml_limit_violation(text); !violation.empty())
    throw SpecError(source_name, "(file)",
                    "has " + violation + "; the limits are " + std::to_string(kMaxTomlNesting) + " nested levels, " +
                        std::to_string(kMaxKeyParts) + " key parts and " + std::to_string(limits::kMaxArrayEntries) +
                        " entries an array (docs/config.md, \"Limits\")");
}

toml::value parse_toml_document(const std::string& text, const std::string& source_name) {
  check_toml_limits(text, source_name);
  try {
    std::istringstream in(text);
    return toml::parse(in, source_name);
  } catch (const toml::exception& e) {
    throw SpecError(source_name, "(file)", std::string("is not valid TOML: ") + e.what());
  }
}

std::string read_config_file(const std::filesystem::path& path) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (ec) throw SpecError("CONFIG", "\"" + path.string() + "\"", "cannot be read: " + ec.message());
  if (std::filesystem::is_directory(status))
    throw SpecError("CONFIG", "\"" + path.string() + "\"", "is a directory, not a configuration file");
  if (!std::filesystem::is_regular_file(status))
    throw SpecError("CONFIG", "\"" + path.string() + "\"", "is not a regular file");
  if (const auto size = std::filesystem::file_size(path, ec);
      !ec && size > static_cast<std::uintmax_t>(limits::kMaxConfigBytes))
    throw SpecError("CONFIG", "\"" + path.string() + "\"",
                    "is " + std::to_string(size) +
                        " bytes; a configuration must be <= " + config_reader::limit_text(limits::kMaxConfigBytes) +
                        " bytes (the longest legitimate lists, two arrays of 2^16 numbers, are a few MB; "
                        "docs/config.md, Limits)");
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw SpecError("CONFIG", "\"" + path.string() + "\"",
                    "cannot be opened for reading: " + std::string(std::strerror(errno)));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace rdpdyn

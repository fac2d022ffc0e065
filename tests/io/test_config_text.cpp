// io/config_text.hpp: the one place TOML text is rendered from typed values (Python, RunBuilder,
// the DP-SGD one-liners). Each literal reads back to the value it came from (toml11 parses it).
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <string>

#include "io/config.hpp"
#include "io/config_document.hpp"
#include "io/config_text.hpp"

using namespace rdpdyn;

TEST_CASE("TOML literals of typed values read back to the same values", "[config][io]") {
  CHECK(toml_float(10.0) == "10.0");  // TOML reads "10" as an integer
  CHECK(toml_float(0.1) == "0.1");
  CHECK(toml_float(std::numeric_limits<double>::infinity()) == "inf");
  CHECK(toml_literal({std::int64_t{14062}}) == "14062");
  CHECK(toml_literal({true}) == "true");
  CHECK(toml_literal({std::string("a \"b\"\\\n\t\x01")}) == "\"a \\\"b\\\"\\\\\\n\\t\\u0001\"");
  CHECK(toml_key("noise_multiplier") == "noise_multiplier");
  CHECK(toml_key("a.b") == "\"a.b\"");  // a key with a dot is one key, quoted
  CHECK(toml_literal({ConfigList{{1.5}, {2.0}}}) == "[1.5, 2.0]");
  CHECK(toml_literal({ConfigTable{{"eta", {0.5}}, {"steps", {std::int64_t{10}}}}}) == "{eta = 0.5, steps = 10}");
  CHECK(toml_literal({VerbatimToml{"[{eta = 0.1}]"}}) == "[{eta = 0.1}]");
  for (const double x : {0.1, 1.0 / 3.0, 6.02214076e23, 5e-324, 1.7976931348623157e308}) {
    const toml::value v = parse_toml_document("x = " + toml_float(x), "<test>");
    CHECK(toml::find<double>(v, "x") == x);
  }
}

TEST_CASE("A TOML document: top-level values, then one section per table, a blank line between", "[config][io]") {
  const ConfigTable document{{"title", {std::string("run")}},
                             {"orders", {ConfigTable{{"values", {ConfigList{{2.0}}}}}}},
                             {"report", {ConfigTable{{"delta", {1e-5}}}}}};
  CHECK(toml_document(document) == "title = \"run\"\n\n[orders]\nvalues = [2.0]\n\n[report]\ndelta = 1e-05\n");
  const ConfigTable sections{{"report", {ConfigTable{{"delta", {1e-5}}}}}};
  CHECK(toml_document(sections) == "[report]\ndelta = 1e-05\n");
}

// The built-in suite behind `rdpdyn validate`.
#include <catch2/catch.hpp>
#include <set>

#include "validation/theorem_suite.hpp"

TEST_CASE("Every theorem check passes within its tolerance", "[validation]") {
  const auto results = rdpdyn::run_theorem_suite();
  std::set<std::string> names;
  for (const auto& r : results) {
    INFO(r.name << ": " << r.description << " max rel err " << r.max_relative_error);
    CHECK(r.passed);
    CHECK(r.max_relative_error <= r.tolerance);
    names.insert(r.name);
  }
  for (const char* required : {"thm1", "thm2", "cor1-lambda1", "cor2", "thm3-exact", "composition", "transport",
                               "transport-recursion", "langevin-thm2"})
    CHECK(names.count(required) == 1);
}

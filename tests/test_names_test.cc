// ctest runs each Catch2 test case by name (catch_discover_tests), and a ';'
// in a name splits it into filters that match nothing: the test would pass
// without running. Every name must be safe.
#include <catch2/catch.hpp>

TEST_CASE("test names: none contains a character ctest splits on", "[meta]") {
  const auto& all = Catch::getRegistryHub().getTestCaseRegistry().getAllTests();
  CHECK(all.size() > 50);
  for (const Catch::TestCase& t : all) {
    INFO(t.name);
    CHECK(t.name.find(';') == std::string::npos);
  }
}

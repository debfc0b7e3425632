// Shortest round-trip text for doubles in YAML trees (run.yaml).
#include "sim/config/yaml_numbers.h"

#include <catch2/catch.hpp>

#include <yaml-cpp/yaml.h>

using namespace dlsim;

TEST_CASE("shorten_doubles writes each double in the fewest digits that read back exactly",
          "[config]") {
  YAML::Node n;
  n["a"] = 0.52;                   // yaml-cpp encodes 0.52000000000000002
  n["b"]["c"] = 41.6;              // 41.600000000000001
  n["d"].push_back(0.1 + 0.2);     // 0.30000000000000004 is the shortest text of this double
  n["e"] = "0.52000000000000002x"; // not a number: untouched
  n["f"] = 7;
  n["g"] = "a long string with a dot. 123";
  shorten_doubles(n);
  CHECK(n["a"].Scalar() == "0.52");
  CHECK(n["b"]["c"].Scalar() == "41.6");
  CHECK(n["d"][0].Scalar() == "0.30000000000000004");
  CHECK(n["d"][0].as<double>() == 0.1 + 0.2);
  CHECK(n["e"].Scalar() == "0.52000000000000002x");
  CHECK(n["f"].Scalar() == "7");
  CHECK(n["g"].Scalar() == "a long string with a dot. 123");
  CHECK(n["a"].as<double>() == 0.52);
}

// A random cluster's YAML for the randomized tests of what-if models (plan_test,
// free_model_test): a first group that holds every job of their traces (4 workers of 4 devices,
// 7 cores and 16.5 GB each), then up to two more groups of any shape.
#pragma once

#include <fmt/format.h>

#include <random>
#include <string>

namespace dlsim::test {

inline std::string random_cluster(std::mt19937& rng) {
  auto in = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  const char* shapes[] = {"{{V100: {}}}", "{{K80: {}}}", "{{V100: {}, K80: 2}}", "{{T4: {}}}"};
  std::string yaml = fmt::format(
      "nodes:\n  - {{count: {}, devices: {{V100: {}}}, cpu_cores: 32, memory_gb: 80}}\n", in(4, 6),
      in(4, 8));
  const int groups = in(0, 2);
  for (int g = 0; g < groups; ++g) {
    yaml +=
        fmt::format("  - {{count: {}, devices: {}, cpu_cores: {}, memory_gb: {}}}\n", in(1, 6),
                    fmt::format(fmt::runtime(shapes[in(0, 3)]), in(1, 8)), in(4, 48), in(16, 256));
  }
  return yaml;
}

} // namespace dlsim::test

// What the recipe tests share (docs/adding-a-policy.md, docs/architecture.md#extending-dlsim):
// the code block a page shows, and the worked example's cluster and jobs.
#pragma once

#include <catch2/catch.hpp>

#include <string>

namespace dlsim::test {

// The first ```cpp block of `page` after the first occurrence of `heading` (empty: from the
// page's start).
inline std::string cpp_block_after(const std::string& page, const std::string& heading) {
  auto h = page.find(heading);
  REQUIRE(h != std::string::npos);
  const std::string open = "```cpp\n";
  auto a = page.find(open, h);
  REQUIRE(a != std::string::npos);
  a += open.size();
  auto b = page.find("```\n", a);
  REQUIRE(b != std::string::npos);
  return page.substr(a, b - a);
}

// The policy recipe's example: one node of 4 GPUs; A: 3 GPUs for 100 s at 0; B: 4 GPUs for 50 s
// at 10; C: 1 GPU for 10 s at 20; D: 2 GPUs for 30 s at 20.
constexpr const char* kDocsExampleCluster = "nodes:\n  - {count: 1, devices: {V100: 4}}\n";
constexpr const char* kDocsExampleJobs = "id,submit_s,workers,gpus_per_worker,duration_s\n"
                                         "A,0,1,3,100\n"
                                         "B,10,1,4,50\n"
                                         "C,20,1,1,10\n"
                                         "D,20,1,2,30\n";

} // namespace dlsim::test

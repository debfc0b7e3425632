// The nodes with at least k free devices (policies/free_nodes.h): the same nodes, in the same
// id order, as a scan of every node's free count, on a cluster of nodes of several sizes and two
// types while random devices are taken and freed.
#include "policies/free_nodes.h"

#include "tests/support/harness.h"

#include <catch2/catch.hpp>

#include <random>
#include <vector>

using namespace dlsim;
using dlsim::test::cluster_from_yaml;

TEST_CASE("nodes with at least k free devices are those a scan finds, in id order",
          "[free-index]") {
  Cluster c = cluster_from_yaml("nodes:\n"
                                "  - {count: 5, devices: {V100: 8}}\n"
                                "  - {count: 3, devices: {V100: 2, K80: 4}}\n"
                                "  - {count: 4, devices: {K80: 1}}\n"
                                "  - {count: 2, devices: {V100: 4}}\n");
  FreeIndex f;
  f.init(c);
  std::vector<char> taken(c.devices.size(), 0);
  std::mt19937 rng(3);
  int visited = 0;
  for (int step = 0; step < 4000; ++step) {
    const auto d = static_cast<DeviceId>(rng() % c.devices.size());
    if (taken[d]) {
      f.device_freed(c, d);
    } else {
      f.device_taken(c, d);
    }
    taken[d] = !taken[d];
    for (DeviceTypeId t = 0; t < c.types.size(); ++t) {
      for (std::uint32_t k = 1; k <= 9; ++k) {
        std::vector<NodeId> plain;
        for (NodeId n = 0; n < c.nodes.size(); ++n) {
          if (f.free_on(n, t) >= k) plain.push_back(n);
        }
        std::vector<NodeId> got;
        for_nodes_with_at_least(f, t, k, [&](NodeId n) {
          got.push_back(n);
          return true;
        });
        REQUIRE(got == plain);
        visited += static_cast<int>(got.size());
        // A walk stops when told to.
        if (plain.size() > 1) {
          std::vector<NodeId> first;
          for_nodes_with_at_least(f, t, k, [&](NodeId n) {
            first.push_back(n);
            return first.size() < 2;
          });
          REQUIRE(first == std::vector<NodeId>{plain[0], plain[1]});
        }
      }
    }
  }
  CHECK(visited > 10000);
}

// Gandiva's movable-group index (policies/gandiva/movable_index.h), kept between plans by
// replacing the entries of the groups that changed, against the index built afresh from every
// group's current key (what each plan did before it was kept): the same groups in the same
// order, after every one of random changes.
#include "policies/gandiva/movable_index.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <optional>
#include <random>
#include <tuple>
#include <vector>

using namespace dlsim;
using namespace dlsim::gandiva;

namespace {

using Keys = std::vector<std::optional<MovableKey>>;

// The planner's order on node n: (members, devices, id) sorted, as the plan built it.
std::vector<std::uint32_t> plain_on_node(const Keys& keys, DeviceTypeId t, NodeId n) {
  std::vector<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t>> rows;
  for (std::uint32_t gid = 0; gid < keys.size(); ++gid) {
    const auto& k = keys[gid];
    if (k && k->type == t && k->node == n) rows.emplace_back(k->members, k->devices, gid);
  }
  std::sort(rows.begin(), rows.end());
  std::vector<std::uint32_t> out;
  out.reserve(rows.size());
  for (const auto& row : rows)
    out.push_back(std::get<2>(row));
  return out;
}

// The joinable groups of (t, cls, devices) by (members, id).
std::vector<std::uint32_t> plain_joinable(const Keys& keys, DeviceTypeId t, std::uint32_t cls,
                                          std::uint32_t devices) {
  std::vector<std::pair<std::uint32_t, std::uint32_t>> rows;
  for (std::uint32_t gid = 0; gid < keys.size(); ++gid) {
    const auto& k = keys[gid];
    if (k && k->joinable && k->type == t && k->cls == cls && k->devices == devices)
      rows.emplace_back(k->members, gid);
  }
  std::sort(rows.begin(), rows.end());
  std::vector<std::uint32_t> out;
  out.reserve(rows.size());
  for (const auto& row : rows)
    out.push_back(row.second);
  return out;
}

template <class Span>
std::vector<std::uint32_t> gids(Span s) {
  std::vector<std::uint32_t> out;
  for (const auto& e : s)
    out.push_back(e.gid);
  return out;
}

} // namespace

TEST_CASE("gandiva movable index kept between plans equals the index built afresh",
          "[gandiva][gandiva-index]") {
  std::mt19937 rng(20261128);
  for (int instance = 0; instance < 200; ++instance) {
    const std::uint32_t groups = 1 + rng() % 60;
    const std::uint32_t nodes = 1 + rng() % 6;
    const std::uint32_t types = 1 + rng() % 2;
    Keys keys(groups);
    MovableIndex index;
    for (int step = 0; step < 300; ++step) {
      const std::uint32_t gid = rng() % groups;
      if (rng() % 4 == 0) {
        keys[gid].reset(); // no longer movable (or erased)
      } else {
        MovableKey k;
        k.type = static_cast<DeviceTypeId>(rng() % types);
        k.node = rng() % nodes;
        k.members = 1 + rng() % 4;
        k.devices = 1 << (rng() % 3);
        k.cls = k.devices;
        k.slice = rng() % 2 == 0;
        k.joinable = k.slice && rng() % 2 == 0;
        keys[gid] = k;
      }
      index.set(gid, keys[gid]);
      for (DeviceTypeId t = 0; t < types + 1; ++t) {
        for (NodeId n = 0; n < nodes + 1; ++n)
          REQUIRE(gids(index.on_node(t, n)) == plain_on_node(keys, t, n));
        for (std::uint32_t d : {1U, 2U, 4U, 8U})
          REQUIRE(gids(index.joinable(t, d, d)) == plain_joinable(keys, t, d, d));
      }
    }
  }
}

// Gandiva's group table (policies/gandiva/state.h): erased groups are skipped, found by no
// lookup, and their slots compacted once half of them are erased, without changing the order.
#include "policies/gandiva/state.h"

#include <catch2/catch.hpp>

#include <vector>

using namespace dlsim::gandiva;

namespace {

std::vector<std::uint32_t> ids(const GroupTable& t) {
  std::vector<std::uint32_t> out;
  for (const auto& [id, g] : t) {
    CHECK(g.id == id);
    out.push_back(id);
  }
  return out;
}

} // namespace

TEST_CASE("gandiva group table skips erased groups and keeps id order across compaction") {
  GroupTable t;
  for (std::uint32_t id = 0; id < 6; ++id)
    t.add(id).cls = id + 10;
  t.erase(1);
  t.erase(4);
  // 2 of 6 slots erased: fewer than half, so not compacted yet; the walk skips them.
  CHECK(ids(t) == std::vector<std::uint32_t>{0, 2, 3, 5});
  CHECK(t.find_live(1) == nullptr);
  CHECK_THROWS_AS(t.at(4), std::out_of_range);
  CHECK(t.at(5).cls == 15);
  t.add(6).cls = 16;
  // 3 of 7 erased: still kept. The 4th makes 4 of 7, at least half: compacted to 3 slots.
  t.erase(0);
  t.erase(3);
  CHECK(ids(t) == std::vector<std::uint32_t>{2, 5, 6});
  CHECK(t.at(2).cls == 12);
  CHECK(t.at(6).cls == 16);
  CHECK(t.find_live(3) == nullptr);
  CHECK_THROWS_AS(t.erase(3), std::out_of_range);
  t.add(7);
  CHECK(ids(t) == std::vector<std::uint32_t>{2, 5, 6, 7});
  // An emptied table walks nothing.
  for (std::uint32_t id : {2U, 5U, 6U, 7U})
    t.erase(id);
  CHECK(ids(t).empty());
  CHECK(t.find_live(7) == nullptr);
}

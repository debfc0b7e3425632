// UniqueIds, the duplicate-id check of the trace readers: every repeat is found, including
// after the table has grown, and ids that share a prefix or are empty are kept apart.
#include "workloads/formats/unique_ids.h"

#include <catch2/catch.hpp>

#include <string>

using dlsim::UniqueIds;

TEST_CASE("UniqueIds reports the second insert of an id, not the first", "[trace]") {
  UniqueIds ids;
  CHECK(ids.insert("a"));
  CHECK(ids.insert("b"));
  CHECK_FALSE(ids.insert("a"));
  CHECK_FALSE(ids.insert("b"));
  // "" and ids that are prefixes of one another are different ids.
  CHECK(ids.insert(""));
  CHECK_FALSE(ids.insert(""));
  CHECK(ids.insert("ab"));
  CHECK(ids.insert("abc"));
  CHECK_FALSE(ids.insert("ab"));
  // Recorded: a, b, "", ab, abc.
  CHECK(ids.size() == 5);
}

TEST_CASE("UniqueIds finds every repeat after growing", "[trace]") {
  // 5,000 ids: the table starts with 1,024 slots and doubles whenever it would pass half full,
  // so it grows to 2,048, 4,096, 8,192 and 16,384 slots (5,000 * 2 = 10,000 > 8,192) and every
  // id is re-inserted four times or fewer on the way.
  UniqueIds ids;
  for (int i = 0; i < 5000; ++i)
    REQUIRE(ids.insert("job" + std::to_string(i)));
  for (int i = 0; i < 5000; ++i)
    REQUIRE_FALSE(ids.insert("job" + std::to_string(i)));
  CHECK(ids.size() == 5000);
  // Ids next to the ones recorded are still new.
  CHECK(ids.insert("job5000"));
  CHECK(ids.insert("job-1"));
  CHECK(ids.insert("job00"));
}

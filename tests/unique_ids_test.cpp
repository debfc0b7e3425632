// UniqueIds, the duplicate-id check of the trace readers: every repeat is found, including
// after the table has grown, and ids that share a prefix or are empty are kept apart.
#include "workloads/formats/unique_ids.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

using dlsim::may_repeat;
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

TEST_CASE("may_repeat finds equal hashes wherever they are", "[trace]") {
  std::vector<std::uint64_t> none;
  CHECK_FALSE(may_repeat(none));
  std::vector<std::uint64_t> one{42};
  CHECK_FALSE(may_repeat(one));
  // Distinct, including 0, the largest value and values that differ in their top bits only
  // (which pick the bucket) or share their low bits (which pick the slot in a bucket's table).
  std::vector<std::uint64_t> distinct{
      7, 0, ~std::uint64_t{0}, std::uint64_t{1} << 63, (std::uint64_t{1} << 63) | 7, 3};
  CHECK_FALSE(may_repeat(distinct));
  // The same value first and last of 5,002: 5,002 / 2,048 = 2, a 2-bit bucket number (4
  // buckets by the top 2 bits), and both copies land in the same one.
  std::vector<std::uint64_t> far;
  far.push_back(123456789);
  for (std::uint64_t i = 0; i < 5000; ++i)
    far.push_back(i * 0x9E3779B97F4A7C15ULL + 1); // distinct: an odd multiplier is invertible
  far.push_back(123456789);
  // 123456789 is none of the others: i * 0x9E37...15 + 1 = 123456789 needs i = 123456788 *
  // (the multiplier's inverse mod 2^64), not below 5,000 (checked by the loop below).
  bool among = false;
  for (std::uint64_t i = 0; i < 5000; ++i)
    among = among || i * 0x9E3779B97F4A7C15ULL + 1 == 123456789;
  REQUIRE_FALSE(among);
  CHECK(may_repeat(far));
  // Take one of the two out again.
  far.erase(std::find(far.begin(), far.end(), 123456789));
  CHECK_FALSE(may_repeat(far));
}

TEST_CASE("may_repeat: zeros, shared low bits and full buckets", "[trace]") {
  // Two zeros (0 marks an empty slot, so a zero is remembered apart) among 10,000 others:
  // 10,000 / 2,048 = 4, bit width 3, so 8 buckets by the top 3 bits.
  std::vector<std::uint64_t> v;
  for (std::uint64_t i = 1; i <= 10000; ++i)
    v.push_back(i * 0x9E3779B97F4A7C15ULL); // distinct and none 0: the multiplier is odd
  v.push_back(0);
  CHECK_FALSE(may_repeat(v));
  v.push_back(0);
  CHECK(may_repeat(v));
  // 3,000 values of one bucket (top bits 0) with the same low 32 bits, distinct in bits 32-47:
  // every one probes past all the others before it (a table of 8,192 slots, 3,000 in one run).
  std::vector<std::uint64_t> same_low;
  for (std::uint64_t i = 1; i <= 3000; ++i)
    same_low.push_back((i << 32) | 0x1234);
  CHECK_FALSE(may_repeat(same_low));
  same_low.push_back((std::uint64_t{1500} << 32) | 0x1234); // the 1,500th again
  CHECK(may_repeat(same_low));
  // Equal low bits in different buckets are not a repeat: 2^63 + 5 and 5, with 4,094 fillers
  // (4,096 / 2,048 = 2, bit width 2: 4 buckets; 2^63 + 5 is in bucket 2, 5 in bucket 0).
  std::vector<std::uint64_t> split{5, (std::uint64_t{1} << 63) | 5};
  for (std::uint64_t i = 1; i <= 4094; ++i)
    split.push_back((i << 20) | 7);
  CHECK_FALSE(may_repeat(split));
}

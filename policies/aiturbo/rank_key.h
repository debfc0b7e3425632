// A job's place in aiturbo's and optimus' ranking (docs/aiturbo.md#the-aiturbo-policy):
// (level, class, key, job), ordered as the tuple of those four would be, with comparisons the
// compiler inlines. The ranked queue's sets, the holders' blocks and the walk that merges them
// compare keys hundreds of times a decision; std::tuple's operator< goes through operator<=>
// and a partial ordering that GCC leaves as a call.
#pragma once

#include "sim/workload/workload.h"

#include <cstdint>

namespace dlsim {

struct RankKey {
  std::uint32_t level = 0;
  int cls = 0; // 0 predictable, 1 not
  double key = 0;
  JobId job = 0;

  friend bool operator==(const RankKey&, const RankKey&) = default;
  // As std::tuple's: the first field that differs decides; two keys neither below nor equal to
  // each other (a NaN) make neither key below the other.
  friend bool operator<(const RankKey& a, const RankKey& b) {
    if (a.level != b.level) return a.level < b.level;
    if (a.cls != b.cls) return a.cls < b.cls;
    if (a.key < b.key) return true;
    if (b.key < a.key || !(a.key == b.key)) return false;
    return a.job < b.job;
  }
};

} // namespace dlsim

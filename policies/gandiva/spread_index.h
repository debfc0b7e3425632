// The groups spreading may take a member out of (migration.cpp), by the kind of that member, kept
// between decisions. A spreading pass moves the member of the first group, most members first
// and then by id, whose member's kind finds free devices; nothing changes in a pass before its
// move, so whether a kind finds devices is the same for all its groups, and the first group of
// each kind is the only one of that kind the pass can move: a pass tries each kind's first group
// instead of walking every over-subscribed group.
#pragma once

#include "policies/gandiva/job_kind.h"

#include <compare>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <vector>

namespace dlsim::gandiva {

class SpreadIndex {
public:
  struct Candidate {
    std::uint64_t fewer; // ~members: most members first
    std::uint32_t gid;   // then in id order
    JobId pick;          // the member spreading would move
    auto operator<=>(const Candidate&) const = default;
  };
  struct Entry {
    JobKind kind; // of the member to move
    Candidate candidate;
  };

  // Group gid can give a member with that entry from now on (nullopt: it cannot, or is gone).
  void set(std::uint32_t gid, const std::optional<Entry>& entry);
  // Each kind with a candidate, and its first candidate.
  template <class Fn>
  void for_each_first(Fn&& fn) const {
    for (const auto& [kind, candidates] : by_kind_)
      fn(kind, *candidates.begin());
  }

private:
  std::map<JobKind, std::set<Candidate>> by_kind_; // no empty set
  std::vector<std::optional<Entry>> entry_;        // [gid] as last set
};

} // namespace dlsim::gandiva

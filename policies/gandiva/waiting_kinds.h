// The waiting jobs by kind (job_kind.h), each kind in arrival order, kept as jobs start and stop
// waiting. A decision walks the waiting jobs in arrival order and passes over every job of a kind
// that found nothing earlier in the walk (until something is placed): under a standing queue that
// is almost the whole queue, hundreds of thousands of jobs at every decision. Walking the kinds'
// lists merged in arrival order, without the kinds that found nothing, visits the same jobs in the
// same order and never the others.
#pragma once

#include "policies/gandiva/job_kind.h"

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <utility>
#include <vector>

namespace dlsim::gandiva {

class WaitingKinds {
public:
  // (arrival sequence, job), as State::waiting holds them.
  using Entry = std::pair<std::uint64_t, JobId>;

  void add(const JobKind& kind, Entry e) { by_kind_[kind].insert(e); }
  void erase(const JobKind& kind, Entry e) { by_kind_[kind].erase(e); }

  // The merged walk. Only the entry last returned may leave the lists while a walk is under way,
  // and no entry may join them.
  class Walk {
  public:
    explicit Walk(const WaitingKinds& kinds);
    // The next entry in arrival order whose kind is not passed over, or nullopt at the end.
    std::optional<Entry> next();
    // The kind of the entry last returned found nothing: pass over it from now on.
    void nothing_for_last();
    // Something was placed: no kind is passed over any more, from the entry last returned on.
    void placed();

  private:
    using List = std::set<Entry>;
    void push_after(const List* list, const Entry& after);
    const WaitingKinds& kinds_;
    std::set<std::pair<Entry, const List*>> heads_; // each walked kind's next entry
    std::vector<const List*> passed_;               // the kinds passed over
    Entry last_{0, 0};
    const List* last_list_ = nullptr;
  };

private:
  // Kinds are never dropped (their lists stay where they are while a walk holds them); there are
  // as many as distinct shapes, device types, models and details in the trace.
  std::map<JobKind, std::set<Entry>> by_kind_;
};

} // namespace dlsim::gandiva

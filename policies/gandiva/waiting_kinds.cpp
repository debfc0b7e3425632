// The waiting jobs' merged walk by kind (waiting_kinds.h).
#include "policies/gandiva/waiting_kinds.h"

namespace dlsim::gandiva {

WaitingKinds::Walk::Walk(const WaitingKinds& kinds) : kinds_(kinds) {
  for (const auto& [kind, list] : kinds_.by_kind_) {
    if (!list.empty()) heads_.emplace(*list.begin(), &list);
  }
}

void WaitingKinds::Walk::push_after(const List* list, const Entry& after) {
  auto it = list->upper_bound(after);
  if (it != list->end()) heads_.emplace(*it, list);
}

std::optional<WaitingKinds::Entry> WaitingKinds::Walk::next() {
  if (heads_.empty()) return std::nullopt;
  auto [entry, list] = *heads_.begin();
  heads_.erase(heads_.begin());
  // Its kind's next entry now: the caller may take this one out of the list.
  push_after(list, entry);
  last_ = entry;
  last_list_ = list;
  return entry;
}

void WaitingKinds::Walk::nothing_for_last() {
  // The kind's head, if any, is its entry after last_.
  auto it = last_list_->upper_bound(last_);
  if (it != last_list_->end()) heads_.erase({*it, last_list_});
  passed_.push_back(last_list_);
}

void WaitingKinds::Walk::placed() {
  for (const List* list : passed_)
    push_after(list, last_);
  passed_.clear();
}

} // namespace dlsim::gandiva

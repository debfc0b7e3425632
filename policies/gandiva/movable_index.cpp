// The movable groups' index (movable_index.h): sorted vectors with one entry per group, replaced
// in place (binary search) when the group changes.
#include "policies/gandiva/movable_index.h"

#include <algorithm>

namespace dlsim::gandiva {

namespace {

template <class T>
void insert_sorted(std::vector<T>& v, const T& x) {
  v.insert(std::lower_bound(v.begin(), v.end(), x), x);
}

template <class T>
void erase_sorted(std::vector<T>& v, const T& x) {
  auto it = std::lower_bound(v.begin(), v.end(), x);
  if (it != v.end() && *it == x) v.erase(it);
}

template <class T>
std::vector<T>& grow_to(std::vector<std::vector<T>>& v, std::size_t i) {
  if (v.size() <= i) v.resize(i + 1);
  return v[i];
}

} // namespace

void MovableIndex::set(std::uint32_t gid, const std::optional<MovableKey>& key) {
  if (key_.size() <= gid) key_.resize(gid + 1);
  if (const std::optional<MovableKey>& old = key_[gid]) {
    erase_sorted(on_node_[old->type][old->node],
                 OnNode{old->members, old->devices, gid, old->cls, old->slice});
    if (old->joinable)
      erase_sorted(joinable_[old->type],
                   Joinable{old->cls, old->devices, old->members, gid, old->node});
  }
  key_[gid] = key;
  if (!key) return;
  insert_sorted(grow_to(grow_to(on_node_, key->type), key->node),
                OnNode{key->members, key->devices, gid, key->cls, key->slice});
  if (key->joinable)
    insert_sorted(grow_to(joinable_, key->type),
                  Joinable{key->cls, key->devices, key->members, gid, key->node});
}

std::span<const MovableIndex::OnNode> MovableIndex::on_node(DeviceTypeId t, NodeId n) const {
  if (t >= on_node_.size() || n >= on_node_[t].size()) return {};
  return on_node_[t][n];
}

std::span<const MovableIndex::Joinable> MovableIndex::joinable(DeviceTypeId t, std::uint32_t cls,
                                                               std::uint32_t devices) const {
  if (t >= joinable_.size()) return {};
  const std::vector<Joinable>& all = joinable_[t];
  auto first = std::lower_bound(all.begin(), all.end(), Joinable{cls, devices, 0, 0, 0});
  auto last = std::lower_bound(first, all.end(), Joinable{cls, devices + 1, 0, 0, 0});
  return {all.data() + (first - all.begin()), static_cast<std::size_t>(last - first)};
}

void MovableIndex::joinable_classes(
    DeviceTypeId t, std::vector<std::pair<std::uint32_t, std::uint32_t>>& out) const {
  out.clear();
  if (t >= joinable_.size()) return;
  const std::vector<Joinable>& all = joinable_[t];
  // One binary search per class and size: from each, to the first entry of the next.
  for (auto it = all.begin(); it != all.end();
       it = std::lower_bound(it, all.end(), Joinable{it->cls, it->devices + 1, 0, 0, 0}))
    out.emplace_back(it->cls, it->devices);
}

} // namespace dlsim::gandiva

// Gandiva's group table: which devices each group reserves, who is in it.
#include "policies/gandiva/state.h"

#include <algorithm>

namespace dlsim::gandiva {

void State::ensure_sizes(const View& view) {
  room_ = view.config().max_timeslice_jobs;
  if (notes_.size() < view.job_count()) notes_.resize(view.job_count());
  if (device_group_.size() < view.cluster().devices.size()) {
    device_group_.resize(view.cluster().devices.size(), kNoGroup);
    cluster_ = &view.cluster();
    node_reserved_.assign(cluster_->nodes.size(), 0);
    node_classes_.assign(cluster_->nodes.size(), {});
    leavable_index.init(cluster_->nodes.size());
  }
}

void State::reserve(DeviceId d, std::uint32_t group, std::uint32_t cls) {
  device_group_[d] = group;
  const NodeId n = cluster_->devices[d].node;
  free_totals.mark(n);
  leavable_index.mark(n);
  ++node_reserved_[n];
  auto& classes = node_classes_[n];
  auto it =
      std::find_if(classes.begin(), classes.end(), [cls](const auto& c) { return c.first == cls; });
  if (it == classes.end()) {
    classes.emplace_back(cls, 1);
  } else {
    ++it->second;
  }
}

void State::unreserve(DeviceId d, std::uint32_t cls) {
  device_group_[d] = kNoGroup;
  const NodeId n = cluster_->devices[d].node;
  free_totals.mark(n);
  leavable_index.mark(n);
  --node_reserved_[n];
  auto& classes = node_classes_[n];
  auto it =
      std::find_if(classes.begin(), classes.end(), [cls](const auto& c) { return c.first == cls; });
  if (--it->second == 0) classes.erase(it);
}

std::uint32_t State::create_group(std::vector<DeviceId> devices, std::uint32_t cls,
                                  DeviceTypeId type, Mode mode) {
  std::uint32_t id = next_group_++;
  Group& g = groups.add(id);
  g.cls = cls;
  g.type = type;
  g.mode = mode;
  set_devices(id, std::move(devices));
  touch(id);
  return id;
}

void State::join(std::uint32_t g, JobId j) {
  groups.at(g).members.push_back(j);
  ask(groups.at(g).cls, +1);
  notes_[j].group = g;
  touch(g);
}

void State::leave(JobId j) {
  std::uint32_t id = notes_[j].group;
  if (id == kNoGroup) return;
  notes_[j].group = kNoGroup;
  touch(id);
  Group& g = groups.at(id);
  ask(g.cls, -1);
  auto it = std::find(g.members.begin(), g.members.end(), j);
  auto index = static_cast<std::size_t>(it - g.members.begin());
  g.members.erase(it);
  if (g.turn > index) --g.turn; // keep the turn pointing at the same next member
  if (g.active == j) g.active.reset();
  if (g.leaving == j) g.leaving.reset();
  if (g.members.empty()) {
    for (DeviceId d : g.devices)
      unreserve(d, g.cls);
    totals_.by_class[g.cls].held -= g.devices.size();
    if (g.open_load != Group::kNotOpen) open_[g.cls].erase({g.open_load, id});
    groups.erase(id);
  }
}

void State::set_devices(std::uint32_t id, std::vector<DeviceId> devices) {
  Group& g = groups.at(id);
  ++version_;
  index_marks_.mark(id);
  for (Marks& m : watches_)
    m.mark(id); // a walk's test may read the devices, or `grown`, which changes with them
  for (DeviceId d : g.devices)
    unreserve(d, g.cls);
  ClassTotals::OfClass& of_class = totals_.by_class[g.cls];
  of_class.held -= g.devices.size();
  g.devices = std::move(devices);
  of_class.held += g.devices.size();
  for (DeviceId d : g.devices)
    reserve(d, id, g.cls);
}

void State::read_job_log(const View& view) {
  const ChangeLog& log = view.changes().jobs;
  if (log_stamp_ == log.stamp()) return;
  // A job that moved to another group since it was marked left one and joined the other, and
  // both were touched: marking the group it is in now is enough.
  const bool logged = log.for_each_since(log_stamp_, [&](std::uint32_t j) {
    if (j < notes_.size() && notes_[j].group != kNoGroup) touch(notes_[j].group);
  });
  if (!logged) {
    for (const auto& [gid, g] : groups)
      touch(gid);
  }
  log_stamp_ = log.stamp();
}

void State::update_open(Group& g) {
  std::size_t load = Group::kNotOpen;
  if (g.members.size() < room_ && (g.mode == Mode::kSlice || g.members.size() == 1))
    load = 2 * g.members.size() + (g.mode == Mode::kPack ? 1 : 0);
  if (load == g.open_load) return;
  OpenGroups& open = open_[g.cls];
  if (g.open_load != Group::kNotOpen) open.erase({g.open_load, g.id});
  g.open_load = load;
  if (load != Group::kNotOpen) open.emplace(load, g.id);
}

const State::OpenGroups& State::open_groups(std::uint32_t cls) {
  // A group erased since it was marked left the lists then (leave).
  for (std::uint32_t g : open_marks_.list) {
    open_marks_.flag[g] = 0;
    if (Group* live = groups.find_live(g)) update_open(*live);
  }
  open_marks_.list.clear();
  static const OpenGroups none;
  auto it = open_.find(cls);
  return it == open_.end() ? none : it->second;
}

std::uint64_t State::groups_stamp(const View& view) {
  const ChangeLog& log = view.changes().jobs;
  if (version_log_stamp_ == log.stamp()) return version_;
  // A job that left or joined a group since it was marked touched that group; a job in no group
  // now is read by nobody who reads the groups.
  bool member_changed = false;
  const bool logged = log.for_each_since(version_log_stamp_, [&](std::uint32_t j) {
    if (j < notes_.size() && notes_[j].group != kNoGroup) member_changed = true;
  });
  if (member_changed || !logged) ++version_;
  version_log_stamp_ = log.stamp();
  return version_;
}

std::vector<std::uint32_t>& State::take(const View& view, Marks& marks,
                                        std::vector<std::uint32_t>& out) {
  take_all(view, marks, out);
  std::erase_if(out, [&](std::uint32_t g) { return groups.find_live(g) == nullptr; });
  return out;
}

std::vector<std::uint32_t>& State::take_all(const View& view, Marks& marks,
                                            std::vector<std::uint32_t>& out) {
  read_job_log(view);
  out.clear();
  for (std::uint32_t g : marks.list) {
    marks.flag[g] = 0;
    out.push_back(g);
  }
  marks.list.clear();
  return out;
}

std::vector<std::uint32_t>& State::take_settle_groups(const View& view) {
  std::vector<std::uint32_t>& out = take(view, settle_, settle_visit_);
  for (std::uint32_t g : settle_keep) {
    if (groups.find_live(g) != nullptr) out.push_back(g);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

double slice_efficiency(const View& view, const Options& opt) {
  // Gandiva performs the switches itself and times them; check_config refuses a slice not
  // longer than the switch.
  return 1.0 - view.config().costs.switch_s / opt.slice_s;
}

bool is_parked(JobStatus s) {
  return s == JobStatus::kPending || s == JobStatus::kSuspended;
}

bool all_running(const View& view, const Group& g) {
  return !g.members.empty() && std::all_of(g.members.begin(), g.members.end(), [&](JobId m) {
    return view.state(m).status == JobStatus::kRunning;
  });
}

bool on_one_node(const View& view, const std::vector<DeviceId>& devices) {
  auto node = [&](DeviceId d) { return view.cluster().devices[d].node; };
  return std::all_of(devices.begin(), devices.end(),
                     [&](DeviceId d) { return node(d) == node(devices[0]); });
}

} // namespace dlsim::gandiva

// Group placement: new groups, joins, and re-placing members after a mode change.
#include "policies/gandiva/groups.h"

#include "policies/gandiva/affinity.h"

#include <algorithm>

namespace dlsim::gandiva {

namespace {

// Slice mode: every holder is a member taking turns with the same slice, and there is room.
bool slice_ready(const View& view, const State& st, std::uint32_t gid, const Group& g) {
  for (DeviceId d : g.devices) {
    const DeviceSlot& slot = view.device(d);
    if (slot.count >= view.config().max_timeslice_jobs) return false;
    for (unsigned k = 0; k < slot.count; ++k) {
      const JobState& h = view.state(slot.jobs[k]);
      if (st.group_of(slot.jobs[k]) != gid || !h.sliced ||
          view.slice_s(slot.jobs[k]) != st.opt.slice_s)
        return false;
    }
  }
  return true;
}

// The devices of a group joinable by a job with `dpw` devices per worker: each worker's
// devices on one node.
bool shaped_for(const View& view, const Group& g, std::uint32_t dpw) {
  if (g.devices.size() % dpw != 0) return false;
  for (std::size_t i = 0; i < g.devices.size(); ++i) {
    if (view.cluster().devices[g.devices[i]].node !=
        view.cluster().devices[g.devices[i - i % dpw]].node)
      return false;
  }
  return true;
}

} // namespace

bool place_member(Control& control, State& st, std::uint32_t gid, JobId j) {
  const Group& g = st.groups.at(gid);
  if (!is_parked(control.state(j).status)) return false;
  if (!resources_fit(control, j, g.devices)) return false;
  if (g.mode == Mode::kPack) {
    // Whatever the holders, the runtime's own check for a pack says whether it would pass.
    for (DeviceId d : g.devices) {
      const DeviceSlot& slot = control.device(d);
      for (unsigned k = 0; k < slot.count; ++k) {
        if (st.group_of(slot.jobs[k]) != gid) return false;
      }
    }
    if (control.check_start(j, g.devices, true)) return false;
    control.pack(j, g.devices);
    return true;
  }
  if (!slice_ready(control, st, gid, g)) return false;
  control.timeslice(j, g.devices, st.opt.slice_s);
  return true;
}

void start_group(Control& control, State& st, JobId j, std::vector<DeviceId> devices) {
  DeviceTypeId type = control.cluster().devices[devices[0]].type;
  std::uint32_t gid = st.create_group(devices, control.request(j).devices(), type, Mode::kSlice);
  st.join(gid, j);
  control.timeslice(j, devices, st.opt.slice_s);
  if (st.opt.exact_slices) {
    st.groups.at(gid).active = j;
    st.groups.at(gid).turn = 1; // the next member to join runs next
  }
}

bool can_join(const View& view, const Group& g, JobId j) {
  const JobRequest& req = view.request(j);
  if (g.grown || g.converting) return false;
  // A pack group whose partner left holds one packed job: it can go back to time-slicing.
  if (g.mode == Mode::kPack &&
      (g.members.size() != 1 || view.state(g.members[0]).status != JobStatus::kRunning)) {
    return false;
  }
  if (g.cls != req.devices() || g.members.size() >= view.config().max_timeslice_jobs) return false;
  auto types = view.compatible_types(j);
  if (std::find(types.begin(), types.end(), g.type) == types.end()) return false;
  return shaped_for(view, g, req.devices_per_worker) && resources_fit(view, j, g.devices);
}

bool join_least_loaded(Control& control, State& st, JobId j) {
  // Load balancing: the group with the fewest members, the oldest on ties; a lone packed job
  // only when no slice group of the same load is open, since it must be suspended first. The
  // groups of its class it may join are listed by that order (State::open_groups): the first
  // that can_join passes.
  std::uint32_t best = kNoGroup;
  for (const auto& [load, gid] : st.open_groups(control.request(j).devices())) {
    if (can_join(control, st.groups.at(gid), j)) {
      best = gid;
      break;
    }
  }
  if (best == kNoGroup) return false;
  Group& g = st.groups.at(best);
  if (st.opt.exact_slices) {
    st.join(best, j); // waits for its turn: the rotation places it
    return true;
  }
  if (g.mode == Mode::kPack) {
    change_mode(control, st, g, Mode::kSlice);
    st.join(best, j); // placed with the other member once it is off the devices
    settle_parked(control, st);
    return true;
  }
  if (!place_member(control, st, best, j)) return false;
  st.join(best, j);
  return true;
}

void change_mode(Control& control, State& st, Group& g, Mode mode) {
  g.mode = mode;
  g.converting = true;
  st.touch(g.id);
  for (JobId m : g.members) {
    JobStatus s = control.state(m).status;
    if (s == JobStatus::kRunning || s == JobStatus::kStarting)
      control.suspend(m, "group changes sharing mode");
  }
}

void settle_parked(Control& control, State& st) {
  // A group with no member parked or being suspended that is not converting is left as it is:
  // only the others are visited, in id order as a walk of every group would. A group joins
  // them when a member's status changes (the runtime's job log) or the group changes
  // (State::touch), and stays while it has such a member or converts.
  std::vector<std::uint32_t>& visit = st.take_settle_groups(control);
  st.settle_keep.clear();
  for (std::uint32_t gid : visit) {
    Group& g = st.groups.at(gid);
    bool all_placed = true;
    bool keep = false;
    // place_member changes no group: the members can be read in place.
    for (JobId m : g.members) {
      JobStatus s = control.state(m).status;
      if (is_parked(s) && !place_member(control, st, gid, m)) all_placed = false;
      if (s == JobStatus::kSuspending) all_placed = false;
      const JobStatus now = control.state(m).status;
      keep = keep || is_parked(now) || now == JobStatus::kSuspending;
    }
    if (all_placed && g.converting) {
      g.converting = false;
      st.touch(gid);
    }
    if (keep || g.converting) st.settle_keep.push_back(gid);
  }
}

} // namespace dlsim::gandiva

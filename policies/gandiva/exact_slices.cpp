// Exact time slices: one member of a group runs at a time, turns change by suspend and resume.
#include "policies/gandiva/exact_slices.h"

#include "policies/gandiva/groups.h"

#include <algorithm>

namespace dlsim::gandiva {

namespace {

bool holds_devices(JobStatus s) {
  return s == JobStatus::kStarting || s == JobStatus::kRunning || s == JobStatus::kMigrating ||
         s == JobStatus::kResizing;
}

bool another_waits(const View& view, const Group& g) {
  return std::any_of(g.members.begin(), g.members.end(),
                     [&](JobId m) { return m != g.active && is_parked(view.state(m).status); });
}

} // namespace

void rotate_slices(Control& control, State& st) {
  const SimTime now = control.now();
  for (auto& [gid, g] : st.groups) {
    if (g.mode != Mode::kSlice) continue;
    if (g.leaving && control.state(*g.leaving).status != JobStatus::kSuspending) g.leaving.reset();
    if (g.active && !holds_devices(control.state(*g.active).status)) g.active.reset();
    if (g.members.size() < 2) {
      g.slice_end = kNever;
    } else if (g.active && g.slice_end == kNever) {
      g.slice_end = now + from_seconds(st.opt.slice_s); // a second member just joined
    }
    // The slice is over: suspend at the mini-batch boundary; the next member starts once the
    // checkpoint is written and the devices are free.
    if (g.active && now >= g.slice_end && control.state(*g.active).status == JobStatus::kRunning &&
        another_waits(control, g)) {
      control.suspend(*g.active, "time slice over");
      if (control.state(*g.active).status == JobStatus::kSuspending) g.leaving = g.active;
      g.active.reset();
      g.switch_began = now;
    }
    if (g.active || g.leaving) continue;
    for (std::size_t step = 0; step < g.members.size(); ++step) {
      std::size_t idx = (g.turn + step) % g.members.size();
      JobId m = g.members[idx];
      if (!is_parked(control.state(m).status)) continue;
      if (!place_member(control, st, gid, m)) break;
      g.active = m;
      g.turn = (idx + 1) % g.members.size();
      // A slice counts from the start of the switch that began it, so that a cycle of k turns
      // lasts k slices, switches included (the fluid share is 1/k less switch_s per slice).
      SimTime base = g.switch_began >= 0 ? g.switch_began : now;
      g.slice_end = g.members.size() >= 2 ? base + from_seconds(st.opt.slice_s) : kNever;
      g.switch_began = -1;
      break;
    }
  }
}

SimTime next_slice_end(const View& view, const State& st) {
  SimTime next = kNever;
  for (const auto& [gid, g] : st.groups) {
    if (!g.active || g.members.size() < 2 || g.slice_end <= view.now()) continue;
    if (view.state(*g.active).status != JobStatus::kRunning) continue;
    next = std::min(next, g.slice_end);
  }
  return next;
}

} // namespace dlsim::gandiva

// Gandiva's bookkeeping (Xiao et al., "Gandiva: Introspective Cluster Scheduling for Deep
// Learning", OSDI'18): its parameters, the device groups jobs share, and what it has measured.
#pragma once

#include "policies/gandiva/defrag_memo.h"
#include "policies/gandiva/free_totals.h"
#include "policies/gandiva/leavable_index.h"
#include "policies/gandiva/movable_index.h"
#include "policies/gandiva/spread_index.h"
#include "policies/gandiva/waiting_kinds.h"
#include "sim/runtime/view.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <iterator>
#include <map>
#include <optional>
#include <queue>
#include <set>
#include <stdexcept>
#include <utility>
#include <vector>

namespace dlsim::gandiva {

// Built from the resolved parameters (gandiva.cpp); the defaults are declared in
// gandiva_policy() only.
struct Options {
  double slice_s = 0;         // time slice of over-subscribed devices
  bool exact_slices = false;  // emit every slice (suspend/resume) instead of the fluid share
  bool packing = false;       // try co-locating pairs, keep them only if measured better
  double pack_util_limit = 0; // only pairs whose summed GPU utilization is at most this
  bool migration = false;     // spread, defragment and improve locality by migrating
  bool grow_shrink = false;   // grow elastic jobs on idle devices, shrink them when jobs wait
};

constexpr std::uint32_t kNoGroup = 0xffffffffU;

// How the members of a group share its devices.
enum class Mode : std::uint8_t {
  kSlice, // take turns (Control::timeslice, or suspend/resume in exact mode)
  kPack,  // run at once (Control::pack), kept only while introspection says it pays
};

// A set of devices shared by jobs of one GPU-count class: Gandiva's unit of time-slicing,
// packing and migration. Every placed member holds exactly `devices`.
struct Group {
  std::uint32_t id = 0;          // its key in State::groups
  std::vector<DeviceId> devices; // worker-major, as the members hold them
  std::uint32_t cls = 0;         // devices each member requested
  DeviceTypeId type = 0;
  Mode mode = Mode::kSlice;
  std::vector<JobId> members; // join order; the turn order in exact mode
  bool grown = false;         // its single member was resized above its request
  bool converting = false;    // members are being suspended to change the mode
  bool pack_trial = false;    // packed, not judged by introspection yet
  // Exact slices: the member that holds the devices, the one being switched out, the slice end.
  std::optional<JobId> active;
  std::optional<JobId> leaving;
  std::size_t turn = 0; // index in members of the next to run (modulo their number)
  // Its load in State::open_groups while listed there, else kNotOpen.
  static constexpr std::size_t kNotOpen = static_cast<std::size_t>(-1);
  std::size_t open_load = kNotOpen;
  SimTime slice_end = kNever;
  SimTime switch_began = -1;
};

// The live groups by id, in id (creation) order: a vector of (id, group) sorted by id, which
// every decision walks several times (a map's node hops would be a quarter of a Philly replay).
// Ids only grow, so a new group goes at the end; a group's slot is kept by id, so a lookup is
// O(1) (a binary search would be most of improve_locality at 1M jobs). An erased group's slot is
// marked and skipped, and the slots are compacted once as many are erased as live (moving every
// later group at each erase would be a fifth of a 100,000-job replay): no caller holds a group or
// an iterator across State::leave or create_group.
class GroupTable {
public:
  using Entry = std::pair<std::uint32_t, Group>;

private:
  // Walks the live slots in id order.
  template <class Table, class Value>
  class Walk {
  public:
    Walk(Table* t, std::size_t i) : t_(t), i_(i) { skip(); }
    Value& operator*() const { return t_->entries_[i_]; }
    Walk& operator++() {
      ++i_;
      skip();
      return *this;
    }
    bool operator==(const Walk& o) const { return i_ == o.i_; }

  private:
    void skip() {
      while (i_ < t_->entries_.size() && t_->erased_[i_])
        ++i_;
    }
    Table* t_;
    std::size_t i_;
  };

  // The slot of group id, live or erased; entries_.size() when there is none.
  [[nodiscard]] std::size_t slot(std::uint32_t id) const {
    if (id >= slot_of_.size() || slot_of_[id] == kNoSlot) return entries_.size();
    return slot_of_[id];
  }
  [[nodiscard]] std::size_t live_slot(std::uint32_t id) const {
    std::size_t i = slot(id);
    if (i == entries_.size() || erased_[i]) throw std::out_of_range("gandiva: no such group");
    return i;
  }

public:
  [[nodiscard]] auto begin() { return Walk<GroupTable, Entry>(this, 0); }
  [[nodiscard]] auto end() { return Walk<GroupTable, Entry>(this, entries_.size()); }
  [[nodiscard]] auto begin() const { return Walk<const GroupTable, const Entry>(this, 0); }
  [[nodiscard]] auto end() const {
    return Walk<const GroupTable, const Entry>(this, entries_.size());
  }
  [[nodiscard]] Group& at(std::uint32_t id) { return entries_[live_slot(id)].second; }
  [[nodiscard]] const Group& at(std::uint32_t id) const { return entries_[live_slot(id)].second; }
  // Ids must grow from one add to the next.
  Group& add(std::uint32_t id) {
    if (id >= slot_of_.size()) slot_of_.resize(id + 1, kNoSlot);
    slot_of_[id] = static_cast<std::uint32_t>(entries_.size());
    entries_.emplace_back(id, Group{});
    erased_.push_back(0);
    entries_.back().second.id = id;
    return entries_.back().second;
  }
  // The group with that id, or nullptr when it was deleted.
  [[nodiscard]] Group* find_live(std::uint32_t id) {
    std::size_t i = slot(id);
    return i == entries_.size() || erased_[i] ? nullptr : &entries_[i].second;
  }
  void erase(std::uint32_t id) {
    std::size_t i = live_slot(id);
    erased_[i] = 1;
    slot_of_[id] = kNoSlot;
    entries_[i].second = Group{}; // its vectors' storage goes now
    if (++erased_count_ * 2 < entries_.size()) return;
    std::size_t out = 0;
    for (std::size_t k = 0; k < entries_.size(); ++k) {
      if (erased_[k]) continue;
      if (out != k) entries_[out] = std::move(entries_[k]);
      slot_of_[entries_[out].first] = static_cast<std::uint32_t>(out);
      ++out;
    }
    entries_.resize(out);
    erased_.assign(out, 0);
    erased_count_ = 0;
  }

private:
  std::vector<Entry> entries_;
  std::vector<char> erased_; // [slot]
  std::size_t erased_count_ = 0;
  static constexpr std::uint32_t kNoSlot = 0xffffffffU;
  std::vector<std::uint32_t> slot_of_; // [group id] its slot, kNoSlot once erased
};

struct JobNote {
  std::uint32_t group = kNoGroup;
  std::uint32_t asked = 0; // devices it requested (set by add_waiting)
  double solo_rate = 0;    // iterations/s alone on its requested devices, from measurements
  bool waiting = false;    // in State::waiting
};

// Devices asked by the jobs in groups and waiting, in all and by GPU-count class, and held by
// each class's groups: the shares defragmentation compares (defrag.cpp, below_share), kept by
// State as jobs join, leave and wait and groups take devices, instead of counted at every plan.
// A group's members are of its class (they hold exactly its devices).
struct ClassTotals {
  struct OfClass {
    std::uint64_t asked = 0;
    std::uint64_t held = 0;
  };
  std::uint64_t asked = 0;
  std::map<std::uint32_t, OfClass> by_class;
};

class State {
public:
  explicit State(Options o) : opt(o) {}

  Options opt;
  GroupTable groups;                                 // by id: creation order
  std::set<std::pair<std::uint64_t, JobId>> waiting; // arrived, in no group: arrival order
  std::set<std::pair<JobId, JobId>> rejected_pairs;  // packed once, measured worse
  // Sliced pairs that may pack but for their utilization, not measured yet: (when the profiler
  // will know both (View::profiled_at), group), earliest first; a group may be listed more than
  // once. A decision is asked for the earliest.
  std::priority_queue<std::pair<SimTime, std::uint32_t>,
                      std::vector<std::pair<SimTime, std::uint32_t>>, std::greater<>>
      profiling;

  void ensure_sizes(const View& view);
  JobNote& note(JobId j) { return notes_[j]; }
  [[nodiscard]] const JobNote& note(JobId j) const { return notes_[j]; }
  [[nodiscard]] std::uint32_t group_of(JobId j) const {
    return j < notes_.size() ? notes_[j].group : kNoGroup;
  }
  // The group reserving device d, or kNoGroup.
  [[nodiscard]] std::uint32_t holder_group(DeviceId d) const { return device_group_[d]; }
  // Per-node summary of the reservations, kept by set_devices and leave: devices of node n that
  // groups reserve, and of those, how many groups of each GPU-count class reserve. Affinity
  // ranks and free-device counts read it instead of scanning the node's devices.
  [[nodiscard]] std::uint32_t reserved_on(NodeId n) const { return node_reserved_[n]; }
  [[nodiscard]] const std::vector<std::pair<std::uint32_t, std::uint32_t>>&
  classes_on(NodeId n) const {
    return node_classes_[n];
  }

  std::uint32_t create_group(std::vector<DeviceId> devices, std::uint32_t cls, DeviceTypeId type,
                             Mode mode);
  void join(std::uint32_t g, JobId j);
  // Removes j from its group; an empty group is deleted and its devices unreserved.
  void leave(JobId j);
  void set_devices(std::uint32_t g, std::vector<DeviceId> devices);
  void add_waiting(const View& view, JobId j) {
    const std::uint32_t asked = view.request(j).devices();
    waiting_kinds_.add(kind_of(view.request(j)), {seq_, j});
    waiting.emplace(seq_++, j);
    notes_[j].waiting = true;
    notes_[j].asked = asked;
    ask(asked, +1);
    for (DeviceTypeId t : view.compatible_types(j))
      waiting_demand_[t] += asked;
  }
  // Takes j out of `waiting` (the entry `it` points to).
  void stop_waiting(const View& view, std::set<std::pair<std::uint64_t, JobId>>::iterator it) {
    JobNote& n = notes_[it->second];
    n.waiting = false;
    ask(n.asked, -1);
    for (DeviceTypeId t : view.compatible_types(it->second))
      waiting_demand_[t] -= n.asked;
    waiting_kinds_.erase(kind_of(view.request(it->second)), *it);
    waiting.erase(it);
  }
  // `waiting` by kind, for the walk over it (waiting_kinds.h).
  [[nodiscard]] const WaitingKinds& waiting_kinds() const { return waiting_kinds_; }
  // Devices the waiting jobs ask for, per device type they could use (a job's types never
  // change): kept as jobs start and stop waiting, not summed over the queue at each decision. A
  // type may be listed with 0.
  [[nodiscard]] const std::map<DeviceTypeId, std::size_t>& waiting_demand() const {
    return waiting_demand_;
  }
  [[nodiscard]] const ClassTotals& class_totals() const { return totals_; }
  // The groups of class cls with fewer members than runtime.max_timeslice_jobs, time-sliced or
  // packed with one member: the only ones a waiting job of that class may join (can_join). As
  // (load, id), least first, the load being 2 x members, + 1 when packed (a packed job must be
  // suspended first). Brought up to date from the groups touched since the last call (a join,
  // a leave and a mode change each touch), so that a join does not walk every group.
  using OpenGroups = std::set<std::pair<std::size_t, std::uint32_t>>;
  const OpenGroups& open_groups(std::uint32_t cls);

  // Group g's members, mode or `converting` changed: record_rates, settle_parked, open_groups
  // and every groups_where list read it again. Together with the jobs the runtime marks
  // (View::changes().jobs), these are every group whose solo rates, parked members or tests
  // could come out differently from the last time a reader looked.
  void touch(std::uint32_t g) {
    ++version_;
    index_marks_.mark(g);
    open_marks_.mark(g);
    rates_.mark(g);
    settle_.mark(g);
    for (Marks& m : watches_)
      m.mark(g);
  }
  // The groups touched since the last call, and those of the jobs the runtime marked since
  // then, each once (every live group after the job log started over); clears the marks.
  std::vector<std::uint32_t>& take_rate_groups(const View& view) {
    return take(view, rates_, rates_visit_);
  }
  // The same for settle_parked (its own marks), in increasing id order.
  std::vector<std::uint32_t>& take_settle_groups(const View& view);
  // A number that grows whenever a group changed (touch, set_devices) or the runtime marked a
  // job that is in a group (its status, devices or rate), since the last call: equal answers
  // mean that nothing read of the groups and their members' runtime state has changed.
  std::uint64_t groups_stamp(const View& view);
  // Defragmentation plans that found nothing (defrag.cpp).
  FailedPlans failed_plans;
  // Free devices per type that no group reserves (spreading's count), kept from the changes.
  FreeTotals free_totals;
  // The groups spreading may take a member out of, by the member's kind (migration.cpp).
  SpreadIndex spread_index;
  // The movable groups as defragmentation plans read them (refresh_movable_index, plan_index.h).
  MovableIndex movable_index;
  // Per node, at most how many devices a plan could free there (leavable_index.h), kept from
  // the reservations, the movable index and the runtime's node log.
  LeavableIndex leavable_index;
  // The groups touched, given other devices (set_devices) or marked by the job log since the
  // last call, each once, erased ones included; clears the marks.
  std::vector<std::uint32_t>& take_index_groups(const View& view) {
    return take_all(view, index_marks_, index_visit_);
  }

  // Groups settle_parked must visit next time whatever changes: members still parked or being
  // suspended, or still converting. Kept sorted by settle_parked.
  std::vector<std::uint32_t> settle_keep;

  // The live groups g for which test(view, g) holds, in id order: what a walk over every group
  // that skips the others would visit. `test` may read only the group (members, mode, flags,
  // devices), its members' runtime state (status, devices, workers, rate), what record_rates
  // writes, and what never changes; and a group must never start to pass it without a touch or
  // a job log mark of a member (a change that makes it fail needs neither). Then the answer is
  // the last one's groups that still pass plus the groups marked since that pass: O(answer +
  // marks) instead of O(groups). Each walk has its own list (`watch`); one walk's actions must
  // not change the test of the groups it has not reached yet.
  enum Watch : std::uint8_t { kJudge, kPack, kSpread, kLocality, kGrow, kGrown, kWatches };
  template <class Test>
  const std::vector<std::uint32_t>& groups_where(const View& view, Watch watch, Test&& test) {
    std::vector<std::uint32_t>& marked = take(view, watches_[watch], marked_);
    std::sort(marked.begin(), marked.end());
    std::vector<std::uint32_t>& kept = passed_[watch];
    merged_.clear();
    std::set_union(kept.begin(), kept.end(), marked.begin(), marked.end(),
                   std::back_inserter(merged_));
    kept.clear();
    for (std::uint32_t id : merged_) {
      const Group* g = groups.find_live(id);
      if (g != nullptr && test(view, *g)) kept.push_back(id);
    }
    return kept;
  }

  // The groups marked for `watch` since the last call (touched, given other devices, or with a
  // member in the job log), erased ones included, each once; clears the marks. For a reader that
  // keeps its own answer per group instead of calling groups_where.
  std::vector<std::uint32_t>& take_marked(const View& view, Watch watch) {
    return take_all(view, watches_[watch], marked_);
  }

private:
  std::vector<JobNote> notes_;
  ClassTotals totals_;
  std::map<DeviceTypeId, std::size_t> waiting_demand_;
  WaitingKinds waiting_kinds_;
  std::map<std::uint32_t, OpenGroups> open_; // open_groups, by class
  std::size_t room_ = 0;                     // runtime.max_timeslice_jobs
  void update_open(Group& g);
  // A job of class cls starts (+1) or stops (-1) asking for its devices.
  void ask(std::uint32_t cls, int sign) {
    totals_.asked += sign * static_cast<std::int64_t>(cls);
    totals_.by_class[cls].asked += sign * static_cast<std::int64_t>(cls);
  }
  std::vector<std::uint32_t> device_group_;
  void reserve(DeviceId d, std::uint32_t group, std::uint32_t cls);
  void unreserve(DeviceId d, std::uint32_t cls);
  const Cluster* cluster_ = nullptr;
  std::vector<std::uint32_t> node_reserved_; // [node] reserved devices
  // [node] (class, reserved devices) for each class with some, in first-reserved order
  std::vector<std::vector<std::pair<std::uint32_t, std::uint32_t>>> node_classes_;
  std::uint32_t next_group_ = 0;
  std::uint64_t seq_ = 0;
  // Groups marked for one reader, each once.
  struct Marks {
    std::vector<std::uint32_t> list;
    std::vector<char> flag; // [group id] in list
    void mark(std::uint32_t g) {
      if (g >= flag.size()) flag.resize(g + 1, 0);
      if (flag[g]) return;
      flag[g] = 1;
      list.push_back(g);
    }
  };
  // Marks, for every reader, the groups of the jobs the job log marked since the last call
  // (every live group when the log started over): one pass over the log, not one per reader.
  void read_job_log(const View& view);
  std::uint64_t log_stamp_ = 0;
  std::uint64_t version_ = 0;           // groups_stamp's answer
  std::uint64_t version_log_stamp_ = 0; // the job log's stamp at its last call
  std::vector<std::uint32_t>& take(const View& view, Marks& marks, std::vector<std::uint32_t>& out);
  // The same, erased groups included.
  std::vector<std::uint32_t>& take_all(const View& view, Marks& marks,
                                       std::vector<std::uint32_t>& out);
  Marks rates_, settle_, open_marks_, index_marks_;
  // the takes' answers (storage kept)
  std::vector<std::uint32_t> rates_visit_, settle_visit_, index_visit_;
  Marks watches_[kWatches];
  std::vector<std::uint32_t> passed_[kWatches]; // groups_where's answers, sorted by id
  std::vector<std::uint32_t> marked_, merged_;  // its scratch (storage kept)
};

// Tests only: when set, called at the end of every decision with the policy's state, to compare
// what it keeps between decisions with the same computed afresh
// (tests/gandiva_kept_state_test.cpp). Whatever it calls must leave the policy's choices as they
// were.
inline void (*decision_probe)(const View& view, State& st) = nullptr;

// Fraction of a sliced device's time spent computing (one switch per slice): 1 - switch / slice,
// with the switch as Gandiva times its own suspend-and-resume of a turn (costs.switch_s).
double slice_efficiency(const View& view, const Options& opt);
// True when a job holds no devices and waits to be placed (never started, or suspended).
bool is_parked(JobStatus s);
// True when the group has members and every one of them is running (not in an action).
bool all_running(const View& view, const Group& g);
// True when every device is on the node of the first.
bool on_one_node(const View& view, const std::vector<DeviceId>& devices);

} // namespace dlsim::gandiva

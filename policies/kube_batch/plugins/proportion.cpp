// kube-batch / Volcano `proportion` plugin (pkg/scheduler/plugins/proportion/proportion.go, as in
// Volcano): each queue that has jobs deserves weight / total weight of the cluster, capped by its
// capability and by what its jobs ask for; what a capped queue leaves is shared again among the
// others by weight until nothing is left (water-filling). A queue holding at least what it
// deserves is overused (allocate skips it); a task may be allocated only within its queue's
// deserved share; what a queue holds beyond its share may be reclaimed by other queues; a job is
// admitted (enqueue) only while its queue's allocated + inqueue + its minimum fit the capability.
#include "policies/kube_batch/plugin.h"

#include <cmath>
#include <map>

namespace dlsim::kb {

namespace {

bool same(const Resources& a, const Resources& b) {
  return less_equal(a, b) && less_equal(b, a);
}

// Volcano's helpers.Share per dimension: allocated / deserved, 1 when something is held of a
// dimension the queue deserves none of.
double queue_share(const Resources& allocated, const Resources& deserved) {
  return dominant_share(allocated, deserved);
}

class Proportion final : public Plugin {
public:
  explicit Proportion(const PluginOptions& o) : Plugin(o) { PluginArguments args(options(), {}); }

  struct Attr {
    double weight = 1;
    Resources deserved, allocated, request, inqueue, elastic;
    Resources capability; // Volcano's realCapability: the spec's capability within the cluster
    double share = 0;
  };

  void on_session_open(const Session& s) override {
    attrs_.clear();
    auto attr = [&](std::uint32_t queue) -> Attr& {
      auto [it, fresh] = attrs_.try_emplace(queue);
      if (fresh) {
        const QueueInfo& q = s.queues()[queue];
        it->second.weight = q.weight;
        it->second.capability = min_each(q.capability, s.total());
      }
      return it->second;
    };
    // Each job's terms were computed when its entry was built (JobInfo::held and the rest):
    // held = task_req x (bound + running), asked = held + task_req x pending. The session
    // keeps their sums per queue when they are exact; else they are added in job order.
    if (const std::vector<QueueSums>* sums = s.queue_sums()) {
      for (std::uint32_t q = 0; q < sums->size(); ++q) {
        const QueueSums& sum = (*sums)[q];
        if (sum.jobs == 0) continue;
        Attr& a = attr(q);
        a.allocated = sum.held;
        a.request = sum.asked;
        a.inqueue = sum.inqueue_below_min;
        a.elastic = sum.above_min;
      }
    } else {
      for (const JobInfo& j : s.jobs()) {
        if (!j.live) continue;
        Attr& a = attr(j.queue);
        a.allocated += j.held;
        a.request += j.asked;
        if (j.inqueue) a.inqueue += j.below_min;
        a.elastic += j.above_min;
      }
    }
    fill_deserved(s.total());
    for (auto& [q, a] : attrs_)
      a.share = queue_share(a.allocated, a.deserved);
  }

  void on_allocate(const Session&, const JobInfo& j) override {
    Attr& a = attrs_.at(j.queue);
    a.allocated += j.task_req;
    a.share = queue_share(a.allocated, a.deserved);
  }
  void on_deallocate(const Session&, const JobInfo& j) override {
    Attr& a = attrs_.at(j.queue);
    a.allocated -= j.task_req;
    a.share = queue_share(a.allocated, a.deserved);
  }

  std::optional<int> queue_order(const Session&, std::uint32_t l, std::uint32_t r) const override {
    double ls = share_of(l);
    double rs = share_of(r);
    if (ls == rs) return 0;
    return ls < rs ? -1 : 1;
  }

  std::optional<bool> overused(const Session&, std::uint32_t queue) const override {
    auto it = attrs_.find(queue);
    return it != attrs_.end() && less_equal(it->second.deserved, it->second.allocated);
  }

  std::optional<bool> allocatable(const Session&, std::uint32_t queue,
                                  const JobInfo& j) const override {
    const Attr& a = attrs_.at(queue);
    return less_equal_in(a.allocated + j.task_req, a.deserved, j.task_req);
  }
  std::optional<bool> preemptive(const Session& s, std::uint32_t queue,
                                 const JobInfo& j) const override {
    return allocatable(s, queue, j);
  }

  std::optional<std::vector<TaskRef>>
  reclaimable(const Session& s, TaskRef, const std::vector<TaskRef>& cands) const override {
    std::map<std::uint32_t, Resources> allocated;
    std::vector<TaskRef> victims;
    for (const TaskRef& c : cands) {
      const JobInfo& j = s.job(c.job);
      const Attr& a = attrs_.at(j.queue);
      auto it = allocated.try_emplace(j.queue, a.allocated).first;
      if (!less_equal(it->second, a.deserved)) { // the queue holds more than it deserves
        it->second -= j.task_req;
        victims.push_back(c);
      }
    }
    return victims;
  }

  std::optional<int> job_enqueueable(const Session&, const JobInfo& j) const override {
    const Attr& a = attrs_.at(j.queue);
    Resources need = j.min_resources() + a.allocated + a.inqueue - a.elastic;
    return less_equal_in(need, a.capability, j.min_resources()) ? 1 : -1;
  }
  void on_job_enqueued(const Session&, const JobInfo& j) override {
    attrs_.at(j.queue).inqueue += j.min_resources();
  }

  [[nodiscard]] const std::map<std::uint32_t, Attr>& attrs() const { return attrs_; }

private:
  [[nodiscard]] double share_of(std::uint32_t q) const {
    auto it = attrs_.find(q);
    return it == attrs_.end() ? 0 : it->second.share;
  }

  // Water-filling of the cluster among the queues by weight, each capped by its capability and
  // its request (proportion.go, OnSessionOpen).
  void fill_deserved(const Resources& total) {
    Resources remaining = total;
    std::map<std::uint32_t, bool> met;
    for (int round = 0; round < 1000; ++round) {
      double total_weight = 0;
      for (const auto& [q, a] : attrs_) {
        if (!met[q]) total_weight += a.weight;
      }
      if (total_weight == 0) break;
      Resources before = remaining;
      Resources increased, decreased;
      for (auto& [q, a] : attrs_) {
        if (met[q]) continue;
        Resources old = a.deserved;
        a.deserved += remaining * (a.weight / total_weight);
        a.deserved = min_each(a.deserved, a.capability);
        a.deserved = min_each(a.deserved, a.request);
        if (less_equal(a.request, a.deserved) || same(a.deserved, old)) met[q] = true;
        increased += exceeded_part(a.deserved, old);
        decreased += exceeded_part(old, a.deserved);
      }
      remaining = exceeded_part(remaining + decreased, increased);
      if (is_empty(remaining) || same(remaining, before)) break;
    }
  }

  std::map<std::uint32_t, Attr> attrs_; // queues that have jobs in this session
};

} // namespace

std::unique_ptr<Plugin> make_proportion(const PluginOptions& o) {
  return std::make_unique<Proportion>(o);
}

} // namespace dlsim::kb

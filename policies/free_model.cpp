#include "policies/free_model.h"

#include "sim/cluster/fit.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace dlsim {
namespace {

// A multiple of 2^-10 of at most 2^20: up to 2^22 of them (kMaxExactTerms) sum to a multiple of
// 2^-10 of at most 2^42, which a double holds exactly, so any order of adding them gives the same
// bits. CPUs and memory are counts of cores and gigabytes, halves and quarters: they are.
constexpr std::uint64_t kMaxExactTerms = std::uint64_t{1} << 22;
bool exact_amount(double x) {
  const double scaled = std::ldexp(x, 10);
  return std::fabs(x) <= 0x1p20 && scaled == std::trunc(scaled);
}

} // namespace

void FreeModel::reset(const View& view) {
  const Cluster& c = view.cluster();
  const std::size_t nodes = c.nodes.size();
  view_ = &view;
  if (types_ != c.types.size() || dcpu_.size() != nodes) {
    types_ = c.types.size();
    dfree_.assign(nodes * types_, 0);
    dev_touched_.assign(nodes * types_, 0);
    dfree_sum_.assign(types_, 0);
    dcpu_.assign(nodes, 0.0);
    dmem_.assign(nodes, 0.0);
    host_mark_.assign(nodes, 0);
    host_touched_.clear();
    touched_by_type_.assign(types_, {});
  } else {
    clear();
  }
  in_trial_ = false;
  journal_.clear();
  for (JobId j : set_)
    in_set_[j] = 0;
  set_.clear();
  fixed_.clear();
  if (in_set_.size() < view.job_count()) in_set_.resize(view.job_count(), 0);
  if (amounts_.size() < view.job_count()) amounts_.resize(view.job_count());
  exact_ = fixed_exact_ = true;
  terms_ = fixed_terms_ = 0;
  cpu_up_ = mem_up_ = 0;
  host_max_.resize(types_);
  for (auto& m : host_max_)
    m.clear();
  untouched_.resize(types_);
  for (auto& u : untouched_)
    u.clear();
}

void FreeModel::clear() {
  for (std::size_t t = 0; t < types_; ++t) {
    touched_by_type_[t].for_each([&](std::uint64_t, NodeId n) {
      dfree_[n * types_ + t] = 0;
      dev_touched_[n * types_ + t] = 0;
    });
    touched_by_type_[t].clear();
    dfree_sum_[t] = 0;
  }
  for (NodeId n : host_touched_) {
    dcpu_[n] = 0.0;
    dmem_[n] = 0.0;
    host_mark_[n] = 0;
  }
  host_touched_.clear();
  // Every node is untouched again: the copies of the buckets are rebuilt when needed.
  for (auto& u : untouched_)
    u.clear();
}

const FreeModel::Amounts& FreeModel::amounts(JobId j) {
  Amounts& a = amounts_[j];
  if (a.exact == 0) {
    const RequestDetails& rd = view_->details(j);
    a.cpu = rd.cpus_per_worker;
    a.mem = rd.mem_gb_per_worker;
    a.per = view_->request(j).devices_per_worker;
    a.exact = exact_amount(a.cpu) && exact_amount(a.mem) ? 1 : 2;
  }
  return a;
}

bool FreeModel::exact_amounts(JobId j) {
  return amounts(j).exact == 1;
}

void FreeModel::release(JobId j) {
  if (in_trial_) {
    release_as(j, 1);
    return;
  }
  fixed_.push_back(j);
  fixed_exact_ = fixed_exact_ && exact_amounts(j);
  exact_ = exact_ && fixed_exact_;
  const std::uint64_t terms = release_as(j, 1);
  fixed_terms_ += terms;
  terms_ += terms;
}

void FreeModel::release_set(std::span<const JobId> jobs) {
  // By difference, the jobs of set_ not in jobs are put back and those of jobs not in set_
  // released; afresh, the fixed ones and jobs: whichever releases fewer jobs.
  std::size_t kept = 0;
  for (JobId j : jobs) {
    in_set_[j] |= 2;
    kept += in_set_[j] == 3 ? 1 : 0;
  }
  if (!exact_ || set_.size() >= fixed_.size() + 2 * kept) {
    release_fresh(jobs);
    return;
  }
  for (JobId j : set_) {
    if ((in_set_[j] & 2) == 0) {
      terms_ += release_as(j, -1);
      in_set_[j] = 0;
    }
  }
  for (JobId j : jobs) {
    if ((in_set_[j] & 1) == 0) {
      // A job whose amounts are not exact: afresh (which clears all this).
      if (!exact_amounts(j)) {
        set_.assign(jobs.begin(), jobs.end());
        release_fresh(jobs);
        return;
      }
      terms_ += release_as(j, 1);
    }
    in_set_[j] = 1;
  }
  set_.assign(jobs.begin(), jobs.end());
  // Too many terms to know the sums exact: afresh, in id order.
  if (terms_ > kMaxExactTerms) release_fresh(jobs);
}

void FreeModel::release_fresh(std::span<const JobId> jobs) {
  for (JobId j : set_)
    in_set_[j] = 0;
  // In the order given when every amount is exact; else (and when the terms were too many to
  // know it) in id order, as the values must be.
  exact_ = fixed_exact_ &&
           std::all_of(jobs.begin(), jobs.end(), [&](JobId j) { return exact_amounts(j); });
  for (int pass = 0; pass < 2; ++pass) {
    clear();
    for (JobId j : fixed_)
      release_as(j, 1);
    terms_ = fixed_terms_;
    sorted_.assign(jobs.begin(), jobs.end());
    if (!exact_) std::sort(sorted_.begin(), sorted_.end());
    for (JobId j : sorted_) {
      terms_ += release_as(j, 1);
      in_set_[j] = 1;
    }
    if (terms_ <= kMaxExactTerms || !exact_) break;
    exact_ = false;
  }
  set_.swap(sorted_);
}

void FreeModel::begin_trial() {
  journal_.clear();
  in_trial_ = true;
}

void FreeModel::rollback() {
  in_trial_ = false;
  for (auto e = journal_.rbegin(); e != journal_.rend(); ++e) {
    if (e->type == kHostEntry) {
      dcpu_[e->node] = e->cpu;
      dmem_[e->node] = e->mem;
    } else {
      change_dev(e->node, e->type, -e->delta);
    }
  }
  journal_.clear();
}

std::uint64_t FreeModel::release_as(JobId j, int sign) {
  const JobState& st = view_->state(j);
  const Amounts& a = amounts(j);
  const Cluster& c = view_->cluster();
  const double cpu = sign > 0 ? a.cpu : -a.cpu;
  const double mem = sign > 0 ? a.mem : -a.mem;
  // A job that asks for no CPUs or memory changes no node's (adding a zero changes no value).
  const bool host = cpu != 0.0 || mem != 0.0;
  // Devices on one node are usually next to each other: one change per run of them.
  std::uint64_t terms = 0;
  std::int64_t run = 0;
  const Device* run_of = nullptr;
  for (std::size_t i = 0; i < st.devices.size(); ++i) {
    const Device& d = c.devices[st.devices[i]];
    if (run_of != nullptr && (d.node != run_of->node || d.type != run_of->type)) {
      change_dev(run_of->node, run_of->type, sign * run);
      run = 0;
    }
    run_of = &d;
    ++run;
    if (host && i % a.per == 0) {
      change_host(d.node, cpu, mem);
      ++terms;
    }
  }
  if (run > 0) change_dev(run_of->node, run_of->type, sign * run);
  return terms;
}

std::int64_t FreeModel::free_dev(NodeId n, DeviceTypeId t) const {
  return view_->free().free_on(n, t) + dfree_[n * types_ + t];
}

std::int64_t FreeModel::total_dev(DeviceTypeId t) const {
  return view_->free().free(t) + dfree_sum_[t];
}

// Workers of `per` each that `have` holds, as fit() counts them (unbounded when per is 0).
double FreeModel::workers_by(double per, double have) {
  return per > 0 ? static_cast<double>(workers_in(have, per))
                 : std::numeric_limits<double>::infinity();
}

std::uint32_t FreeModel::fit(const JobRequest& r, NodeId n, DeviceTypeId t) const {
  std::int64_t dev = free_dev(n, t);
  if (dev <= 0) return 0;
  double cpu = view_->node_cpu_free(n) + dcpu_[n];
  double mem = view_->node_mem_free(n) + dmem_[n];
  // A host task asks for no device: its workers are bounded by cores and memory alone.
  std::uint32_t k = r.devices_per_worker > 0
                        ? static_cast<std::uint32_t>(dev / r.devices_per_worker)
                        : std::numeric_limits<std::uint32_t>::max();
  const RequestDetails& rd = view_->details_of(r);
  k = std::min(k, workers_in(cpu, rd.cpus_per_worker));
  return std::min(k, workers_in(mem, rd.mem_gb_per_worker));
}

void FreeModel::change_dev(NodeId n, DeviceTypeId t, std::int64_t delta) {
  if (delta == 0) return;
  if (in_trial_) journal_.push_back({n, t, delta, 0.0, 0.0});
  const std::size_t key = n * types_ + t;
  auto& touched = touched_by_type_[t];
  if (dev_touched_[key]) {
    touched.erase(static_cast<std::uint64_t>(free_dev(n, t)), n);
  } else {
    dev_touched_[key] = 1;
    if (!untouched_[t].empty()) {
      const std::uint32_t k = view_->free().free_on(n, t);
      if (k > 0) {
        auto& list = untouched_[t][k];
        auto it = std::lower_bound(list.begin(), list.end(), n);
        if (it != list.end() && *it == n) list.erase(it);
      }
    }
  }
  dfree_[key] += delta;
  dfree_sum_[t] += delta;
  if (dfree_[key] != 0) {
    touched.insert(static_cast<std::uint64_t>(free_dev(n, t)), n);
  } else {
    // Back to the runtime's count (a change undone): the node is the runtime's again.
    dev_touched_[key] = 0;
    untouch(n, t);
  }
}

void FreeModel::untouch(NodeId n, DeviceTypeId t) {
  if (untouched_[t].empty()) return;
  const std::uint32_t k = view_->free().free_on(n, t);
  if (k == 0) return;
  auto& list = untouched_[t][k];
  list.insert(std::lower_bound(list.begin(), list.end(), n), n);
}

void FreeModel::change_host(NodeId n, double cpu, double mem) {
  if (in_trial_) journal_.push_back({n, kHostEntry, 0, dcpu_[n], dmem_[n]});
  if (!host_mark_[n]) {
    host_mark_[n] = 1;
    host_touched_.push_back(n);
  }
  dcpu_[n] += cpu;
  dmem_[n] += mem;
  cpu_up_ = std::max(cpu_up_, dcpu_[n]);
  mem_up_ = std::max(mem_up_, dmem_[n]);
}

std::int64_t FreeModel::best_single(const JobRequest& r, DeviceTypeId t) const {
  const auto need = static_cast<std::int64_t>(r.workers) * r.devices_per_worker;
  std::int64_t best_free = std::numeric_limits<std::int64_t>::max();
  std::int64_t best_node = -1;
  // Nodes the model changed, fewest free devices first.
  const auto& touched = touched_by_type_[t];
  touched.find_from(static_cast<std::uint64_t>(need), [&](std::uint64_t k, NodeId n) {
    if (fit(r, n, t) < r.workers) return false;
    best_free = static_cast<std::int64_t>(k);
    best_node = n;
    return true;
  });
  // The others, from the runtime's buckets: only a node with fewer free devices, or as many
  // and a lower id, can beat the best changed node.
  const FreeIndex& free = view_->free();
  const auto first = static_cast<std::uint32_t>(std::max<std::int64_t>(need, 1));
  if (first > free.max_per_node(t)) return best_node;
  // No node there has the host CPUs or memory for the workers: the search below would find
  // none (a pod whose CPUs no node with enough free devices holds, in a burst of them).
  if (!host_max_[t].empty() && (workers_by(view_->details_of(r).cpus_per_worker,
                                           host_max_[t][first].first + cpu_up_) < r.workers ||
                                workers_by(view_->details_of(r).mem_gb_per_worker,
                                           host_max_[t][first].second + mem_up_) < r.workers))
    return best_node;
  std::size_t skipped = 0;
  auto scan = [&](std::uint32_t k, const auto& nodes) -> std::int64_t {
    for (NodeId n : nodes) {
      if (k == best_free && static_cast<std::int64_t>(n) > best_node) break;
      if (dev_touched_[n * types_ + t]) {
        ++skipped;
        continue;
      }
      if (fit(r, n, t) >= r.workers) return n;
    }
    return -1;
  };
  for (std::uint32_t k = first; k <= free.max_per_node(t) && k <= best_free; ++k) {
    std::int64_t n =
        untouched_[t].empty() ? scan(k, free.nodes_with(t, k)) : scan(k, untouched_[t][k]);
    if (n >= 0) return n;
  }
  // Many waiting jobs taken in one decision: the buckets fill with changed nodes, skipped by
  // every search. Copy them without those; change_dev() keeps the copy.
  if (skipped > kUntouchedAfter && untouched_[t].empty()) {
    untouched_[t].resize(free.max_per_node(t) + 1);
    for (std::uint32_t k = 1; k <= free.max_per_node(t); ++k) {
      for (NodeId n : free.nodes_with(t, k)) {
        if (!dev_touched_[n * types_ + t]) untouched_[t][k].push_back(n);
      }
    }
  }
  // A whole search failed: bound the next ones of this decision (this costs about one search).
  if (host_max_[t].empty()) {
    host_max_[t].assign(free.max_per_node(t) + 2, std::pair<double, double>{-1.0, -1.0});
    for (std::uint32_t k = free.max_per_node(t); k >= 1; --k) {
      auto m = host_max_[t][k + 1];
      for (NodeId n : free.nodes_with(t, k)) {
        m.first = std::max(m.first, view_->node_cpu_free(n));
        m.second = std::max(m.second, view_->node_mem_free(n));
      }
      host_max_[t][k] = m;
    }
  }
  return best_node;
}

bool FreeModel::take(JobId j) {
  const JobRequest& r = view_->request(j);
  const RequestDetails& rd = view_->details(j);
  const std::uint32_t dpw = r.devices_per_worker;
  for (DeviceTypeId t : view_->compatible_types(j)) {
    if (total_dev(t) < static_cast<std::int64_t>(r.workers) * dpw) continue;
    std::int64_t single = best_single(r, t);
    if (single >= 0) {
      auto n = static_cast<NodeId>(single);
      change_dev(n, t, -static_cast<std::int64_t>(r.workers) * dpw);
      change_host(n, -(r.workers * rd.cpus_per_worker), -(r.workers * rd.mem_gb_per_worker));
      return true;
    }
    // One worker needs one node: none holds it, so spreading cannot either.
    if (r.workers == 1) continue;
    if (spread(r, rd, t)) return true;
  }
  return false;
}

bool FreeModel::spread(const JobRequest& r, const RequestDetails& rd, DeviceTypeId t) {
  // The nodes by (free devices in the model, descending; id), each count's changed nodes merged
  // with the runtime's bucket less the changed ones, until the workers are placed: the order a
  // sort of every node that fits would give, read only as far as needed.
  cand_.clear();
  std::uint32_t left = r.workers;
  const FreeIndex& free = view_->free();
  const NodeBuckets& touched = touched_by_type_[t];
  const std::uint64_t top = std::max<std::uint64_t>(free.max_per_node(t), touched.counts());
  for (std::uint64_t k = top; k >= 1 && left > 0; --k) {
    changed_.clear();
    touched.find_from(k, [&](std::uint64_t count, NodeId n) {
      if (count != k) return true;
      changed_.push_back(n);
      return false;
    });
    auto take_node = [&](NodeId n) {
      if (std::uint32_t f = fit(r, n, t)) {
        const std::uint32_t w = std::min(left, f);
        cand_.emplace_back(static_cast<std::int64_t>(k), n, w);
        left -= w;
      }
      return left > 0;
    };
    std::size_t c = 0;
    if (k <= free.max_per_node(t)) {
      for (NodeId n : free.nodes_with(t, static_cast<std::uint32_t>(k))) {
        if (dev_touched_[n * types_ + t]) continue;
        for (; c < changed_.size() && changed_[c] < n; ++c) {
          if (!take_node(changed_[c])) break;
        }
        if (left == 0 || !take_node(n)) break;
      }
    }
    for (; c < changed_.size() && left > 0; ++c)
      take_node(changed_[c]);
  }
  if (left > 0) return false;
  for (const auto& [k, n, w] : cand_) {
    change_dev(n, t, -static_cast<std::int64_t>(w) * r.devices_per_worker);
    change_host(n, -(w * rd.cpus_per_worker), -(w * rd.mem_gb_per_worker));
  }
  return true;
}

} // namespace dlsim

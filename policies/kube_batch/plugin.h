// A kube-batch / Volcano plugin: the functions it registers with the session when it opens
// (framework/interface.go, session_plugins.go). A hook that returns nullopt is one the plugin
// does not register; the session then asks the next plugin, tier by tier.
#pragma once

#include "policies/kube_batch/session.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace dlsim::kb {

class Plugin {
public:
  explicit Plugin(PluginOptions options) : options_(std::move(options)) {}
  virtual ~Plugin() = default;
  [[nodiscard]] const PluginOptions& options() const { return options_; }

  // Builds the plugin's per-session state (shares, deserved quotas) from the snapshot.
  virtual void on_session_open(const Session& /*s*/) {}

  // Orders: negative when l comes first, 0 when this plugin cannot tell. job_order may read
  // only the two jobs' entries and state the plugin keeps per entry (refreshed for the entries
  // built again, Session::rebuilt): the session keeps the job order between sessions
  // (Session::pending_in_order).
  virtual std::optional<int> job_order(const Session&, const JobInfo&, const JobInfo&) const {
    return {};
  }
  virtual std::optional<int> queue_order(const Session&, std::uint32_t, std::uint32_t) const {
    return {};
  }
  virtual std::optional<int> task_order(const Session&, TaskRef, TaskRef) const { return {}; }

  virtual std::optional<bool> job_ready(const Session&, const JobInfo&) const { return {}; }
  // +1 permit, -1 reject, 0 abstain (Volcano's util.Permit / Reject / Abstain).
  virtual std::optional<int> job_pipelined(const Session&, const JobInfo&) const { return {}; }
  virtual std::optional<bool> job_starving(const Session&, const JobInfo&) const { return {}; }
  virtual std::optional<int> job_enqueueable(const Session&, const JobInfo&) const { return {}; }
  virtual void on_job_enqueued(const Session&, const JobInfo&) {}

  virtual std::optional<bool> overused(const Session&, std::uint32_t /*queue*/) const { return {}; }
  // May one more task of job j be given resources in its queue?
  virtual std::optional<bool> allocatable(const Session&, std::uint32_t, const JobInfo&) const {
    return {};
  }
  virtual std::optional<bool> preemptive(const Session&, std::uint32_t, const JobInfo&) const {
    return {};
  }

  // The candidates this plugin lets the preemptor (reclaimer) evict.
  virtual std::optional<std::vector<TaskRef>> preemptable(const Session&, TaskRef,
                                                          const std::vector<TaskRef>&) const {
    return {};
  }
  virtual std::optional<std::vector<TaskRef>> reclaimable(const Session&, TaskRef,
                                                          const std::vector<TaskRef>&) const {
    return {};
  }

  // False when a task of job j may not go on node n with devices of type t.
  virtual std::optional<bool> predicate(const Session&, const JobInfo&, const NodeInfo&,
                                        DeviceTypeId) const {
    return {};
  }
  // Higher is better; the session adds every plugin's score.
  virtual std::optional<double> node_score(const Session&, const JobInfo&, const NodeInfo&,
                                           DeviceTypeId) const {
    return {};
  }

  // One task of job j was given (or gave back) resources: AllocateFunc / DeallocateFunc.
  virtual void on_allocate(const Session&, const JobInfo&) {}
  virtual void on_deallocate(const Session&, const JobInfo&) {}

private:
  PluginOptions options_;
};

// The plugin's `arguments:` read strictly: unknown keys are errors naming the key path.
class PluginArguments {
public:
  // `keys`: the arguments the plugin reads; `prefixes`: families accepted as a whole
  // (e.g. "predicate." for switches of Kubernetes features dlsim does not model).
  PluginArguments(const PluginOptions& options, std::vector<std::string> keys,
                  std::vector<std::string> prefixes = {});
  [[nodiscard]] double number(const std::string& key, double fallback) const;
  [[nodiscard]] std::string text(const std::string& key, const std::string& fallback) const;
  [[nodiscard]] bool has(const std::string& key) const;

private:
  const PluginOptions& options_;
};

std::unique_ptr<Plugin> make_plugin(const PluginOptions& options);

// The factories, one per plugin file.
std::unique_ptr<Plugin> make_gang(const PluginOptions&);
std::unique_ptr<Plugin> make_priority(const PluginOptions&);
std::unique_ptr<Plugin> make_drf(const PluginOptions&);
std::unique_ptr<Plugin> make_proportion(const PluginOptions&);
std::unique_ptr<Plugin> make_predicates(const PluginOptions&);
std::unique_ptr<Plugin> make_nodeorder(const PluginOptions&);
std::unique_ptr<Plugin> make_binpack(const PluginOptions&);
std::unique_ptr<Plugin> make_overcommit(const PluginOptions&);
std::unique_ptr<Plugin> make_conformance(const PluginOptions&);

} // namespace dlsim::kb

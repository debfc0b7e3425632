// Policies by name: `policy.name`, `policy.params` and `dlsim list policies`. Each policy file
// declares its own PolicyEntry (name, description, parameters with type, default and doc, and
// the factory that builds its options from the resolved parameters); policy_list.cpp lists them.
// docs/adding-a-policy.md walks through adding one.
#pragma once

#include "policies/placement.h"
#include "sim/engine/rng.h"
#include "sim/runtime/policy.h"
#include "sim/workload/workload.h"

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dlsim {

// What a parameter's value must be; resolve_params checks it, so a policy's factory reads only
// well-typed values.
enum class ParamType : std::uint8_t {
  kNumber,  // PolicyParams::number
  kSeconds, // PolicyParams::seconds: a number of seconds, or a duration such as 30s, 2h, 7d
  kFlag,    // PolicyParams::flag: true or false
  kText,    // PolicyParams::text
  kNumbers, // PolicyParams::numbers: a list of numbers, or one number
  kYaml,    // any YAML, read by the policy itself (PolicyParams::node)
  // The path of a data file the policy parses itself (a trained predictor, docs/utilization.md;
  // automl's sessions, docs/gandiva.md). Policies do no file I/O: the caller
  // (sim/cli/policy_setup.cpp) reads its text into PolicySetup::data_files; an empty path means
  // none.
  kDataFile,
};

// The values a parameter may take beyond its type, declared with it: resolve_params checks them
// (naming policy.params.<key>) and `dlsim list policies` shows them, so no factory writes its own
// range check. Numbers (each number of a kNumbers list, in seconds for kSeconds) lie within
// [min, max], above min when `above_min`, and are whole when `whole`; a kNumbers list with
// `increasing` has each number above the one before it (tiresias' queue thresholds); a kText
// value is one of `choices` when any are given.
struct ParamRange {
  std::optional<double> min{};
  std::optional<double> max{};
  bool above_min = false;
  bool whole = false;
  bool increasing = false;
  std::vector<std::string> choices{};
};

struct ParamSpec {
  std::string key;
  ParamType type = ParamType::kText;
  std::string default_value; // as YAML text: the only place the default is written
  std::string doc;
  ParamRange range{};
};

// The declared range in words ("a whole number >= 1", "increasing numbers > 0", "one of: user,
// queue"); "" when none.
std::string describe_range(const ParamSpec& p);

// A policy's parameters after validation: every declared key present (defaults filled in),
// no undeclared key.
class PolicyParams {
public:
  PolicyParams(const YAML::Node& values, std::string policy)
      : values_(values), policy_(std::move(policy)) {}
  [[nodiscard]] double number(const std::string& key) const;
  // Seconds: a number, or a duration with a unit (30s, 90m, 2h, 7d; sim/engine/duration.h).
  [[nodiscard]] double seconds(const std::string& key) const;
  [[nodiscard]] bool flag(const std::string& key) const;
  [[nodiscard]] std::string text(const std::string& key) const;
  // A list of numbers (`[3600, 7200]`); a single number is a list of one, `[]` an empty list.
  [[nodiscard]] std::vector<double> numbers(const std::string& key) const;
  [[nodiscard]] const YAML::Node& values() const { return values_; }
  // The raw value of a declared key, for structured parameters (lists, mappings).
  [[nodiscard]] YAML::Node node(const std::string& key) const { return values_[key]; }

private:
  YAML::Node values_;
  std::string policy_;
};

struct PolicySetup {
  Placement placement = Placement::kConsolidate;
  PolicyParams params;
  std::uint64_t seed = 0; // the run's seed (`seed:`), for policy_rng
  // The text of each kDataFile parameter's file, read by the caller: {key, path as given, text}.
  struct DataFile {
    std::string key;
    std::string path;
    std::string text;
  };
  std::vector<DataFile> data_files{};
  // The file of parameter `key`, or nullptr when its path was empty.
  [[nodiscard]] const DataFile* data_file(std::string_view key) const {
    for (const DataFile& f : data_files)
      if (f.key == key) return &f;
    return nullptr;
  }
};

// A policy's own random stream: a pure function of the run's seed and the policy's name, so a
// stochastic policy is deterministic and draws independently of the trace generator, model
// assignment and every other policy (docs/adding-a-policy.md).
inline Rng policy_rng(const PolicySetup& setup, std::string_view policy) {
  return Rng::stream(setup.seed, std::string("policy.") + std::string(policy));
}

struct PolicyEntry {
  std::string name;
  std::string description;
  // Reads the jobs' true durations. A policy that declares a boolean `oracle` parameter does so
  // only when that parameter is true (uses_oracle).
  bool oracle = false;
  std::vector<ParamSpec> params;
  std::function<std::unique_ptr<Policy>(const PolicySetup&)> make;
  // Runs with failures on (docs/failures.md): it takes a failed job back (Policy::on_failure)
  // and keeps no state that a failure would make wrong.
  bool handles_failures = false;
  // Checks the parameters against the trace's job names before the run starts, so that a
  // mismatch is an input error rather than a fault found mid-run (automl: every trial of its
  // sessions is a job of the trace). Empty when there is nothing to check.
  std::function<void(const PolicySetup&, const JobNames&)> check_jobs{};
};

const std::vector<PolicyEntry>& policy_registry();
const PolicyEntry& find_policy(const std::string& name); // InputError listing known names
// Checks `given` (policy.params) against the declarations (keys and types) and fills defaults.
PolicyParams resolve_params(const PolicyEntry& entry, const YAML::Node& given);
// Whether the policy reads true durations with these parameters: what the runtime grants it
// (PolicyInfo::oracle).
bool uses_oracle(const PolicyEntry& entry, const PolicyParams& params);
// Its mark in `dlsim list policies`: "[oracle]", "[oracle with oracle: true]" or "".
std::string oracle_tag(const PolicyEntry& entry);

} // namespace dlsim

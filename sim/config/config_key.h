// A declared configuration: one entry per YAML key, bound to the field that holds its value. The
// same entries read the keys (with their checks), write them back (run.yaml), vet --set paths and
// print the key reference of docs/experiments.md. Modelled on SimGrid's declared configuration
// flags and ns-3's attributes: the key, its type, default, check and meaning in one place.
//
// A table is a function of the config it binds to (runtime_keys(RuntimeConfig&),
// experiment_keys(Experiment&)): the default of a key is its field's value in a default-made
// config, and the order of the entries is the order of run.yaml.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace dlsim {

enum class KeyType {
  kSeconds, // a time in seconds, at least `min`, within dlsim's time limit (sim/engine/time.h)
  kNumber,  // a real number in [min, max], or (min, max] with min_open
  kInteger, // a whole number in [min, max]
  kFlag,    // true or false
  kText,    // a string; one of `choices` when they are given
  kNode,    // a path or mapping read by its own reader (cluster, policy.params): declared here for
            // the reference and the unknown-key checks; the caller fills its place in run.yaml
  kIgnored, // accepted as a string and dropped (dlsim_version, which run.yaml carries)
};

using KeyField =
    std::variant<std::monostate, double*, unsigned*, std::uint64_t*, bool*, std::string*>;

struct ConfigKey {
  std::string path{}; // dotted from the document's root, e.g. "runtime.interference.slope"
  KeyType type{};
  KeyField field{}; // std::monostate for kNode and kIgnored
  std::string doc{};
  double min = -HUGE_VAL;
  double max = HUGE_VAL;
  bool min_open = false;
  std::vector<std::string> choices{};
  std::optional<double>
      unset{}; // a value meaning "not set" (until_s: -1): not checked, not written
  bool required = false;
  std::string
      default_text{}; // for the reference, when the default is not the field's initial value
};

// What a value of the key must be, as error messages say it after "must": "not be negative",
// "be 1 to 8", "be in (0, 1]", "be gpu or cpu"; "" when any value of the type will do.
std::string key_requirement(const ConfigKey& k);

// Reads every key of `keys` from `root` into its field (absent keys keep the field's value) and
// checks it; then rejects the keys of every section that no entry declares, naming file and line.
void read_config_keys(const YAML::Node& root, const std::string& file,
                      const std::vector<ConfigKey>& keys);

// Writes every key into `root` in table order; kNode keys get a null placeholder for the caller.
void write_config_keys(const std::vector<ConfigKey>& keys, YAML::Node& root);

// The node at a dotted path of `root`, or an undefined node (never inserts).
YAML::Node node_at(const YAML::Node& root, const std::string& path);

// What is wrong with a dotted path given on the command line or in a sweep: "" when it names a
// declared key, a section of some, or something under a kNode key; else "unknown key (did you
// mean ...?)" with the nearest declared keys, or the keys valid in its section.
std::string unknown_key_problem(const std::vector<ConfigKey>& keys, const std::string& path);
// Throws InputError "PATH: <the problem>" when there is one.
void check_key_path(const std::vector<ConfigKey>& keys, const std::string& path);

// The key reference: a Markdown table of key, type, default, allowed values and meaning.
std::string config_keys_markdown(const std::vector<ConfigKey>& keys);

} // namespace dlsim

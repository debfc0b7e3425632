// Trace formats by name: `--format NAME` and `dlsim list formats`.
#pragma once

#include "sim/config/config_key.h"
#include "workloads/trace.h"

#include <string>
#include <vector>

namespace dlsim {

using TraceReader = Trace (*)(const std::string& file, const ReadOptions& options);
// The files a reader reads for a trace path, for provenance checksums.
using TraceInputs = std::vector<std::string> (*)(const std::string& path);
// The format's own keys of an experiment's `trace:` section, bound to their fields of
// ReadOptions (declared once: read, checked, written to run.yaml and listed by `dlsim list keys`).
using TraceKeys = std::vector<ConfigKey> (*)(ReadOptions& options);

struct TraceFormat {
  std::string name;
  std::string description;
  TraceReader read;
  TraceInputs inputs = nullptr; // nullptr: the path is the one file read
  TraceKeys keys = nullptr;     // nullptr: the format has no keys of its own
};

// The files the format reads for `path`: its `inputs`, or the path itself.
std::vector<std::string> trace_input_files(const TraceFormat& format, const std::string& path);

const std::vector<TraceFormat>& trace_formats();
// The format by name; an unknown name is an InputError listing the known ones.
const TraceFormat& find_trace_format(const std::string& name);

} // namespace dlsim

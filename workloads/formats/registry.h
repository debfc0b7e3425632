// Trace formats by name: `--format NAME` and `dlsim list formats`.
#pragma once

#include "workloads/trace.h"

#include <string>
#include <vector>

namespace dlsim {

using TraceReader = Trace (*)(const std::string& file, const ReadOptions& options);

struct TraceFormat {
  std::string name;
  std::string description;
  TraceReader read;
};

const std::vector<TraceFormat>& trace_formats();
// The format by name; an unknown name is an InputError listing the known ones.
const TraceFormat& find_trace_format(const std::string& name);

} // namespace dlsim

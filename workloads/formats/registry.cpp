#include "workloads/formats/registry.h"

#include "sim/engine/error.h"
#include "workloads/formats/native.h"

#include <fmt/format.h>

namespace dlsim {

const std::vector<TraceFormat>& trace_formats() {
  static const std::vector<TraceFormat> formats = {
      {"native", "dlsim's CSV: id, submit_s, workers, gpus_per_worker, duration_s or iterations, ...",
       &read_native_trace},
  };
  return formats;
}

const TraceFormat& find_trace_format(const std::string& name) {
  std::vector<std::string> names;
  for (const auto& f : trace_formats()) {
    if (f.name == name) return f;
    names.push_back(f.name);
  }
  throw InputError(fmt::format("unknown trace format '{}' (known: {})", name, fmt::join(names, ", ")));
}

}  // namespace dlsim

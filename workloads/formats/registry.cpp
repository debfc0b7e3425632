#include "workloads/formats/registry.h"

#include "sim/config/nearest_name.h"
#include "sim/engine/error.h"
#include "workloads/formats/format_list.h"

#include <fmt/format.h>

namespace dlsim {

// Each format's reader file defines its entry; the list names each once.
#define DLSIM_DECLARE_FORMAT(name) TraceFormat name##_format();
DLSIM_TRACE_FORMATS(DLSIM_DECLARE_FORMAT)
#undef DLSIM_DECLARE_FORMAT

const std::vector<TraceFormat>& trace_formats() {
#define DLSIM_FORMAT_ENTRY(name) name##_format(),
  static const std::vector<TraceFormat> formats = {DLSIM_TRACE_FORMATS(DLSIM_FORMAT_ENTRY)};
#undef DLSIM_FORMAT_ENTRY
  return formats;
}

const TraceFormat& find_trace_format(const std::string& name) {
  std::vector<std::string> names;
  for (const auto& f : trace_formats()) {
    if (f.name == name) return f;
    names.push_back(f.name);
  }
  throw InputError(unknown_name_message("trace format", name, names));
}

std::vector<std::string> trace_input_files(const TraceFormat& format, const std::string& path) {
  return format.inputs != nullptr ? format.inputs(path) : std::vector<std::string>{path};
}

} // namespace dlsim

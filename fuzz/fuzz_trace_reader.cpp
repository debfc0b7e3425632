// libFuzzer target for one file-based trace reader, chosen at build time by DLSIM_FUZZ_FORMAT
// (a name in the format registry). The input is the file. The reader must either return a trace
// or throw dlsim::InputError; anything else (another exception, a crash, a sanitizer report) is
// a bug. The input's last bit picks --skip-bad-jobs, so both paths are explored.
#include "fuzz/fuzz_scratch.h"
#include "sim/engine/error.h"
#include "workloads/formats/registry.h"

#include <cstddef>
#include <cstdint>

#ifndef DLSIM_FUZZ_FORMAT
#error "define DLSIM_FUZZ_FORMAT to a trace format name"
#endif

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const dlsim::TraceFormat& format = dlsim::find_trace_format(DLSIM_FUZZ_FORMAT);
  // In memory: a file on disk per input cost a write and a sync of the directory entry.
  std::string file = dlsim::fuzz::memory_input("trace", data, size);
  dlsim::ReadOptions options;
  options.skip_bad_jobs = size > 0 && (data[size - 1] & 1) != 0;
#ifdef DLSIM_FUZZ_POLLUX_PROFILES
  options.pollux_profiles = DLSIM_FUZZ_POLLUX_PROFILES;
#endif
  try {
    dlsim::Trace trace = format.read(file, options);
    (void)trace;
  } catch (const dlsim::InputError&) {
  }
  return 0;
}

// libFuzzer target for the summary.json writer (write_summary_json, sim/report/writers.cpp) fed
// fuzzed names and values directly: a Summary whose policy and device kind and type names are
// any bytes (not UTF-8, quotes, control characters, repeated) and whose numbers are any doubles
// (NaN, infinities, extremes) and counts, with each optional part present or not. The writer must
// not throw, must write UTF-8 and valid JSON, and what it writes must read back through `dlsim
// compare`'s reader (read_result_set), since every summary.json is a compare input.
#include "fuzz/fuzz_scratch.h"
#include "sim/cli/compare.h"
#include "sim/engine/error.h"
#include "sim/report/writers.h"

#include <fuzzer/FuzzedDataProvider.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <sstream>
#include <string>

namespace {

double any_double(FuzzedDataProvider& in) {
  switch (in.ConsumeIntegralInRange<int>(0, 5)) {
  case 0:
    return std::numeric_limits<double>::quiet_NaN();
  case 1:
    return std::numeric_limits<double>::infinity();
  case 2:
    return -std::numeric_limits<double>::infinity();
  case 3:
    return in.ConsumeFloatingPoint<double>();
  default:
    return in.ConsumeFloatingPointInRange<double>(-1e7, 1e7);
  }
}

dlsim::DeviceUtil any_util(FuzzedDataProvider& in) {
  dlsim::DeviceUtil u;
  u.name = in.ConsumeRandomLengthString(16);
  u.kind = static_cast<dlsim::DeviceKind>(in.ConsumeIntegralInRange<int>(0, 3));
  u.devices = in.ConsumeIntegral<std::uint32_t>();
  u.alloc = any_double(in);
  u.effective = any_double(in);
  return u;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  dlsim::Summary m;
  m.policy = in.ConsumeRandomLengthString(32);
  m.seed = in.ConsumeIntegral<std::uint64_t>();
  m.jobs = in.ConsumeIntegral<std::uint64_t>();
  m.finished = in.ConsumeIntegral<std::uint64_t>();
  m.unfinished = in.ConsumeIntegral<std::uint64_t>();
  m.cancelled = in.ConsumeIntegral<std::uint64_t>();
  m.jct_censored = in.ConsumeBool();
  m.queue_censored = in.ConsumeBool();
  m.makespan_censored = in.ConsumeBool();
  if (in.ConsumeBool()) m.deadlocked_at_s = any_double(in);
  for (double* v : {&m.makespan_s, &m.jct_mean_s, &m.jct_median_s, &m.jct_p95_s, &m.jct_p99_s,
                    &m.queue_mean_s, &m.queue_median_s, &m.queue_p95_s, &m.gpu_util_alloc,
                    &m.gpu_util_effective, &m.gpu_util_busy})
    *v = any_double(in);
  for (int k = in.ConsumeIntegralInRange<int>(0, 4); k > 0; --k)
    m.util_by_kind.push_back(any_util(in));
  for (int k = in.ConsumeIntegralInRange<int>(0, 6); k > 0; --k)
    m.util_by_type.push_back(any_util(in));
  m.fairness.jobs = in.ConsumeIntegral<std::uint64_t>();
  m.fairness.users = in.ConsumeIntegral<std::uint64_t>();
  if (in.ConsumeBool()) m.fairness.jain_user_slowdown = any_double(in); // absent below two users
  for (double* v : {&m.fairness.slowdown_mean, &m.fairness.slowdown_max, &m.fairness.ftf_rho_mean,
                    &m.fairness.ftf_rho_max})
    *v = any_double(in);
  if (in.ConsumeBool()) m.util_assumed_jobs = in.ConsumeIntegral<std::uint64_t>();
  if (in.ConsumeBool()) {
    dlsim::WindowSummary w;
    w.from_s = any_double(in);
    w.to_s = any_double(in);
    w.jobs = in.ConsumeIntegral<std::uint64_t>();
    w.unfinished = in.ConsumeIntegral<std::uint64_t>();
    w.jct_mean_s = any_double(in);
    w.slowdown_max = any_double(in);
    m.window = w;
  }
  if (in.ConsumeBool()) m.cpu_cores = dlsim::Summary::CpuCores{1, any_double(in), any_double(in)};
  if (in.ConsumeBool()) {
    dlsim::Summary::GpuSharing g;
    g.capacity_gpus = any_double(in);
    g.frag_pct_at_100 = any_double(in);
    m.gpu_sharing = g;
  }
  if (in.ConsumeBool()) {
    dlsim::FailureSummary f;
    f.work_lost_s = any_double(in);
    f.ettr = any_double(in);
    m.failures = f;
  }
  std::ostringstream out;
  dlsim::write_summary_json(out, m);
  const std::string text = out.str();
  dlsim::fuzz::require_utf8(text, "summary.json");
  std::string file = dlsim::fuzz::write_input(
      "summary.json", reinterpret_cast<const std::uint8_t*>(text.data()), text.size());
  try {
    (void)dlsim::read_result_set(file);
  } catch (const dlsim::InputError& e) {
    // Not valid JSON, or not a summary: either way a file dlsim wrote that dlsim cannot read.
    std::cerr << "fuzz: compare cannot read the summary.json dlsim wrote: " << e.what() << "\n";
    std::abort();
  }
  return 0;
}

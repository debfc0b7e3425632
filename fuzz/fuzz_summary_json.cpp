// libFuzzer target for the summary.json writer (write_summary_json, sim/report/writers.cpp) fed
// fuzzed names and values directly: a Summary whose policy and the names in its metrics' keys are
// any bytes (not UTF-8, quotes, control characters, repeated) and whose numbers are any doubles
// (NaN, infinities, extremes) and counts, with each optional part present or not. The writer must
// not throw, must write UTF-8 and valid JSON, and what it writes must read back through `dlsim
// compare`'s reader (read_result_set), since every summary.json is a compare input.
#include "fuzz/fuzz_scratch.h"
#include "sim/cli/compare.h"
#include "sim/engine/error.h"
#include "sim/report/writers.h"

#include <fuzzer/FuzzedDataProvider.h>
#include <nlohmann/json.hpp>

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

// A metric's object as the summary metrics write them (summary_metric.h): members named by any
// bytes, each a count and two numbers, or a nested object of them.
nlohmann::ordered_json any_metric_object(FuzzedDataProvider& in) {
  nlohmann::ordered_json o = nlohmann::ordered_json::object();
  for (int k = in.ConsumeIntegralInRange<int>(0, 6); k > 0; --k) {
    const std::string name = in.ConsumeRandomLengthString(16);
    if (in.ConsumeBool()) {
      o[name] = any_double(in);
    } else {
      o[name] = {{"devices", in.ConsumeIntegral<std::uint32_t>()},
                 {"alloc", any_double(in)},
                 {"effective", any_double(in)}};
    }
  }
  return o;
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
  if (in.ConsumeBool()) m.util_assumed_jobs = in.ConsumeIntegral<std::uint64_t>();
  for (const char* key : {"util_by_kind", "util_by_type", "fairness", "window", "failures",
                          "gpu_sharing", "cpu_cores"}) {
    if (in.ConsumeBool()) m.metric_keys[key] = any_metric_object(in);
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

// libFuzzer target for `dlsim compare`'s inputs (docs/ci.md#dlsim-compare): two result files
// read by read_result_set (sim/cli/compare.cpp), a summary.json or a sweep's results.csv each,
// compared with compare_result_sets and printed. The first byte picks the kinds (bit 0: the
// baseline is a results.csv, bit 1: the new one is); the rest is the baseline, a line "%%", the
// new file. Reading must give results or throw InputError. Results read must compare with
// themselves as unchanged, and compare with each other (or throw InputError, a results.csv
// against a summary.json, or a usage error, an option naming a metric the files lack) and print
// without an exception.
#include "fuzz/fuzz_scratch.h"
#include "sim/cli/compare.h"
#include "sim/engine/error.h"

#include <boost/program_options/errors.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace {

// Tolerances and a direction, as a CI job gives them, so that every verdict is reachable.
dlsim::CompareOptions options(bool worse_only) {
  dlsim::CompareOptions o;
  dlsim::add_tolerance(o, "0.01");
  dlsim::add_tolerance(o, "jct_mean_s=0.05");
  dlsim::add_abs_tolerance(o, "queue_mean_s=1");
  dlsim::add_direction(o, "jobs=higher");
  o.worse_only = worse_only;
  return o;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::uint8_t kinds = data[0];
  auto parts = dlsim::fuzz::split_input(data + 1, size - 1, 2);
  dlsim::ResultSet sets[2];
  for (std::size_t i = 0; i < 2; ++i) {
    std::string_view part = i < parts.size() ? parts[i] : std::string_view();
    bool csv = (kinds >> i & 1) != 0;
    std::string name = std::string(i == 0 ? "baseline" : "new") + (csv ? ".csv" : ".json");
    std::string file = dlsim::fuzz::write_input(
        name, reinterpret_cast<const std::uint8_t*>(part.data()), part.size());
    try {
      sets[i] = dlsim::read_result_set(file);
    } catch (const dlsim::InputError&) {
      return 0;
    }
  }
  for (const dlsim::ResultSet& s : sets) {
    dlsim::Comparison self;
    try {
      self = dlsim::compare_result_sets(s, s, options(false));
    } catch (const boost::program_options::error&) {
      continue; // a --tolerance or --direction naming a metric the file lacks: exit 2 in dlsim
    }
    if (self.changed != 0 || self.fails != 0) {
      std::cerr << "fuzz: " << s.file << " compared with itself: " << self.changed << " changed, "
                << self.fails << " failing\n";
      std::abort();
    }
  }
  for (bool worse_only : {false, true}) {
    dlsim::Comparison c;
    try {
      c = dlsim::compare_result_sets(sets[0], sets[1], options(worse_only));
    } catch (const dlsim::InputError&) {
      return 0; // a sweep's results against one summary: exit 1 in dlsim
    } catch (const boost::program_options::error&) {
      return 0; // an option naming a metric neither file has: exit 2
    }
    std::ostringstream out;
    dlsim::print_comparison(out, c, sets[0].file, sets[1].file, worse_only);
  }
  return 0;
}

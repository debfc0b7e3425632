// provenance.json: what made a run, kept apart from its deterministic files (summary.json,
// jobs.csv stay byte-identical across runs and machines): dlsim's version and commit, the input
// files and their checksums, the overrides, wall and CPU time (docs/outputs.md#provenancejson).
#pragma once

#include "sim/cli/experiment.h"

#include <cstdint>
#include <ostream>
#include <string>

namespace dlsim {

// The git commit dlsim was built from (cmake/commit.cmake), e.g. "02ba729c1d3e" or
// "02ba729c1d3e-dirty"; "unknown" outside a git checkout.
const char* dlsim_commit();

// CRC-32 (zlib's, as in gzip and PNG) of a file's bytes, and its size. Throws InputError naming
// the file when it cannot be read.
struct FileChecksum {
  std::uint32_t crc32 = 0;
  std::uint64_t bytes = 0;
};
FileChecksum file_checksum(const std::string& path);
std::uint32_t text_crc32(const std::string& text);

struct RunTimes {
  double wall_s = 0; // the whole run, reading included
  double sim_s = 0;  // inside the event loop
  double cpu_s = 0;  // user + system CPU of the process
};

// CPU seconds (user + system) the process has used so far.
double process_cpu_seconds();

void write_provenance_json(std::ostream& out, const Experiment& e, const ExperimentInputs& inputs,
                           const std::string& run_yaml, const RunTimes& times);

} // namespace dlsim

// `--format auto`: which trace format a file is, from its name and its first line.
#pragma once

#include <string>

namespace dlsim {

struct FormatGuess {
  std::string format; // a name of the format registry
  std::string reason; // "the header (timestamp, duration, num_gpus)", for the user
};

// The format of the file (or, for pai2020, directory) at `path`. An empty file, and a first line
// that matches no format, are InputErrors naming the file.
FormatGuess guess_trace_format(const std::string& path);

} // namespace dlsim

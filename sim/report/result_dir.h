// A run's result directory, replaced as a whole: the files are written into a fresh staging
// directory beside it and swapped into place at the end, so that a run that fails or is killed
// leaves either the complete earlier run or the complete new one, never a mix (docs/outputs.md).
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace dlsim {

// The files a run writes. An earlier run's copies are replaced; any other file in the directory
// (a sweep's dlsim.log and error.txt, a user's notes) is carried over into the new directory.
inline constexpr std::string_view kResultFiles[] = {
    "jobs.csv",        "timeseries.csv", "run.yaml",     "events.csv",     "timeline.json",
    "provenance.json", "summary.json",   "failures.csv", "allocation.csv", "fragmentation.csv"};

class ResultDir {
public:
  // Checks `out` (not a file, no subdirectories, writable), creates its parent and the staging
  // directory, and removes stale staging directories of `out` left by killed runs. Throws
  // InputError naming `out` and what is wrong. Call it before the simulation, so that a bad
  // --out fails in a second, not after an hour.
  explicit ResultDir(const std::string& out);
  ~ResultDir(); // removes the staging directory unless commit() ran
  ResultDir(const ResultDir&) = delete;
  ResultDir& operator=(const ResultDir&) = delete;

  // Where to write the result file `name` (inside the staging directory).
  [[nodiscard]] std::string file(std::string_view name) const;
  // The final directory, absolute.
  [[nodiscard]] const std::filesystem::path& out() const { return out_; }

  // Puts the staging directory at `out` in one rename (an atomic exchange when `out` exists),
  // then removes the earlier run.
  void commit();

private:
  std::filesystem::path out_;
  std::filesystem::path staging_;
  bool committed_ = false;
};

// Test hook for the kill -9 test (tests/hostile): when the environment variable
// DLSIM_TEST_KILL_AT equals `stage`, the process kills itself with SIGKILL right here; when
// DLSIM_TEST_STALL_AT does, it sleeps 60 s (for a test that kills its parent meanwhile). The
// stages: "writing" (jobs.csv staged, the rest not), "staged" (all staged, nothing swapped),
// "swapped" (the new run in place, the earlier one not yet removed).
void test_kill_point(std::string_view stage);

// Removes `path.tmp.<pid>` files beside `path` whose process no longer runs (left by a killed
// write_file_atomically).
void remove_stale_temporaries(const std::filesystem::path& path);

} // namespace dlsim

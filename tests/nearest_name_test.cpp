// "Did you mean ...?" for misspelt names: policies, trace formats, device types.
#include "policies/registry.h"
#include "sim/config/nearest_name.h"
#include "sim/engine/error.h"
#include "workloads/formats/registry.h"

#include <catch2/catch.hpp>

using namespace dlsim;

namespace {

std::string error_of(auto&& call) {
  try {
    call();
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

} // namespace

TEST_CASE("edit_distance counts insertions, deletions and substitutions", "[names]") {
  CHECK(edit_distance("", "") == 0);
  CHECK(edit_distance("fifo", "fifo") == 0);
  CHECK(edit_distance("fifo", "fif") == 1); // one deletion
  CHECK(edit_distance("tiresias", "tiresas") == 1);
  CHECK(edit_distance("kitten", "sitting") == 3); // k->s, e->i, +g
}

TEST_CASE("nearest_names keeps names within a quarter of the letters, nearest first", "[names]") {
  const std::vector<std::string> known{"fifo", "fifo-backfill", "srtf", "sjf", "tiresias"};
  // "tiresia": 7 letters allow 1 + 7/4 = 2 edits; tiresias is 1 away.
  CHECK(nearest_names("tiresia", known) == std::vector<std::string>{"tiresias"});
  // "FIFO" matches without regard to case; "sjf" and "srtf" are 2 and 3 edits from "fifo".
  CHECK(nearest_names("FIFO", known) == std::vector<std::string>{"fifo"});
  // "srf": 1 + 3/4 = 1 edit allowed: srtf (insert t) and sjf (r -> j) are both 1 away.
  CHECK(nearest_names("srf", known) == std::vector<std::string>{"srtf", "sjf"});
  CHECK(nearest_names("gavel", known).empty());
}

TEST_CASE("a misspelt policy or trace format is answered with the nearest name", "[names]") {
  CHECK(error_of([] { find_policy("tiresia"); }) ==
        "policy.name: unknown policy 'tiresia' (did you mean tiresias?)");
  // Nothing near: every known name is listed, as before.
  CHECK(error_of([] { find_policy("zzzzzzzzzz"); }).find("(known: ") != std::string::npos);
  CHECK(error_of([] { find_trace_format("phily"); }) ==
        "unknown trace format 'phily' (did you mean philly?)");
}

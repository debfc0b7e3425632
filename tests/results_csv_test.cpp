// Results that analysis tools read as they are: `dlsim compare` compares the numbers inside a
// results.csv as numbers, also in one written when nested values were JSON inside a cell.
#include "sim/cli/compare.h"
#include "tests/support/harness.h"

#include <catch2/catch.hpp>

#include <string>

using namespace dlsim;
using namespace dlsim::test;

namespace {

const CompareRow* find_row(const Comparison& c, const std::string& metric) {
  for (const auto& r : c.rows)
    if (r.metric == metric) return &r;
  return nullptr;
}

} // namespace

TEST_CASE("compare: a last-digit utilization change passes --tolerance 0.01 --worse-only",
          "[compare][results]") {
  ScratchDir dir;
  CompareOptions o;
  o.default_tolerance = 0.01;
  o.worse_only = true;
  // Today's results.csv: nested values in columns of their own.
  std::string flat_old = dir.write("a.csv", "run,seed,status,error,util_by_kind.gpu.alloc\n"
                                            "fifo-aa,1,ok,,0.3590103636261237\n");
  std::string flat_new = dir.write("b.csv", "run,seed,status,error,util_by_kind.gpu.alloc\n"
                                            "fifo-aa,1,ok,,0.3590103636261236\n");
  Comparison c = compare_result_sets(read_result_set(flat_old), read_result_set(flat_new), o);
  CHECK(c.changed == 1);
  CHECK(c.fails == 0);
  // A results.csv written when nested values were JSON in a cell: each number inside is its own
  // metric, compared as a number (as text, the change failed).
  std::string json_old =
      dir.write("c.csv", "run,status,error,util_by_kind\n"
                         "fifo-aa,ok,,\"{\"\"gpu\"\":{\"\"devices\"\":32,\"\"alloc\"\":"
                         "0.3590103636261237}}\"\n");
  std::string json_new =
      dir.write("d.csv", "run,status,error,util_by_kind\n"
                         "fifo-aa,ok,,\"{\"\"gpu\"\":{\"\"devices\"\":32,\"\"alloc\"\":"
                         "0.3590103636261236}}\"\n");
  c = compare_result_sets(read_result_set(json_old), read_result_set(json_new), o);
  const CompareRow* alloc = find_row(c, "util_by_kind.gpu.alloc");
  REQUIRE(alloc != nullptr);
  CHECK(alloc->changed);
  REQUIRE(alloc->relative);
  CHECK(std::abs(*alloc->relative) < 1e-15);
  CHECK(find_row(c, "util_by_kind.gpu.devices") != nullptr);
  CHECK(c.fails == 0);
  // An old results.csv (the summary's seed beside the swept seed, JSON in a cell) against
  // today's flat one of the same run: nothing beyond tolerance, the repeated seed not compared.
  std::string old_style = dir.write("old.csv", "run,seed,status,error,seed,util_by_kind\n"
                                               "fifo-aa,1,ok,,1,\"{\"\"gpu\"\":{\"\"alloc\"\":"
                                               "0.3590103636261237}}\"\n");
  c = compare_result_sets(read_result_set(old_style), read_result_set(flat_new), o);
  CHECK(c.fails == 0);
  CHECK(c.beyond == 0);
  CHECK(find_row(c, "seed") == nullptr);
  // A fall beyond the tolerance still fails: 0.359 -> 0.35 is 2.5% worse.
  std::string worse = dir.write("e.csv", "run,seed,status,error,util_by_kind.gpu.alloc\n"
                                         "fifo-aa,1,ok,,0.35\n");
  c = compare_result_sets(read_result_set(flat_old), read_result_set(worse), o);
  CHECK(c.fails == 1);
}

// What the 1M-job replay's cost cuts must keep: the summary's statistics
// from durations sorted as integers, the free-device buckets as bits walked in node id order, the
// FIFO queue's kinds read from its mask, and same-time events in their band order.
#include "sim/engine/rng.h"
#include "sim/report/duration_stats.h"
#include "sim/report/summary.h"
#include "sim/runtime/free_index.h"
#include "tests/support/harness.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <numeric>
#include <vector>

using namespace dlsim;
using namespace dlsim::test;

TEST_CASE("duration percentiles and mean, worked by hand", "[report][summary]") {
  // 4, 1, 3, 2, 10 s: sorted 1, 2, 3, 4, 10 s.
  std::vector<SimTime> v{4'000'000, 1'000'000, 3'000'000, 2'000'000, 10'000'000};
  sort_durations(v);
  CHECK(v == std::vector<SimTime>{1'000'000, 2'000'000, 3'000'000, 4'000'000, 10'000'000});
  // p50: position 0.5 x 4 = 2 -> the third value, 3 s.
  CHECK(percentile_of_sorted(v, 50) == 3.0);
  // p95: position 0.95 x 4 = 3.8 -> 4 + (10 - 4) x 0.8 = 8.8 s.
  CHECK(percentile_of_sorted(v, 95) == Approx(8.8).epsilon(1e-15));
  // p99: position 3.96 -> 4 + 6 x 0.96 = 9.76 s.
  CHECK(percentile_of_sorted(v, 99) == Approx(9.76).epsilon(1e-15));
  // Mean (1 + 2 + 3 + 4 + 10) / 5 = 4 s.
  CHECK(mean_of_sorted(v) == 4.0);
  std::vector<SimTime> one{2'500'000};
  CHECK(percentile_of_sorted(one, 99) == 2.5); // one value is every percentile
  CHECK(percentile_of_sorted({}, 50) == 0.0);
  CHECK(mean_of_sorted({}) == 0.0);
}

TEST_CASE("durations sorted as integers give the bits a sort of seconds gave",
          "[report][summary]") {
  // The summary used to sort doubles (to_seconds of each duration) and accumulate them; it now
  // sorts the microseconds. Same values in the same order, so the same bits: checked on 200,000
  // seeded durations with many ties and a wide range (0 to about 58 days).
  Rng rng(7);
  std::vector<SimTime> v(200'000);
  for (auto& t : v) {
    double u = rng.uniform01();
    t = u < 0.3 ? 0 : static_cast<SimTime>(std::exp(u * 29.0));
  }
  std::vector<double> seconds(v.size());
  std::transform(v.begin(), v.end(), seconds.begin(), [](SimTime t) { return to_seconds(t); });
  std::sort(seconds.begin(), seconds.end());
  sort_durations(v);
  REQUIRE(std::is_sorted(v.begin(), v.end()));
  for (std::size_t i = 0; i < v.size(); ++i)
    REQUIRE(to_seconds(v[i]) == seconds[i]);
  const double mean =
      std::accumulate(seconds.begin(), seconds.end(), 0.0) / static_cast<double>(seconds.size());
  CHECK(mean_of_sorted(v) == mean); // exactly: same additions in the same order
  for (double p : {50.0, 95.0, 99.0, 99.9})
    CHECK(percentile_of_sorted(v, p) == percentile_sorted(seconds, p));
}

TEST_CASE("durations with their zeros counted give the bits of the whole sorted vector",
          "[report][summary]") {
  // Worked by hand: -2, 0, 0, 0, 1, 3 us (ranks 0-5), of which the three zeros are counted. The
  // median at position 0.5 * 5 = 2.5, between ranks 2 and 3, both 0; p70 at 3.5, between the
  // last zero and 1 us: 0.5 us; p95 at 4.75, between 1 and 3 us: 1 + 0.75 * 2 = 2.5 us; p0 the
  // -2 us; the mean (-2 + 1 + 3) / 6 us.
  const std::vector<SimTime> rest{-2, 1, 3};
  const SortedWithZeros v{rest, 3};
  CHECK(percentile_with_zeros(v, 50) == 0.0);
  CHECK(percentile_with_zeros(v, 70) == Approx(5e-7).epsilon(1e-12));
  CHECK(percentile_with_zeros(v, 95) == Approx(2.5e-6).epsilon(1e-12));
  CHECK(percentile_with_zeros(v, 0) == -2e-6);
  CHECK(mean_with_zeros(v) == Approx(2e-6 / 6).epsilon(1e-12));
  CHECK(percentile_with_zeros(SortedWithZeros{{}, 4}, 95) == 0.0); // zeros only
  CHECK(mean_with_zeros(SortedWithZeros{{}, 0}) == 0.0);           // nothing
  // Against the whole vector sorted, bit for bit, on seeded durations: mostly zeros, or some,
  // or none, with and without negative values, of every size from 1 to 3,000.
  Rng rng(11);
  for (int round = 0; round < 400; ++round) {
    const std::size_t n = 1 + rng.below(3000);
    const double zero_share = round % 4 == 0 ? 0.0 : round % 4 == 1 ? 0.3 : 0.97;
    const bool negatives = round % 3 == 0;
    std::vector<SimTime> whole(n);
    for (auto& t : whole) {
      t = rng.uniform01() < zero_share ? 0 : static_cast<SimTime>(std::exp(rng.uniform01() * 29.0));
      if (negatives && rng.uniform01() < 0.2) t = -t;
    }
    std::vector<SimTime> nonzero;
    std::copy_if(whole.begin(), whole.end(), std::back_inserter(nonzero),
                 [](SimTime t) { return t != 0; });
    sort_durations(whole);
    sort_durations(nonzero);
    const SortedWithZeros counted{nonzero, whole.size() - nonzero.size()};
    INFO("round " << round << ", " << n << " durations");
    REQUIRE(mean_with_zeros(counted) == mean_of_sorted(whole));
    for (double p : {0.0, 10.0, 50.0, 95.0, 99.0, 100.0})
      REQUIRE(percentile_with_zeros(counted, p) == percentile_of_sorted(whole, p));
  }
}

namespace {

// A bucket's walk, in the order it visits the nodes.
std::vector<NodeId> listed(const FreeIndex& f, DeviceTypeId t, std::uint32_t k) {
  std::vector<NodeId> out;
  for (NodeId n : f.nodes_with(t, k))
    out.push_back(n);
  return out;
}

} // namespace

TEST_CASE("free-device buckets follow takes and frees", "[runtime][free-index]") {
  // Two nodes of 4 GPUs: devices 0-3 on node 0, 4-7 on node 1.
  Cluster c = cluster_from_yaml("nodes:\n  - {count: 2, devices: {V100: 4}}\n");
  const DeviceTypeId v100 = c.devices[0].type;
  FreeIndex f;
  f.init(c);
  CHECK(listed(f, v100, 4) == std::vector<NodeId>{0, 1});
  CHECK(f.nodes_with(v100, 0).empty()); // a count of 0 has no bucket
  f.device_taken(c, 0);                 // node 0: 4 -> 3 free
  f.device_taken(c, 1);                 // 3 -> 2
  f.device_taken(c, 5);                 // node 1: 4 -> 3
  CHECK(f.nodes_with(v100, 4).empty());
  CHECK(listed(f, v100, 3) == std::vector<NodeId>{1});
  CHECK(listed(f, v100, 2) == std::vector<NodeId>{0});
  CHECK(f.free(v100) == 5);
  f.device_taken(c, 2);
  f.device_taken(c, 3); // node 0: 0 free, in no bucket
  for (std::uint32_t k = 0; k <= 4; ++k) {
    auto nodes = listed(f, v100, k);
    CHECK(std::find(nodes.begin(), nodes.end(), NodeId{0}) == nodes.end());
  }
  f.device_freed(c, 3); // node 0: 1 free
  f.device_freed(c, 5); // node 1: 4 free
  CHECK(listed(f, v100, 1) == std::vector<NodeId>{0});
  CHECK(listed(f, v100, 4) == std::vector<NodeId>{1});
  CHECK(f.nodes_with(v100, 3).empty());
  CHECK(f.free(v100) == 5);
}

TEST_CASE("free-device buckets of nodes of different sizes list their nodes in id order",
          "[runtime][free-index]") {
  // Nodes 0-3 with 2, 4, 1 and 4 V100: devices 0-1 on node 0, 2-5 on node 1, 6 on node 2, 7-10
  // on node 3. Bucket k has a bit for each node with at least k devices: k = 1 for nodes
  // 0, 1, 2, 3; k = 2 for 0, 1, 3; k = 3 and 4 for 1, 3.
  Cluster c = cluster_from_yaml("nodes:\n  - {count: 1, devices: {V100: 2}}\n"
                                "  - {count: 1, devices: {V100: 4}}\n"
                                "  - {count: 1, devices: {V100: 1}}\n"
                                "  - {count: 1, devices: {V100: 4}}\n");
  const DeviceTypeId v100 = c.devices[0].type;
  REQUIRE(c.nodes.size() == 4);
  REQUIRE(c.devices[6].node == 2);
  FreeIndex f;
  f.init(c);
  REQUIRE(f.max_per_node(v100) == 4);
  // All free: node 2 has 1, node 0 has 2, nodes 1 and 3 have 4.
  CHECK(listed(f, v100, 1) == std::vector<NodeId>{2});
  CHECK(listed(f, v100, 2) == std::vector<NodeId>{0});
  CHECK(listed(f, v100, 3).empty());
  CHECK(listed(f, v100, 4) == std::vector<NodeId>{1, 3});
  f.device_taken(c, 2); // node 1: 4 -> 3
  f.device_taken(c, 7);
  f.device_taken(c, 8); // node 3: 4 -> 2
  f.device_taken(c, 0); // node 0: 2 -> 1
  // 1: nodes 0 and 2; 2: node 3; 3: node 1; 4: none.
  CHECK(listed(f, v100, 1) == std::vector<NodeId>{0, 2});
  CHECK(listed(f, v100, 2) == std::vector<NodeId>{3});
  CHECK(listed(f, v100, 3) == std::vector<NodeId>{1});
  CHECK(listed(f, v100, 4).empty());
  f.device_taken(c, 6); // node 2: 1 -> 0, in no bucket
  f.device_taken(c, 9); // node 3: 2 -> 1
  CHECK(listed(f, v100, 1) == std::vector<NodeId>{0, 3});
  CHECK(listed(f, v100, 2).empty());
  f.device_freed(c, 6); // node 2: 0 -> 1
  f.device_freed(c, 2); // node 1: 3 -> 4
  CHECK(listed(f, v100, 1) == std::vector<NodeId>{0, 2, 3});
  CHECK(listed(f, v100, 3).empty());
  CHECK(listed(f, v100, 4) == std::vector<NodeId>{1});
  // Free: 1 + 4 + 1 + 1 = 7 of 11.
  CHECK(f.free(v100) == 7);
  CHECK(f.free_on(3, v100) == 1);
}

TEST_CASE("a free-device bucket walks across empty words and summary words",
          "[runtime][free-index]") {
  // 5,000 nodes of 1 GPU: node n has device n. Bucket 1's bits are 79 words (5,000 / 64,
  // rounded up), summarised in 2 words (79 / 64, rounded up). Nodes 3 and 63 share word 0; 64 is
  // bit 0 of word 1; 4,095 is the last bit of word 63, the last word of summary word 0; 4,096
  // is word 64, in summary word 1; 4,999 is the last node (bit 7 of word 78).
  Cluster c = cluster_from_yaml("nodes:\n  - {count: 5000, devices: {V100: 1}}\n");
  const DeviceTypeId v100 = c.devices[0].type;
  FreeIndex f;
  f.init(c);
  const std::vector<NodeId> kept{3, 63, 64, 4095, 4096, 4999};
  for (DeviceId d = 0; d < 5000; ++d) {
    if (std::find(kept.begin(), kept.end(), d) == kept.end()) f.device_taken(c, d);
  }
  CHECK(listed(f, v100, 1) == kept);
  CHECK(f.free(v100) == 6);
  // Only the last: the walk skips 78 empty words, one summary word of them whole.
  for (DeviceId d : {3, 63, 64, 4095, 4096})
    f.device_taken(c, d);
  CHECK(listed(f, v100, 1) == std::vector<NodeId>{4999});
  f.device_taken(c, 4999);
  CHECK(f.nodes_with(v100, 1).empty());
  f.device_freed(c, 0); // the first bit again
  CHECK(listed(f, v100, 1) == std::vector<NodeId>{0});
}

TEST_CASE("a finish and an arrival at the same time: the finish frees the devices first",
          "[runtime][fifo]") {
  // One GPU. A (0 s, 10 s) runs 0-10. B arrives at 10 s, the instant A finishes: the finish
  // band comes before the arrival band, so when FIFO decides at 10 s the GPU is free and B runs
  // 10-15 with no wait. C arrives at 10 s too, behind B: it waits for B, 15-18.
  Cluster c = cluster_from_yaml("nodes:\n  - {count: 1, devices: {V100: 1}}\n");
  Workload w =
      workload_from_csv(c, "id,submit_s,workers,duration_s\nA,0,1,10\nB,10,1,5\nC,10,1,3\n");
  RunOutput out = run_policy("fifo", c, w);
  const auto& b = out.state.jobs[job_named(w, "B")];
  const auto& cj = out.state.jobs[job_named(w, "C")];
  CHECK(b.first_start == 10'000'000);
  CHECK(b.end == 15'000'000);
  CHECK(cj.first_start == 15'000'000);
  CHECK(cj.end == 18'000'000);
  // Events: 3 arrivals + 3 finishes; the decisions at 10 s saw both arrivals and A's finish.
  CHECK(out.result.events == 6);
}

TEST_CASE("FIFO with several kinds: a blocked GPU job does not hold back a CPU-only job",
          "[policy][fifo]") {
  // One node, 1 GPU and 1 CPU device. G1 holds the GPU 0-100; G2 (GPU) waits behind it from 1 s;
  // K (any CPU device) arrives at 2 s behind G2 and starts at once, because G2 reserves only the
  // GPU kind (the queue reads each job's kinds from its mask).
  Cluster c = cluster_from_yaml("nodes:\n  - {count: 1, devices: {V100: 1, XeonCPU: 1}}\n");
  Workload w = workload_from_csv(c, "id,submit_s,workers,duration_s,device_type\n"
                                    "G1,0,1,100,V100\nG2,1,1,10,V100\nK,2,1,5,XeonCPU\n");
  RunOutput out = run_policy("fifo", c, w);
  CHECK(out.state.jobs[job_named(w, "K")].first_start == 2'000'000);
  CHECK(out.state.jobs[job_named(w, "G2")].first_start == 100'000'000);
}

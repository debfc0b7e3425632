// Jobs whose batch size changes during training: the runtime's phases (a rate per stretch of
// progress), Shockwave's batch-size rules, and a gns job end to end, each worked out by hand.
#include "tests/support/harness.h"

#include "sim/runtime/view.h"
#include "workloads/batch_size_plan.h"
#include "workloads/formats/gavel.h"

#include <catch2/catch.hpp>

using namespace dlsim;
using namespace dlsim::test;

TEST_CASE("phases: a job's rate changes where its next phase starts", "[phases]") {
  const Cluster c = cluster_from_yaml("nodes:\n  - {count: 1, devices: {V100: 2}}\n");
  // Zoo times on a V100 (configs/models/zoo.yaml): lstm 0.0154 s per iteration, resnet50 0.128.
  Workload w = workload_from_csv(c, "id,submit_s,workers,iterations,model\n"
                                    "a,0,1,1000,lstm\nb,0,1,1000,lstm\n");
  const auto lstm = static_cast<ModelId>(w.jobs[0].request.model);
  ModelId resnet50 = 0;
  for (std::size_t m = 0; m < w.models.size(); ++m)
    if (w.models[m] == "resnet50") resnet50 = static_cast<ModelId>(m);
  REQUIRE(resnet50 != 0);
  // Job a: its first 400 iterations as lstm, the other 600 as resnet50, each iteration of which
  // does 2 of a's iterations.
  w.phases = {{Phase{0, lstm, 1}, Phase{400, resnet50, 2}}};
  w.phase_plan = {1, 0};
  const JobId a = job_named(w, "a");
  const JobId b = job_named(w, "b");
  CHECK(w.phase_at(a, 0)->model == lstm);
  CHECK(w.phase_at(a, 399.9)->model == lstm);
  CHECK(w.phase_at(a, 400)->model == resnet50);
  CHECK(w.next_phase_from(a, 10) == 400);
  CHECK(w.next_phase_from(a, 400) == 1000);
  CHECK(w.phase_at(b, 0) == nullptr);

  RunOutput out = run_policy("fifo", c, w);
  // a: 400 x 0.0154 = 6.16 s, then 600 iterations at 2 / 0.128 = 15.625 a second = 38.4 s:
  // 44.56 s. b (one speed): 1,000 x 0.0154 = 15.4 s.
  CHECK(to_seconds(out.state.jobs[a].end) == Approx(44.56));
  CHECK(to_seconds(out.state.jobs[b].end) == Approx(15.4));
  CHECK(out.state.jobs[a].done == 1000);
}

TEST_CASE("phases: Shockwave's gns and accordion batch sizes by epoch", "[phases]") {
  auto all = [](std::uint32_t) { return true; };
  // gns, LM at batch 10 on 1 GPU: get_gns_bs_pattern doubles it from pattern epoch 11, 21 and
  // 41; _simulate_gns looks one epoch ahead of the epoch in progress counted from 1 (c + 1 =
  // e + 2 for epoch e from 0), so epoch 9 runs at 20, 19 at 40 and 39 at 80 (the cap).
  auto gns = shockwave_batch_sizes({"LM", 10}, 1, 1, 60, all);
  CHECK(gns[8] == 10);
  CHECK(gns[9] == 20);
  CHECK(gns[18] == 20);
  CHECK(gns[19] == 40);
  CHECK(gns[38] == 40);
  CHECK(gns[39] == 80);
  CHECK(gns[59] == 80);
  // A size the throughputs file lacks is refused: no doubling past 20.
  auto capped =
      shockwave_batch_sizes({"LM", 10}, 1, 1, 60, [](std::uint32_t bs) { return bs != 40; });
  CHECK(capped[39] == 20);
  // accordion, ResNet-18 at batch 32: critical while c < 10, 150 <= c < 160, 250 <= c < 260
  // (c = e + 1): batch 32 in epochs 0-8 and 149-158, 256 (the largest) otherwise.
  auto acc = shockwave_batch_sizes({"ResNet-18", 32}, 1, 2, 200, all);
  CHECK(acc[8] == 32);
  CHECK(acc[9] == 256);
  CHECK(acc[148] == 256);
  CHECK(acc[149] == 32);
  CHECK(acc[158] == 32);
  CHECK(acc[159] == 256);
  // ResNet-50: critical while c mod 30 < 10: epochs 0-8 at 32, 9-28 at 128, 29-38 at 32.
  auto r50 = shockwave_batch_sizes({"ResNet-50", 32}, 2, 2, 40, all);
  CHECK(r50[8] == 32);
  CHECK(r50[9] == 128);
  CHECK(r50[28] == 128);
  CHECK(r50[29] == 32);
  CHECK(r50[38] == 32);
  CHECK(r50[39] == 128);
  // Never changed: Transformer under accordion, and a job that starts at its largest size.
  for (auto bs : shockwave_batch_sizes({"Transformer", 32}, 1, 2, 50, all))
    CHECK(bs == 32);
  for (auto bs : shockwave_batch_sizes({"ResNet-18", 256}, 1, 1, 50, all))
    CHECK(bs == 256);
}

TEST_CASE("phases: a Shockwave gns job runs each batch size at its measured throughput",
          "[phases]") {
  ScratchDir dir;
  // LM at batch 10 and 20 on 1 GPU: 100 and 80 steps/s on a V100.
  dir.write("t.json", "{\"v100\": {\"('LM (batch size 10)', 1)\": {\"null\": 100.0}, "
                      "\"('LM (batch size 20)', 1)\": {\"null\": 80.0}}}");
  // 71,616 steps = 12 epochs of ceil(59,675 / 10) = 5,968 steps (Shockwave's LM data set).
  dir.write("t.trace", "LM (batch size 10)\tpython3 main.py\tlm\t--steps\t1\t71616\t1\tgns\t1\t"
                       "-1.000000\t716\t0\n");
  dir.write("cluster.yaml", "nodes:\n  - {count: 1, devices: {V100: 1}}\n");
  const std::string common = "run -q --cluster " + dir.file("cluster.yaml") + " --trace " +
                             dir.file("t.trace") + " --format gavel --throughputs " +
                             dir.file("t.json") + " --policy fifo -o ";
  // Epochs 0-8 at batch 10: 9 x 5,968 = 53,712 steps at 100 steps/s = 537.12 s. Epochs 9-11 at
  // batch 20 (the pattern doubles it at epoch 11, seen from epoch 9): the other 17,904 steps'
  // worth, 3 epochs of ceil(59,675 / 20) = 2,984 steps = 8,952 steps at 80 steps/s = 111.9 s.
  // In all 649.02 s.
  Outcome shock = run_dlsim(common + dir.file("shock") + " --set trace.batch_sizes=shockwave", dir);
  REQUIRE(shock.code == 0);
  CHECK_THAT(read_file(dir.file("shock/summary.json")), Catch::Contains("\"makespan_s\": 649.02"));
  // Static: 71,616 steps at 100 steps/s = 716.16 s.
  Outcome flat = run_dlsim(common + dir.file("static"), dir);
  REQUIRE(flat.code == 0);
  CHECK_THAT(read_file(dir.file("static/summary.json")), Catch::Contains("\"makespan_s\": 716.16"));
  // shockwave without a throughputs file is an error naming the key.
  Outcome bad =
      run_dlsim("run -q --trace " + dir.file("t.trace") +
                    " --format gavel --set trace.batch_sizes=shockwave -o " + dir.file("bad"),
                dir);
  CHECK(bad.code == 1);
  CHECK_THAT(bad.err, Catch::Contains("trace.batch_sizes: shockwave needs trace.throughputs"));
}

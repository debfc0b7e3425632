// AITurbo's +CPU(ps) and +CPU(worker) moves (seed slides 20-21;
// docs/aiturbo.md#resource-adjustment): the choice among the moves that take no device, and the
// remaining service after one more core, worked by hand.
#include "policies/aiturbo/cpu_moves.h"
#include "policies/aiturbo/moves.h"
#include "tests/support/scripted_run.h"

#include <catch2/catch.hpp>

using namespace dlsim;
using namespace dlsim::test;

TEST_CASE("slide 21 with +CPU(ps) and +CPU(worker): the best move per job", "[aiturbo][cpu]") {
  // The slide-21 table (tests/aiturbo_test.cpp) with the CPU columns added (dlsim's figures: the
  // slide's extracted text does not say which of its numbers are which):
  //            V   +worker  -worker  +ps  -ps  +CPU(ps)  +CPU(worker)
  //   JobA    10      5       14      9    12      8          9.5
  //   JobB    16     12       22     12    18     15         11
  // Gains V - V': A +ps 1, +CPU(ps) 2, +CPU(worker) 0.5; B +ps 4, +CPU(ps) 1, +CPU(worker) 5.
  std::vector<JobService> jobs = {{0, 10, 5, 14, 9, 12, 8, 9.5}, {1, 16, 12, 22, 12, 18, 15, 11}};
  // One free worker: A takes it (gain 5 against B's 4); B's best move without a device is
  // +CPU(worker), gain 5 (16 -> 11) beating +ps's 4. Total 26 -> 5 + 11 = 16.
  auto moves = choose_moves(jobs, 1, 0);
  REQUIRE(moves.size() == 2);
  CHECK((moves[0].job == 0 && moves[0].move == Move::kAddWorker && moves[0].gain == 5));
  CHECK((moves[1].job == 1 && moves[1].move == Move::kAddWorkerCpu && moves[1].gain == 5));
  // No free worker, no transfer (Delta = 5 - 6 = -1): A makes +CPU(ps) (10 -> 8, gain 2 over +ps's
  // 1), B +CPU(worker) (16 -> 11). Total 26 -> 19.
  moves = choose_moves(jobs, 0, 0);
  REQUIRE(moves.size() == 2);
  CHECK((moves[0].job == 0 && moves[0].move == Move::kAddPsCpu && moves[0].gain == 2));
  CHECK((moves[1].job == 1 && moves[1].move == Move::kAddWorkerCpu && moves[1].gain == 5));
  // A minimum gain of 3 leaves A unmoved (its best is 2); B still gains 5.
  moves = choose_moves(jobs, 0, 3);
  REQUIRE(moves.size() == 1);
  CHECK((moves[0].job == 1 && moves[0].move == Move::kAddWorkerCpu));
  // Equal gains go to the earlier move of +ps, -ps, +CPU(ps), +CPU(worker): B with +CPU(ps) at
  // 12 too takes +ps.
  jobs[1].add_ps_cpu = 12;
  jobs[1].add_worker_cpu = kNoMove;
  moves = choose_moves(jobs, 0, 0);
  CHECK((moves[1].job == 1 && moves[1].move == Move::kAddPs && moves[1].gain == 4));
}

TEST_CASE("+CPU(ps) and +CPU(worker): remaining service after one more core, by hand",
          "[aiturbo][cpu]") {
  // Analytic scaling, ResNet-50 (M = 102.4e6 bytes, 0.128 s, overlap 0.8) on 2 V100 of one node,
  // 1 PS (tests/cpu_phases_test.cpp). exposed = 0.2 comm + max(0, 0.8 comm - 0.0853333), comm =
  // 0.0129949 (wire) + (2 + 4) M / (c_ps x 6.3984e9) + 2 M / (c_w x 6.3984e9):
  //   c_ps 1, no c_w: step 0.1516856;  c_ps 2: 0.1402014 (ratio 0.9242894)
  //   c_ps 2, c_w 4:  step 0.1418018;  c_ps 3, c_w 4: update 0.0320080, step 0.1386010 (ratio
  //   0.9774276); c_ps 2, c_w 5: copies 0.0064016, step 0.1414817 (ratio 0.9977428)
  // The pause: a TensorFlow restart, 30 + 4 x 102.4e6 / 1e9 = 30.4096 s.
  // V = 100 s at (1, -): +CPU(ps) 100 x 0.9242894 + 30.4096 = 122.8385 (a loss); no +CPU(worker)
  // (no cores per worker asked: the copies are not modelled).
  // V = 10,000 s at (2, 4): +CPU(ps) 9774.2765 + 30.4096 = 9804.6861 (a gain of 195 s);
  // +CPU(worker) 9977.4276 + 30.4096 = 10007.8372 (a loss: the copies are a small part).
  RuntimeConfig cfg;
  cfg.scaling = "analytic";
  CpuMoves one{}, two{};
  double pause = 0, ratio = 0;
  ScriptedRun a("nodes:\n  - {count: 1, devices: {V100: 8}}\n",
                "id,submit_s,workers,iterations,model,ps,ps_cpus\na,0,2,1000,resnet50,1,1\n",
                {{0, [](Control& c) { c.start(0, device_range(0, 2)); }},
                 {10'000'000,
                  [&](Control& c) {
                    pause = cpu_resize_pause_s(c, 0);
                    ratio = cpu_step_ratio(c, 0, 2, 0);
                    one = cpu_moves(c, 0, 100, pause);
                  }}},
                cfg);
  a.run();
  CHECK(pause == Approx(30.4096).epsilon(1e-12));
  CHECK(ratio == Approx(0.9242894).epsilon(1e-6));
  CHECK(one.add_ps_cpu == Approx(122.8385).epsilon(1e-6));
  CHECK(one.add_worker_cpu == kNoMove);
  ScriptedRun b("nodes:\n  - {count: 1, devices: {V100: 8}}\n",
                "id,submit_s,workers,iterations,model,ps,ps_cpus,cpus_per_worker\n"
                "a,0,2,1000,resnet50,1,2,4\n",
                {{0, [](Control& c) { c.start(0, device_range(0, 2)); }},
                 {10'000'000, [&](Control& c) { two = cpu_moves(c, 0, 10000, 30.4096); }}},
                cfg);
  b.run();
  CHECK(two.add_ps_cpu == Approx(9804.6861).epsilon(1e-6));
  CHECK(two.add_worker_cpu == Approx(10007.8372).epsilon(1e-6));
  // Under linear scaling (the default) cores change no speed: ratio 1, the move only pauses.
  CpuMoves linear{};
  ScriptedRun l("nodes:\n  - {count: 1, devices: {V100: 8}}\n",
                "id,submit_s,workers,iterations,model,ps,ps_cpus\na,0,2,1000,resnet50,1,1\n",
                {{0, [](Control& c) { c.start(0, device_range(0, 2)); }},
                 {10'000'000, [&](Control& c) { linear = cpu_moves(c, 0, 100, 30.4096); }}});
  l.run();
  CHECK(linear.add_ps_cpu == Approx(130.4096).epsilon(1e-12));
}

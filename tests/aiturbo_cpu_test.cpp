// AITurbo's +CPU(ps) and +CPU(worker) moves (seed slides 20-21;
// docs/aiturbo.md#resource-adjustment): the choice among the moves that take no device, and the
// remaining service after one more core, worked by hand.
#include "policies/aiturbo/cpu_moves.h"
#include "policies/aiturbo/moves.h"
#include "policies/aiturbo/pauses.h"
#include "tests/support/scripted_run.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <random>
#include <vector>

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

TEST_CASE("+CPU(ps) and +CPU(worker): the step ratio estimated from measured times, by hand",
          "[aiturbo][cpu]") {
  CoreModel m;
  // Nothing measured at the cores now: no estimate, ratio 1.
  CHECK(cpu_step_ratio(m, 2, 1, 2, 4, 3, 4) == 1.0);
  // Measured only at (2 workers, 1 server, 2 cores per server, 4 per worker): 0.1418018 s. The
  // prior share 0.1 of the step shrinks as c / c': +CPU(ps) 1 - 0.1 + 0.1 x 2/3 = 0.9666667,
  // +CPU(worker) 1 - 0.1 + 0.1 x 4/5 = 0.98.
  observe_cores(m, 2, 1, 2, 4, 0.1418018);
  CHECK(cpu_step_ratio(m, 2, 1, 2, 4, 3, 4) == Approx(0.9666667).epsilon(1e-6));
  CHECK(cpu_step_ratio(m, 2, 1, 2, 4, 2, 5) == Approx(0.98).epsilon(1e-12));
  // Then measured with 3 cores per server: 0.1386010 s (two measurements there, mean
  // (0.1386 + 0.138602) / 2). Going back from 3 to 2 is the ratio of the means:
  // 0.1418018 / 0.1386010 = 1.0230937. From 3 to 4 the share is fitted from the time at 2:
  // f = (1 - 0.1418018 / 0.1386010) / (1 - 3/2) = 0.0461873, ratio 1 - f + f x 3/4 = 0.9884532.
  observe_cores(m, 2, 1, 3, 4, 0.1386);
  observe_cores(m, 2, 1, 3, 4, 0.138602);
  CHECK(cpu_step_ratio(m, 2, 1, 3, 4, 2, 4) == Approx(1.0230937).epsilon(1e-6));
  CHECK(cpu_step_ratio(m, 2, 1, 3, 4, 4, 4) == Approx(0.9884532).epsilon(1e-6));
  // The worker's share has no second count measured: the prior, 1 - 0.1 + 0.1 x 4/5.
  CHECK(cpu_step_ratio(m, 2, 1, 3, 4, 3, 5) == Approx(0.98).epsilon(1e-12));
  // Another shape (3 workers) has nothing measured: 1.
  CHECK(cpu_step_ratio(m, 3, 1, 3, 4, 4, 4) == 1.0);
}

TEST_CASE("+CPU(ps) and +CPU(worker): remaining service after one more core, by hand",
          "[aiturbo][cpu]") {
  // ResNet-50 on 2 V100 of one node, 1 PS of 1 core, no cores per worker. At 10 s the policy has
  // measured its step at (1, -) only: +CPU(ps) estimates 1 - 0.1 + 0.1 x 1/2 = 0.95 of it. V =
  // 100 s and a pause of 30 s: 100 x 0.95 + 30 = 125 (a loss). No +CPU(worker): no cores per
  // worker asked (the copies are not modelled). The runtime's scaling is not read: the same
  // under linear scaling.
  CpuMoves one{};
  ScriptedRun a("nodes:\n  - {count: 1, devices: {V100: 8}}\n",
                "id,submit_s,workers,iterations,model,ps,ps_cpus\na,0,2,1000,resnet50,1,1\n",
                {{0, [](Control& c) { c.start(0, device_range(0, 2)); }},
                 {10'000'000, [&](Control& c) {
                    CoreModel m;
                    observe_cores(m, 2, 1, c.ps_cores(0), c.worker_cores(0),
                                  c.measured_iteration_s(0));
                    one = cpu_moves(c, 0, m, 100, 30);
                  }}});
  a.run();
  CHECK(one.add_ps_cpu == Approx(125).epsilon(1e-12));
  CHECK(one.add_worker_cpu == kNoMove);
}

TEST_CASE("aiturbo's pauses: the mean observed by model, else by any job, else the prior",
          "[aiturbo][cpu]") {
  PauseLog log;
  CHECK(log.estimate(3, PauseKind::kResize) == kPausePriorS);
  // A resize of a job of model 3 asked at 10 s ends at 15 s: 5 s. Another at 100 s ends at
  // 135 s: 35 s. Model 3: (5 + 35) / 2 = 20; model 4, never seen: every job's mean, 20 too.
  log.issued(0, 3, PauseKind::kResize, 10'000'000);
  log.done(0, 15'000'000);
  log.issued(1, 3, PauseKind::kResize, 100'000'000);
  log.done(1, 135'000'000);
  CHECK(log.estimate(3, PauseKind::kResize) == Approx(20));
  CHECK(log.estimate(4, PauseKind::kResize) == Approx(20));
  // A change of cores of model 4 (40 s): its own mean for model 4, the resizes' untouched.
  log.issued(2, 4, PauseKind::kCores, 0);
  log.done(2, 40'000'000);
  CHECK(log.estimate(4, PauseKind::kCores) == Approx(40));
  CHECK(log.estimate(3, PauseKind::kCores) == Approx(40));
  CHECK(log.estimate(4, PauseKind::kResize) == Approx(20));
  // An action that ends for a job with no move issued (a start, a suspend) observes nothing; a
  // job that left with a move pending neither.
  log.done(5, 50'000'000);
  log.issued(6, 3, PauseKind::kResize, 0);
  log.forget(6);
  log.done(6, 1'000'000'000);
  CHECK(log.estimate(3, PauseKind::kResize) == Approx(20));
}

TEST_CASE("observe_cores counts repeats aside and keeps every mean and count of the plain model",
          "[aiturbo][cpu]") {
  // The plain model: every observation found by its cores and averaged in. observe_cores keeps
  // the last sample's repeats aside (the same time at the same cores again), so its means must
  // be the plain ones bit for bit, and its counts the plain ones once the repeats are added.
  std::mt19937 rng(23);
  for (int trial = 0; trial < 200; ++trial) {
    CoreModel m;
    std::vector<CoreSample> plain;
    double last_time = 0.1;
    for (int step = 0; step < 300; ++step) {
      const auto w = static_cast<std::uint32_t>(1 + rng() % 3);
      const auto p = static_cast<std::uint32_t>(rng() % 2);
      const double ps_cores = 1 + static_cast<double>(rng() % 2);
      const double worker_cores = 2 + 0.5 * static_cast<double>(rng() % 2);
      // Mostly the same time again (a job measured while nothing moves), sometimes a new one.
      if (rng() % 4 == 0) last_time = 0.05 + 0.001 * static_cast<double>(rng() % 100);
      for (int again = 0, n = 1 + static_cast<int>(rng() % 4); again < n; ++again) {
        observe_cores(m, w, p, ps_cores, worker_cores, last_time);
        auto it = std::find_if(plain.begin(), plain.end(), [&](const CoreSample& s) {
          return s.workers == w && s.ps == p && s.ps_cores == ps_cores &&
                 s.worker_cores == worker_cores;
        });
        if (it == plain.end()) {
          plain.push_back({w, p, ps_cores, worker_cores, last_time, 1});
        } else {
          ++it->count;
          it->mean_s += (last_time - it->mean_s) / it->count;
        }
      }
    }
    REQUIRE(m.samples.size() == plain.size());
    for (std::size_t i = 0; i < plain.size(); ++i) {
      CHECK(std::bit_cast<std::uint64_t>(m.samples[i].mean_s) ==
            std::bit_cast<std::uint64_t>(plain[i].mean_s));
      CHECK(m.samples[i].count + (i == m.last ? m.repeats : 0) == plain[i].count);
    }
  }
}

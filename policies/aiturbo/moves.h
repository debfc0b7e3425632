// AITurbo's resource adjustment (slides 20-21; docs/aiturbo.md#resource-adjustment): each
// predictable job's remaining service V (predicted seconds to finish) now and after one unit
// more or less of each resource; the moves are chosen by their change in total remaining service.
#pragma once

#include <cstdint>
#include <limits>
#include <span>
#include <vector>

namespace dlsim {

enum class Move : std::uint8_t {
  kAddWorker,
  kRemoveWorker,
  kAddPs,
  kRemovePs,
  kAddPsCpu,     // +CPU(ps): one more core for each parameter server
  kAddWorkerCpu, // +CPU(worker): one more core for each worker
};

constexpr double kNoMove = std::numeric_limits<double>::infinity(); // the move is not possible

struct JobService {
  std::uint32_t job = 0;
  double v = 0; // remaining service now
  // Remaining service after each move (kNoMove when the job cannot make it).
  double add_worker = kNoMove, remove_worker = kNoMove, add_ps = kNoMove, remove_ps = kNoMove;
  double add_ps_cpu = kNoMove, add_worker_cpu = kNoMove;
};

struct ChosenMove {
  std::uint32_t job = 0;
  Move move = Move::kAddWorker;
  double gain = 0; // decrease of the total remaining service
};

// At most one move per job, in three steps, each taking only gains above min_gain:
// 1. free workers (devices no job waits for) go one at a time to the job with the largest gain
//    V - V(+worker);
// 2. transfers: the job with the largest gain of a worker takes one from the job that loses
//    least by giving one, when V_A - V_A(+worker) + V_B - V_B(-worker) > min_gain (the slide's
//    Delta = dV_A(+res) + dV_B(-res));
// 3. moves that take no device: each remaining job makes its best of +ps, -ps, +CPU(ps) and
//    +CPU(worker) (in that order on equal gains).
// Ties go to the job listed first.
std::vector<ChosenMove> choose_moves(std::span<const JobService> jobs, std::uint32_t free_workers,
                                     double min_gain);

} // namespace dlsim

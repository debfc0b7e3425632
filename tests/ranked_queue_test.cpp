// RankedQueue (policies/aiturbo/ranked_queue.h) against the plain computation it replaces: a
// list of the placed jobs' keys, sorted, walked with a filter on each job's status. Random keys,
// placements, drops and status changes (each marked in a ChangeLog, as the runtime marks them),
// with syncs at random moments; after each sync the queue must offer the placed pending and
// suspended jobs in key order, and know whether any placed job may wait.
#include "policies/aiturbo/ranked_queue.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <tuple>
#include <vector>

using namespace dlsim;

namespace {

using Key = std::tuple<std::uint32_t, JobId>; // (level, job)

// The plain computation: every placed job's key, the status of every job.
struct Plain {
  std::vector<Key> key;
  std::vector<char> placed;
  std::vector<JobStatus> status;

  [[nodiscard]] std::vector<Key> offered() const {
    std::vector<Key> out;
    for (JobId j = 0; j < key.size(); ++j) {
      if (placed[j] && (status[j] == JobStatus::kPending || status[j] == JobStatus::kSuspended))
        out.push_back(key[j]);
    }
    std::sort(out.begin(), out.end());
    return out;
  }
  [[nodiscard]] bool any_may_wait() const {
    for (JobId j = 0; j < key.size(); ++j) {
      if (placed[j] && (status[j] == JobStatus::kPending || status[j] == JobStatus::kSuspended ||
                        status[j] == JobStatus::kSuspending))
        return true;
    }
    return false;
  }
};

} // namespace

TEST_CASE("RankedQueue offers what a filtered walk of the placed keys offers", "[ranked_queue]") {
  std::mt19937 rng(11);
  const JobStatus statuses[] = {JobStatus::kPending, JobStatus::kSuspended, JobStatus::kSuspending,
                                JobStatus::kRunning, JobStatus::kStarting,  JobStatus::kResizing,
                                JobStatus::kFinished};
  std::size_t offered_seen = 0, restarts = 0, dropped = 0;
  for (int trial = 0; trial < 100; ++trial) {
    const auto jobs = static_cast<JobId>(1 + rng() % 60);
    ChangeLog log;
    log.init(jobs); // starts over after jobs + 1,024 marks
    RankedQueue<Key> queue;
    queue.resize(jobs);
    Plain plain{std::vector<Key>(jobs), std::vector<char>(jobs, 0),
                std::vector<JobStatus>(jobs, JobStatus::kPending)};
    // A job's shape: here its id modulo 3 (so jobs share shapes).
    auto shape_of = [](JobId j) { return [j] { return JobShape{1, 1 + j % 3, 0.0, 0.0, -1, 0}; }; };
    for (JobId j = 0; j < jobs; ++j) { // keys are unique: each holds its job
      plain.key[j] = {0, j};
      queue.set_key(j, plain.key[j]);
    }
    std::uint64_t synced_stamp = log.stamp();
    for (int step = 0; step < 400; ++step) {
      const JobId j = static_cast<JobId>(rng() % jobs);
      switch (rng() % 6) {
      case 0: { // ranked anew
        const Key k{static_cast<std::uint32_t>(rng() % 4), j};
        queue.set_key(j, k);
        plain.key[j] = k;
        break;
      }
      case 1: // placed, under its key and with its status now
        queue.place(j, plain.status[j], shape_of(j));
        plain.placed[j] = 1;
        break;
      case 2:
        queue.drop(j);
        plain.placed[j] = 0;
        break;
      case 3:
      case 4: // the runtime changes its status, and marks it (sometimes many times: the log
              // starts over)
        plain.status[j] = statuses[rng() % std::size(statuses)];
        log.mark(j);
        if (rng() % 50 == 0) {
          for (JobId n = 0; n < jobs + 1100; ++n)
            log.mark(n % jobs);
        }
        break;
      default: { // sync, then compare
        restarts += log.for_each_since(synced_stamp, [](JobId) {}) ? 0 : 1;
        queue.sync(log, [&](JobId k) { return plain.status[k]; });
        synced_stamp = log.stamp();
        const std::vector<Key> want = plain.offered();
        REQUIRE(queue.offered().size() == want.size());
        REQUIRE(std::equal(queue.offered().begin(), queue.offered().end(), want.begin(),
                           [](const auto& o, const Key& k) { return o.key == k; }));
        // Each entry carries its job's shape's number: one number per shape (id modulo 3).
        std::map<JobId, std::uint32_t> number_by_shape;
        std::set<std::uint32_t> numbers;
        for (const auto& o : queue.offered()) {
          const auto [it, added] = number_by_shape.emplace(std::get<1>(o.key) % 3, o.shape);
          CHECK(it->second == o.shape);
          if (added) CHECK(numbers.insert(o.shape).second);
        }
        CHECK(queue.any_may_wait() == plain.any_may_wait());
        for (JobId k = 0; k < jobs; ++k) {
          CHECK(queue.placed(k) == (plain.placed[k] != 0));
          CHECK(queue.key(k) == plain.key[k]);
        }
        offered_seen += want.size();
        if (rng() % 4 == 0) { // the placed jobs that may not wait dropped
          queue.drop_not_waiting();
          for (JobId k = 0; k < jobs; ++k) {
            const JobStatus s = plain.status[k];
            if (plain.placed[k] && s != JobStatus::kPending && s != JobStatus::kSuspended &&
                s != JobStatus::kSuspending) {
              plain.placed[k] = 0;
              ++dropped;
            }
          }
          for (JobId k = 0; k < jobs; ++k)
            CHECK(queue.placed(k) == (plain.placed[k] != 0));
        }
        break;
      }
      }
    }
  }
  // The runs offered jobs, restarted the log and dropped jobs that may not wait.
  CHECK(offered_seen > 1000);
  CHECK(restarts > 0);
  CHECK(dropped > 100);
}

// The runtime's job lists (sim/runtime/job_lists.h): O(1) moves that keep each list in the order
// jobs entered it, and walks that survive the walked job moving.
#include "sim/runtime/job_lists.h"

#include <catch2/catch.hpp>

#include <stdexcept>
#include <vector>

using namespace dlsim;

namespace {

std::vector<JobId> contents(const JobLists& lists, JobList l) {
  std::vector<JobId> out;
  for (JobId j : lists.range(l))
    out.push_back(j);
  return out;
}

} // namespace

TEST_CASE("job lists keep the order jobs entered them", "[runtime][lists]") {
  JobLists lists;
  lists.resize(4);
  for (JobId j = 0; j < 4; ++j)
    lists.track(j, JobStatus::kPending);
  CHECK(contents(lists, JobList::kPending) == std::vector<JobId>{0, 1, 2, 3});
  // Binding is still waiting: no move, no change of place.
  lists.track(1, JobStatus::kBinding);
  CHECK(contents(lists, JobList::kPending) == std::vector<JobId>{0, 1, 2, 3});
  // 2 starts, then 0; 2 is preempted and re-enters pending at the back.
  lists.track(2, JobStatus::kStarting);
  lists.track(2, JobStatus::kRunning); // same list: stays
  lists.track(0, JobStatus::kRunning);
  CHECK(contents(lists, JobList::kRunning) == std::vector<JobId>{2, 0});
  lists.track(2, JobStatus::kSuspending);
  CHECK(contents(lists, JobList::kRunning) == std::vector<JobId>{2, 0});
  lists.track(2, JobStatus::kSuspended);
  CHECK(contents(lists, JobList::kPending) == std::vector<JobId>{1, 3, 2});
  CHECK(contents(lists, JobList::kRunning) == std::vector<JobId>{0});
  lists.track(0, JobStatus::kFinished);
  lists.track(3, JobStatus::kCancelled);
  CHECK(contents(lists, JobList::kOver) == std::vector<JobId>{0, 3});
  CHECK(lists.range(JobList::kPending).size() == 2);
  CHECK(lists.range(JobList::kRunning).empty());
  CHECK(lists.range(JobList::kPending).front() == 1);
  CHECK(lists.list_of_job(2) == JobList::kPending);
}

TEST_CASE("a walk survives the walked job moving and refuses to follow a moved one",
          "[runtime][lists]") {
  JobLists lists;
  lists.resize(4);
  for (JobId j = 0; j < 4; ++j)
    lists.track(j, JobStatus::kPending);
  // A policy starting every other pending job as it walks: each start moves the job under the
  // walk to running, and the walk goes on to the job that followed it.
  std::vector<JobId> seen;
  for (JobId j : lists.range(JobList::kPending)) {
    seen.push_back(j);
    if (j % 2 == 0) lists.track(j, JobStatus::kRunning);
  }
  CHECK(seen == std::vector<JobId>{0, 1, 2, 3});
  CHECK(contents(lists, JobList::kPending) == std::vector<JobId>{1, 3});
  CHECK(contents(lists, JobList::kRunning) == std::vector<JobId>{0, 2});
  // Moving the job under the walk and the one it goes to next is a misuse: the walk throws
  // instead of continuing in the running list.
  auto misuse = [&] {
    for (JobId j : lists.range(JobList::kPending)) {
      if (j == 1) {
        lists.track(1, JobStatus::kRunning);
        lists.track(3, JobStatus::kRunning);
      }
    }
  };
  CHECK_THROWS_AS(misuse(), std::logic_error);
}

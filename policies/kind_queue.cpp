#include "policies/kind_queue.h"

#include "policies/type_choice.h"

namespace dlsim {

namespace {

std::vector<std::uint32_t> free_capacity(const View& view) {
  std::vector<std::uint32_t> c(view.cluster().types.size());
  for (std::size_t t = 0; t < c.size(); ++t)
    c[t] = view.free().free(static_cast<DeviceTypeId>(t));
  return c;
}

// Job j's fastest-normalized compatible type of an open kind with `need` devices left (kNoType:
// none).
std::int32_t best_open_type(const View& view, const KindQueue& queue, const KindQueue::Pass& pass,
                            const std::vector<std::uint32_t>& left, JobId j) {
  const std::uint32_t need = view.request(j).devices();
  std::int32_t best = kNoType;
  double best_value = -1;
  for (DeviceTypeId t : view.compatible_types(j)) {
    if (!queue.kind_open(pass, t) || left[t] < need) continue;
    double v = normalized_throughput(view, j, t);
    if (v > best_value) {
      best_value = v;
      best = t;
    }
  }
  return best;
}

} // namespace

std::optional<std::vector<DeviceId>> place_on_open_kind(const View& view, JobId j,
                                                        Placement placement, std::int32_t want,
                                                        const KindQueue& queue,
                                                        const KindQueue::Pass& pass) {
  const std::uint32_t workers = view.request(j).workers;
  if (want != kNoType && queue.kind_open(pass, static_cast<DeviceTypeId>(want))) {
    if (auto d = place_on_type(view, j, placement, workers, static_cast<DeviceTypeId>(want)))
      return d;
  }
  for (DeviceTypeId t : view.compatible_types(j)) {
    if (!queue.kind_open(pass, t)) continue;
    if (auto d = place_on_type(view, j, placement, workers, t)) return d;
  }
  return std::nullopt;
}

std::vector<std::int32_t> queue_type_choice(const View& view, const KindQueue& queue) {
  const std::size_t types = view.cluster().types.size();
  std::vector<std::uint32_t> left = free_capacity(view);
  std::uint64_t free_total = 0;
  for (auto n : left)
    free_total += n;
  KindQueue::Pass pass = queue.start_pass();
  std::vector<JobId> admitted;
  std::vector<std::int32_t> first;
  std::vector<KindMask> reserved_then; // when each job was admitted
  std::vector<std::size_t> positions;
  std::size_t walked = 0;
  for (auto it = queue.entries().begin();
       it != queue.entries().end() && free_total > 0 && pass.open > 0; ++it, ++walked) {
    const std::int32_t best = best_open_type(view, queue, pass, left, it->job);
    if (best == kNoType) {
      KindQueue::reserve(pass, it->kinds);
      continue;
    }
    const std::uint32_t need = view.request(it->job).devices();
    left[static_cast<std::size_t>(best)] -= need;
    free_total -= need;
    admitted.push_back(it->job);
    first.push_back(best);
    reserved_then.push_back(pass.reserved);
    positions.push_back(walked);
  }
  TypeChoiceProblem p = type_choice_problem(view, admitted, free_capacity(view));
  for (std::size_t i = 0; i < admitted.size(); ++i) {
    for (std::size_t t = 0; t < types; ++t) {
      if (reserved_then[i] & KindQueue::bit(queue.kind_of(static_cast<DeviceTypeId>(t))))
        p.value[i * types + t] = -1;
    }
  }
  std::vector<std::int32_t> at = choose_types(p, /*select=*/false, first);
  std::vector<std::int32_t> by_position(walked, kNoType);
  for (std::size_t i = 0; i < admitted.size(); ++i)
    by_position[positions[i]] = at[i];
  return by_position;
}

} // namespace dlsim

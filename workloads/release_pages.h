// Gives the memory of records that will never be read again back to the system before the
// array that holds them is freed: build_workload releases each trace job once its spec is made,
// so that the trace and the workload are never both whole.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

namespace dlsim {

// The whole pages inside [begin, end) are handed back (madvise MADV_DONTNEED: a later read sees
// zeros, and the allocator's own bytes, outside the range, are untouched). The records there
// must never be read again; they own nothing, since no destructor will see them. Elsewhere than
// Linux, nothing happens and the memory is freed with the array as before.
template <class T>
void release_pages(T* begin, T* end) {
  static_assert(std::is_trivially_destructible_v<T>);
#if defined(__linux__) && defined(MADV_DONTNEED)
  static const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
  const auto from = (reinterpret_cast<std::uintptr_t>(begin) + page - 1) / page * page;
  const auto to = reinterpret_cast<std::uintptr_t>(end) / page * page;
  // Advice only: if it fails, the pages stay until the array is freed.
  if (to > from) (void)::madvise(reinterpret_cast<void*>(from), to - from, MADV_DONTNEED); // NOLINT
#else
  (void)begin;
  (void)end;
#endif
}

} // namespace dlsim

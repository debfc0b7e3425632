// Fuzzing speed: the Fast C++ CSV Parser (libfccp/csv.h, io::LineReader) allocates a fixed
// 3 x 16 MiB buffer for every file it opens, and under AddressSanitizer a 48 MiB new[]/delete[]
// pair costs about 100 ms (mapping and poisoning the shadow): the CSV targets ran at 4-36
// execs/s. This replacement of the array operator new keeps one freed block of 16 MiB or more
// and hands it to the next request of the same size, so each input after the first reuses the
// buffer. Every other allocation goes to malloc/free as usual, under ASan; a read or write past
// the reused block's end is still a heap-buffer-overflow (its redzone stays). Linked into the
// fuzz targets only (fuzz/CMakeLists.txt), never into dlsim.
//
// A reused block is handed out zeroed, as dlsim gets it: glibc serves 48 MiB from a fresh mmap
// (above its largest mmap threshold, 32 MiB), so every page reads 0. This matters: when a file's
// last line has no '\n', io::LineReader::next_line reads the byte after the data
// (buffer[data_end]) before it checks for the end; a stale '\n' there from an earlier, longer
// input makes it read on past the data into the stale lines and then off the block's end (the
// heap-buffer-overflow that fuzzing reported within seconds before this). Zeroing costs little:
// madvise(MADV_DONTNEED) returns the pages an input touched, and they fault in as zero pages.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <sys/mman.h>
#include <unistd.h>

namespace {

constexpr std::size_t kLarge = std::size_t{1} << 24;
std::mutex cache_mutex;
void* cached_block = nullptr;
std::size_t cached_size = 0;
void* last_large_block = nullptr; // the block handed out last, so that delete[] knows its size
std::size_t last_large_size = 0;

// Zeroes [p, p + size): whole pages by giving them back to the kernel, the partial pages at the
// ends with memset.
void zero_block(void* p, std::size_t size) {
  const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
  const auto begin = reinterpret_cast<std::uintptr_t>(p);
  const std::uintptr_t end = begin + size;
  const std::uintptr_t first = (begin + page - 1) / page * page;
  const std::uintptr_t last = end / page * page;
  if (first >= last ||
      ::madvise(reinterpret_cast<void*>(first), last - first, MADV_DONTNEED) != 0) {
    std::memset(p, 0, size);
    return;
  }
  std::memset(p, 0, first - begin);
  std::memset(reinterpret_cast<void*>(last), 0, end - last);
}

} // namespace

void* operator new[](std::size_t size) {
  if (size >= kLarge) {
    std::lock_guard<std::mutex> lock(cache_mutex);
    if (cached_block != nullptr && cached_size == size) {
      last_large_block = cached_block;
      last_large_size = size;
      cached_block = nullptr;
      zero_block(last_large_block, size);
      return last_large_block;
    }
  }
  void* p = std::malloc(size == 0 ? 1 : size);
  if (p == nullptr) throw std::bad_alloc();
  if (size >= kLarge) {
    std::lock_guard<std::mutex> lock(cache_mutex);
    last_large_block = p;
    last_large_size = size;
  }
  return p;
}

void operator delete[](void* p) noexcept {
  if (p == nullptr) return;
  {
    std::lock_guard<std::mutex> lock(cache_mutex);
    if (p == last_large_block && cached_block == nullptr) {
      cached_block = p;
      cached_size = last_large_size;
      last_large_block = nullptr;
      return;
    }
  }
  std::free(p);
}

void operator delete[](void* p, std::size_t) noexcept {
  operator delete[](p);
}

void* operator new[](std::size_t size, const std::nothrow_t&) noexcept {
  try {
    return operator new[](size);
  } catch (...) {
    return nullptr;
  }
}

void operator delete[](void* p, const std::nothrow_t&) noexcept {
  operator delete[](p);
}

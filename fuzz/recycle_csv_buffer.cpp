// Fuzzing speed: the Fast C++ CSV Parser (libfccp/csv.h, io::LineReader) allocates a fixed
// 3 x 16 MiB buffer for every file it opens, and under AddressSanitizer a 48 MiB new[]/delete[]
// pair costs about 100 ms (mapping and poisoning the shadow): the CSV targets ran at 4-36
// execs/s. This replacement of the array operator new keeps one freed block of 16 MiB or more
// and hands it to the next request of the same size, so each input after the first reuses the
// buffer. Every other allocation goes to malloc/free as usual, under ASan; a read or write past
// the reused block's end is still a heap-buffer-overflow (its redzone stays). Linked into the
// fuzz targets only (fuzz/CMakeLists.txt), never into dlsim.
#include <cstddef>
#include <cstdlib>
#include <mutex>
#include <new>

namespace {

constexpr std::size_t kLarge = std::size_t{1} << 24;
std::mutex cache_mutex;
void* cached_block = nullptr;
std::size_t cached_size = 0;
void* last_large_block = nullptr; // the block handed out last, so that delete[] knows its size
std::size_t last_large_size = 0;

} // namespace

void* operator new[](std::size_t size) {
  if (size >= kLarge) {
    std::lock_guard<std::mutex> lock(cache_mutex);
    if (cached_block != nullptr && cached_size == size) {
      last_large_block = cached_block;
      last_large_size = size;
      cached_block = nullptr;
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

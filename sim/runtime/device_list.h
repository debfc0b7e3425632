// A job's devices (JobState::devices) in 8 bytes instead of a std::vector's 24: most jobs hold
// one device or none, and at 3.4 million jobs those 16 bytes a job were 52 MiB
// (docs/performance.md#what-the-loop-holds-per-job). Reads like a const std::vector<DeviceId>
// (size, begin, end, operator[], a std::span); the runtime alone changes it (assign, append,
// clear).
//
// Zero or one device is kept inline: lo_ holds (count << 1) | 1 and hi_ the device. Two or more
// are in a heap block [count, d0, d1, ...] of exactly their number, whose address is split
// between lo_ (low half) and hi_ (high half); operator new's blocks are aligned, so the address's
// low bit, 0, tells the two apart.
#pragma once

#include "sim/cluster/cluster.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace dlsim {

class DeviceList {
public:
  DeviceList() = default;
  DeviceList(const DeviceList& o) { assign(o); }
  DeviceList(DeviceList&& o) noexcept : lo_(o.lo_), hi_(o.hi_) {
    o.lo_ = kInlineEmpty;
    o.hi_ = 0;
  }
  DeviceList& operator=(const DeviceList& o) {
    if (this != &o) assign(o);
    return *this;
  }
  DeviceList& operator=(DeviceList&& o) noexcept {
    if (this != &o) {
      release_block();
      lo_ = o.lo_;
      hi_ = o.hi_;
      o.lo_ = kInlineEmpty;
      o.hi_ = 0;
    }
    return *this;
  }
  ~DeviceList() { release_block(); }

  [[nodiscard]] std::size_t size() const { return is_inline() ? lo_ >> 1 : block()[0]; }
  [[nodiscard]] bool empty() const { return size() == 0; }
  [[nodiscard]] const DeviceId* data() const { return is_inline() ? &hi_ : block() + 1; }
  [[nodiscard]] const DeviceId* begin() const { return data(); }
  [[nodiscard]] const DeviceId* end() const { return data() + size(); }
  [[nodiscard]] DeviceId operator[](std::size_t i) const { return data()[i]; }
  [[nodiscard]] DeviceId front() const { return data()[0]; }
  [[nodiscard]] DeviceId back() const { return data()[size() - 1]; }
  // NOLINTNEXTLINE(google-explicit-constructor): read wherever a span of devices is taken
  operator std::span<const DeviceId>() const { return {data(), size()}; }
  [[nodiscard]] std::vector<DeviceId> to_vector() const { return {begin(), end()}; }
  // Whether the devices are kept in the record itself (zero or one of them): the invariant
  // checker's view of the representation.
  [[nodiscard]] bool is_inline() const { return (lo_ & 1U) != 0; }

  friend bool operator==(const DeviceList& a, std::span<const DeviceId> b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end());
  }
  friend bool operator==(const DeviceList& a, const DeviceList& b) {
    return a == std::span<const DeviceId>(b);
  }
  friend bool operator==(const DeviceList& a, const std::vector<DeviceId>& b) {
    return a == std::span<const DeviceId>(b);
  }

  // The list becomes `devices`, which may be this list's own devices or a part of them: the new
  // list is filled before the old block is freed.
  void assign(std::span<const DeviceId> devices) {
    if (devices.data() == data() && devices.size() == size()) return;
    DeviceList fresh;
    fresh.fill(devices, {});
    *this = std::move(fresh);
  }
  // `devices` added at the end.
  void append(std::span<const DeviceId> devices) {
    if (devices.empty()) return;
    DeviceList fresh;
    fresh.fill(*this, devices);
    *this = std::move(fresh);
  }
  void clear() {
    release_block();
    lo_ = kInlineEmpty;
    hi_ = 0;
  }

private:
  static constexpr std::uint32_t kInlineEmpty = 1; // inline, count 0

  [[nodiscard]] const DeviceId* block() const { return heap(); }
  [[nodiscard]] DeviceId* heap() const {
    const auto bits = (static_cast<std::uintptr_t>(hi_) << 32U) | lo_;
    return reinterpret_cast<DeviceId*>(bits); // NOLINT(performance-no-int-to-ptr)
  }
  void release_block() {
    if (!is_inline()) delete[] heap();
  }
  // Fills an empty list with a then b.
  void fill(std::span<const DeviceId> a, std::span<const DeviceId> b) {
    const std::size_t n = a.size() + b.size();
    if (n <= 1) {
      lo_ = static_cast<std::uint32_t>(n << 1U) | 1U;
      hi_ = n == 0 ? 0 : (a.empty() ? b[0] : a[0]);
      return;
    }
    auto* p = new DeviceId[n + 1];
    p[0] = static_cast<DeviceId>(n);
    std::copy(a.begin(), a.end(), p + 1);
    std::copy(b.begin(), b.end(), p + 1 + a.size());
    const auto bits = reinterpret_cast<std::uintptr_t>(p);
    lo_ = static_cast<std::uint32_t>(bits);
    hi_ = static_cast<std::uint32_t>(bits >> 32U);
  }

  std::uint32_t lo_ = kInlineEmpty;
  std::uint32_t hi_ = 0;
};

static_assert(sizeof(DeviceList) == 8);
static_assert(sizeof(std::uintptr_t) == 8, "DeviceList splits a 64-bit address in two halves");

} // namespace dlsim

// crc32_update (sim/cli/crc32_fold.h) is zlib's crc32 for every input: provenance.json's
// checksums must not change with the faster folding. Checked against the catalogue's value, and
// against zlib on every length to 3,000 bytes at every alignment, and over a long input handed
// over in uneven parts (the tails and the 16-byte remainders go to zlib, the rest is folded).
#include "sim/cli/crc32_fold.h"
#include "sim/engine/rng.h"

#include <catch2/catch.hpp>
#include <zlib.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace {

std::uint32_t zlib_crc(std::uint32_t crc, const unsigned char* p, std::size_t n) {
  return static_cast<std::uint32_t>(crc32(crc, p, static_cast<uInt>(n)));
}

} // namespace

TEST_CASE("crc32_update is zlib's CRC-32", "[provenance]") {
  // The CRC-32 catalogue's check value: "123456789" -> 0xCBF43926 (too short to fold), and the
  // same text 8 times (72 bytes: 64 folded, 8 by zlib) continued from it equals zlib's.
  const std::string check = "123456789";
  const auto* c = reinterpret_cast<const unsigned char*>(check.data());
  CHECK(dlsim::crc32_update(0, c, check.size()) == 0xCBF43926U);
  std::string eight;
  for (int i = 0; i < 8; ++i)
    eight += check;
  const auto* e = reinterpret_cast<const unsigned char*>(eight.data());
  CHECK(dlsim::crc32_update(0, e, eight.size()) == zlib_crc(0, e, eight.size()));
  CHECK(dlsim::crc32_update(0xCBF43926U, e, eight.size()) ==
        zlib_crc(0xCBF43926U, e, eight.size()));
  CHECK(dlsim::crc32_update(0, e, 0) == 0);

  dlsim::Rng rng = dlsim::Rng::stream(3, "test.crc32");
  std::vector<unsigned char> bytes(1 << 20);
  for (unsigned char& b : bytes)
    b = static_cast<unsigned char>(rng.below(256));
  for (std::size_t offset = 0; offset < 16; ++offset) {
    for (std::size_t n = 0; n <= 3000; ++n) {
      const unsigned char* p = bytes.data() + offset;
      if (dlsim::crc32_update(0, p, n) != zlib_crc(0, p, n) ||
          dlsim::crc32_update(0x12345678U, p, n) != zlib_crc(0x12345678U, p, n)) {
        INFO("offset " << offset << ", " << n << " bytes");
        REQUIRE(dlsim::crc32_update(0, p, n) == zlib_crc(0, p, n));
        REQUIRE(dlsim::crc32_update(0x12345678U, p, n) == zlib_crc(0x12345678U, p, n));
      }
    }
  }
  // 1 MiB whole, and in parts of 1 .. 70,000 bytes passed on from one to the next.
  const std::uint32_t whole = zlib_crc(0, bytes.data(), bytes.size());
  CHECK(dlsim::crc32_update(0, bytes.data(), bytes.size()) == whole);
  std::uint32_t parts = 0;
  for (std::size_t at = 0; at < bytes.size();) {
    const std::size_t n = std::min<std::size_t>(1 + rng.below(70'000), bytes.size() - at);
    parts = dlsim::crc32_update(parts, bytes.data() + at, n);
    at += n;
  }
  CHECK(parts == whole);
}

#include "sim/cli/crc32_fold.h"

#include <zlib.h>

#include <algorithm>
#include <limits>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define DLSIM_CRC32_FOLD 1
#endif

namespace dlsim {

namespace {

// zlib's crc32 on any length (its length argument is 32-bit).
std::uint32_t crc32_zlib(std::uint32_t crc, const unsigned char* data, std::size_t n) {
  uLong c = crc;
  while (n > 0) {
    const std::size_t part = std::min<std::size_t>(n, std::numeric_limits<uInt>::max());
    c = crc32(c, data, static_cast<uInt>(part));
    data += part;
    n -= part;
  }
  return static_cast<std::uint32_t>(c);
}

#ifdef DLSIM_CRC32_FOLD

__m128i load(const unsigned char* at) {
  return _mm_loadu_si128(reinterpret_cast<const __m128i*>(at));
}

// a * x^k folded onto b: the two 64-bit halves of a times their constants, added to b.
[[gnu::target("pclmul,sse4.1")]] inline __m128i fold_onto(__m128i a, __m128i k, __m128i b) {
  return _mm_xor_si128(
      _mm_xor_si128(_mm_clmulepi64_si128(a, k, 0x00), _mm_clmulepi64_si128(a, k, 0x11)), b);
}

// The folding of Gopal et al., "Fast CRC Computation for Generic Polynomials Using PCLMULQDQ
// Instruction" (Intel, 2009), for the bit-reflected polynomial 0x104C11DB7: four 128-bit
// accumulators each fold 512 bits forward per step (x^(512+64) and x^512 mod P, reflected: k1,
// k2), then fold into one (x^(128+64), x^128 mod P: k3, k4), reduce 128 to 64 bits (k5 =
// x^64 mod P) and Barrett-reduce to 32 (mu = x^64 / P and P itself). `state` is the CRC
// register (zlib's value inverted); n is a multiple of 16, at least 64.
[[gnu::target("pclmul,sse4.1")]] std::uint32_t fold(std::uint32_t state, const unsigned char* p,
                                                    std::size_t n) {
  const __m128i k1k2 = _mm_set_epi64x(0x01c6e41596, 0x0154442bd4);
  const __m128i k3k4 = _mm_set_epi64x(0x00ccaa009e, 0x01751997d0);
  const __m128i k5 = _mm_set_epi64x(0, 0x0163cd6124);
  const __m128i poly = _mm_set_epi64x(0x01f7011641, 0x01db710641);
  const __m128i low32 = _mm_setr_epi32(-1, 0, -1, 0);
  __m128i x1 = _mm_xor_si128(load(p), _mm_cvtsi32_si128(static_cast<int>(state)));
  __m128i x2 = load(p + 16);
  __m128i x3 = load(p + 32);
  __m128i x4 = load(p + 48);
  p += 64;
  n -= 64;
  for (; n >= 64; p += 64, n -= 64) {
    x1 = fold_onto(x1, k1k2, load(p));
    x2 = fold_onto(x2, k1k2, load(p + 16));
    x3 = fold_onto(x3, k1k2, load(p + 32));
    x4 = fold_onto(x4, k1k2, load(p + 48));
  }
  x1 = fold_onto(x1, k3k4, x2);
  x1 = fold_onto(x1, k3k4, x3);
  x1 = fold_onto(x1, k3k4, x4);
  for (; n >= 16; p += 16, n -= 16)
    x1 = fold_onto(x1, k3k4, load(p));
  // 128 -> 64 bits: the low half times k4 added to the high half; then the low 32 bits of
  // that times k5 added to the rest.
  __m128i x = _mm_xor_si128(_mm_srli_si128(x1, 8), _mm_clmulepi64_si128(x1, k3k4, 0x10));
  x = _mm_xor_si128(_mm_srli_si128(x, 4), _mm_clmulepi64_si128(_mm_and_si128(x, low32), k5, 0x00));
  // Barrett: q = (x mod x^32) * mu, then x + (q mod x^32) * P leaves the CRC in bits 32..63.
  __m128i q = _mm_clmulepi64_si128(_mm_and_si128(x, low32), poly, 0x10);
  q = _mm_clmulepi64_si128(_mm_and_si128(q, low32), poly, 0x00);
  return static_cast<std::uint32_t>(_mm_extract_epi32(_mm_xor_si128(x, q), 1));
}

bool has_clmul() {
  static const bool has = __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.1");
  return has;
}

#endif

} // namespace

std::uint32_t crc32_update(std::uint32_t crc, const unsigned char* data, std::size_t n) {
#ifdef DLSIM_CRC32_FOLD
  if (n >= 64 && has_clmul()) {
    const std::size_t whole = n & ~std::size_t{15};
    crc = ~fold(~crc, data, whole);
    data += whole;
    n -= whole;
  }
#endif
  return crc32_zlib(crc, data, n);
}

} // namespace dlsim

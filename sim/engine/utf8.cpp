#include "sim/engine/utf8.h"

#include <fmt/format.h>

namespace dlsim {

std::size_t invalid_utf8_offset(std::string_view text) {
  const auto* b = reinterpret_cast<const unsigned char*>(text.data());
  const std::size_t n = text.size();
  std::size_t i = 0;
  while (i < n) {
    const unsigned char c = b[i];
    if (c < 0x80) {
      ++i;
      continue;
    }
    // The sequence's length and the range of its second byte (RFC 3629, section 4).
    std::size_t len = 0;
    unsigned char lo = 0x80, hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) {
      len = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
      len = 3;
      if (c == 0xE0) lo = 0xA0; // overlong below U+0800
      if (c == 0xED) hi = 0x9F; // UTF-16 surrogates
    } else if (c >= 0xF0 && c <= 0xF4) {
      len = 4;
      if (c == 0xF0) lo = 0x90; // overlong below U+10000
      if (c == 0xF4) hi = 0x8F; // above U+10FFFF
    } else {
      return i; // a continuation byte alone, C0/C1 (overlong), or F5..FF
    }
    if (i + len > n) return i;
    if (b[i + 1] < lo || b[i + 1] > hi) return i;
    for (std::size_t k = 2; k < len; ++k) {
      if (b[i + k] < 0x80 || b[i + k] > 0xBF) return i;
    }
    i += len;
  }
  return std::string_view::npos;
}

std::string utf8_problem(std::string_view text) {
  const std::size_t at = invalid_utf8_offset(text);
  if (at == std::string_view::npos) return "";
  return fmt::format("not valid UTF-8 (byte 0x{:02x} at offset {})",
                     static_cast<unsigned char>(text[at]), at);
}

} // namespace dlsim

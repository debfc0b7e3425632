// Whether text is UTF-8: names and paths end up in JSON result files, which must be UTF-8, so the
// readers check them where they are read.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace dlsim {

// The offset of the first byte of `text` that does not belong to well-formed UTF-8 (RFC 3629:
// no overlong forms, no surrogates, nothing above U+10FFFF), or std::string_view::npos when the
// whole text is UTF-8.
std::size_t invalid_utf8_offset(std::string_view text);

// "not valid UTF-8 (byte 0xff at offset 3)" for an error message; "" when `text` is UTF-8.
std::string utf8_problem(std::string_view text);

} // namespace dlsim

// Calendar times in traces ("2017-10-07 01:11:39", as Philly and Helios write them) to seconds
// since 1970-01-01 00:00:00, and back for messages. The traces give no time zone; dlsim reads
// every time as UTC, which keeps differences exact (no daylight-saving jumps).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace dlsim {

// "YYYY-MM-DD HH:MM:SS" (or with 'T' between date and time) to seconds since the epoch;
// nullopt when the text is not such a valid date and time.
std::optional<std::int64_t> parse_datetime(std::string_view text);

// A trace field that must hold such a time: throws FieldError when it is empty or malformed.
std::int64_t datetime_field(const char* text);

// The inverse, "YYYY-MM-DD HH:MM:SS".
std::string format_datetime(std::int64_t epoch_s);

} // namespace dlsim

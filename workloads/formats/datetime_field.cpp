// Calendar arithmetic through C++20 <chrono> (sys_days), not by hand.
#include "workloads/formats/datetime_field.h"

#include "workloads/formats/field_parse.h"

#include <fmt/format.h>

#include <charconv>
#include <chrono>

namespace dlsim {

namespace {

// Reads exactly `width` digits at text[pos].
std::optional<int> digits(std::string_view text, std::size_t pos, std::size_t width) {
  if (pos + width > text.size()) return std::nullopt;
  int v = 0;
  for (std::size_t i = pos; i < pos + width; ++i) {
    if (text[i] < '0' || text[i] > '9') return std::nullopt;
    v = v * 10 + (text[i] - '0');
  }
  return v;
}

} // namespace

std::optional<std::int64_t> parse_datetime(std::string_view text) {
  // 0123456789012345678
  // YYYY-MM-DD HH:MM:SS
  if (text.size() != 19 || text[4] != '-' || text[7] != '-' ||
      (text[10] != ' ' && text[10] != 'T') || text[13] != ':' || text[16] != ':') {
    return std::nullopt;
  }
  auto y = digits(text, 0, 4), mo = digits(text, 5, 2), d = digits(text, 8, 2);
  auto h = digits(text, 11, 2), mi = digits(text, 14, 2), s = digits(text, 17, 2);
  if (!y || !mo || !d || !h || !mi || !s) return std::nullopt;
  using namespace std::chrono;
  year_month_day ymd{year{*y}, month{static_cast<unsigned>(*mo)}, day{static_cast<unsigned>(*d)}};
  if (!ymd.ok() || *h > 23 || *mi > 59 || *s > 59) return std::nullopt;
  std::int64_t days_since_epoch = sys_days{ymd}.time_since_epoch().count();
  return days_since_epoch * 86400 + *h * 3600 + *mi * 60 + *s;
}

std::int64_t datetime_field(const char* text) {
  if (text == nullptr || *text == '\0')
    throw FieldError{"missing value: expected a time YYYY-MM-DD HH:MM:SS"};
  auto t = parse_datetime(text);
  if (!t) throw FieldError{fmt::format("expected a time YYYY-MM-DD HH:MM:SS, got '{}'", text)};
  return *t;
}

std::string format_datetime(std::int64_t epoch_s) {
  using namespace std::chrono;
  std::int64_t day_count = epoch_s >= 0 ? epoch_s / 86400 : -((-epoch_s + 86399) / 86400);
  std::int64_t in_day = epoch_s - day_count * 86400;
  year_month_day ymd{sys_days{days{day_count}}};
  return fmt::format("{:04}-{:02}-{:02} {:02}:{:02}:{:02}", static_cast<int>(ymd.year()),
                     static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()),
                     in_day / 3600, in_day % 3600 / 60, in_day % 60);
}

} // namespace dlsim

// The CSV traces dlsim imports by column name (philly-csv, helios, tiresias), read with the Fast
// C++ CSV Parser: the header's names, the check that required columns are there, and a row loop
// that turns every problem into "file:line: column: what was expected" or, with
// --skip-bad-jobs, a counted skip.
#pragma once

#include "sim/engine/error.h"
#include "workloads/formats/field_parse.h"
#include "workloads/trace.h"

#include <fmt/format.h>
#include <libfccp/csv.h>

#include <array>
#include <span>
#include <string>
#include <tuple>
#include <vector>

namespace dlsim {

// The names in the first line, trimmed of spaces, tabs, '\r' and double quotes. Empty for an
// empty file; an unreadable file is an InputError.
std::vector<std::string> read_csv_header(const std::string& file);

// An InputError about line 1 for an empty header or a required column that is missing; a
// warning in `trace` naming the columns the format does not know.
void check_csv_header(Trace& trace, const std::vector<std::string>& header,
                      std::span<const char* const> known, std::span<const char* const> required,
                      const char* format);

// The position of a row being converted: a handler sets `column` before reading each field, so
// that a FieldError it throws is reported at file:line: column.
struct CsvRow {
  unsigned line = 0;
  const char* column = "";
};

// Calls on_row(cells, row) for every data row; cells[i] is columns[i]'s text (nullptr when the
// file has no such column). Blank lines are skipped. A row with the wrong number of fields, or
// one whose handler throws FieldError, goes to reject_row.
template <std::size_t N, class OnRow>
void for_each_csv_row(const std::string& file, const std::array<const char*, N>& columns,
                      std::size_t header_size, Trace& trace, const ReadOptions& options,
                      OnRow&& on_row) {
  try {
    io::CSVReader<N, io::trim_chars<' ', '\t', '\r'>, io::double_quote_escape<',', '"'>,
                  io::throw_on_overflow, io::empty_line_comment>
        in(file);
    std::apply(
        [&](auto... names) {
          in.read_header(io::ignore_extra_column | io::ignore_missing_column, names...);
        },
        columns);
    std::array<char*, N> cells{};
    while (true) {
      cells.fill(nullptr);
      bool more = false;
      try {
        more = std::apply([&](auto&... c) { return in.read_row(c...); }, cells);
      } catch (const io::error::too_few_columns&) {
        reject_row(
            trace, options,
            fmt::format("{}:{}: expected {} comma-separated fields as in the header, got fewer",
                        file, in.get_file_line(), header_size));
        continue;
      } catch (const io::error::too_many_columns&) {
        reject_row(
            trace, options,
            fmt::format("{}:{}: expected {} comma-separated fields as in the header, got more",
                        file, in.get_file_line(), header_size));
        continue;
      } catch (const io::error::escaped_string_not_closed&) {
        reject_row(trace, options,
                   fmt::format("{}:{}: expected a closing double quote", file, in.get_file_line()));
        continue;
      }
      if (!more) break;
      CsvRow row;
      row.line = in.get_file_line();
      try {
        on_row(cells, row);
      } catch (const FieldError& e) {
        reject_row(trace, options,
                   fmt::format("{}:{}: {}: {}", file, row.line, row.column, e.what));
      }
    }
  } catch (const io::error::base& e) {
    throw InputError(fmt::format("{}: {}", file, e.what()));
  }
}

} // namespace dlsim

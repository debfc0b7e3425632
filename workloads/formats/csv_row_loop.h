// The one CSV row loop of dlsim's readers (traces, node lists, net-solve's flows), on the Fast
// C++ CSV Parser: every malformed row and every field a handler rejects becomes one message
// "file:line: column: what", which the caller either throws or counts as a skipped row.
#pragma once

#include "sim/engine/error.h"
#include "workloads/formats/field_parse.h"
#include "workloads/formats/zlib_source.h"

#include <fmt/format.h>
#include <libfccp/csv.h>

#include <array>
#include <memory>
#include <string>
#include <tuple>

namespace dlsim {

// The position of a row being converted: a handler sets `column` before reading each field, so
// that a FieldError it throws is reported at file:line: column.
struct CsvRow {
  unsigned line = 0;
  const char* column = "";
};

enum class CsvHeader {
  kNamed, // a header line names the columns, in any order; extra and missing columns allowed
  kNone,  // no header line: the columns are in the given order
};

struct CsvSource {
  std::string file;
  CsvHeader header = CsvHeader::kNamed;
  std::size_t header_fields = 0; // fields of the header line, for messages (kNamed)
};

namespace csv_detail {

template <std::size_t N>
using Reader = io::CSVReader<N, io::trim_chars<' ', '\t', '\r'>, io::double_quote_escape<',', '"'>,
                             io::throw_on_overflow, io::empty_line_comment>;

template <std::size_t N>
std::unique_ptr<Reader<N>> open(const CsvSource& source,
                                const std::array<const char*, N>& columns) {
  // Every CSV reader reads through the one plain-or-gzip layer, as read_csv_header does: a .gz
  // file's header and rows are read alike.
  auto in = std::make_unique<Reader<N>>(source.file, open_plain_or_gzip(source.file));
  try {
    std::apply(
        [&](auto... names) {
          if (source.header == CsvHeader::kNone)
            in->set_header(names...);
          else
            in->read_header(io::ignore_extra_column | io::ignore_missing_column, names...);
        },
        columns);
  } catch (const io::error::duplicated_column_in_header& e) {
    throw InputError(fmt::format("{}:1: {}: the column appears twice in the header", source.file,
                                 e.column_name));
  }
  return in;
}

template <std::size_t N>
std::string field_count(const CsvSource& source, const std::array<const char*, N>& columns) {
  if (source.header == CsvHeader::kNamed) {
    return fmt::format("{} comma-separated fields as in the header", source.header_fields);
  }
  return fmt::format("{} comma-separated fields ({})", N, fmt::join(columns, ","));
}

} // namespace csv_detail

// Calls on_row(cells, row) for every data row; cells[i] is columns[i]'s text (nullptr when the
// file has no such column). Blank lines are skipped. A row with the wrong number of fields or an
// unclosed quote, or one whose handler throws FieldError, is passed as a message to
// on_bad(message), which throws or returns to go on with the next row.
template <std::size_t N, class OnRow, class OnBad>
void csv_row_loop(const CsvSource& source, const std::array<const char*, N>& columns,
                  OnRow&& on_row, OnBad&& on_bad) {
  const std::string& file = source.file;
  try {
    auto in = csv_detail::open(source, columns);
    auto bad_row = [&](const char* what) {
      on_bad(fmt::format("{}:{}: expected {}, got {}", file, in->get_file_line(),
                         csv_detail::field_count(source, columns), what));
    };
    std::array<char*, N> cells{};
    while (true) {
      cells.fill(nullptr);
      bool more = false;
      try {
        more = std::apply([&](auto&... c) { return in->read_row(c...); }, cells);
      } catch (const io::error::too_few_columns&) {
        bad_row("fewer");
        continue;
      } catch (const io::error::too_many_columns&) {
        bad_row("more");
        continue;
      } catch (const io::error::escaped_string_not_closed&) {
        on_bad(fmt::format("{}:{}: expected a closing double quote", file, in->get_file_line()));
        continue;
      }
      if (!more) break;
      CsvRow row;
      row.line = in->get_file_line();
      try {
        on_row(cells, row);
      } catch (const FieldError& e) {
        on_bad(
            fmt::format("{}:{}: {}: {}", file, row.line, *row.column ? row.column : "row", e.what));
      }
    }
  } catch (const io::error::base& e) {
    throw InputError(fmt::format("{}: {}", file, e.what()));
  }
}

// For readers that stop at the first bad row.
inline void throw_bad_row(const std::string& message) {
  throw InputError(message);
}

} // namespace dlsim

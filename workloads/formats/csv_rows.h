// The CSV traces dlsim imports by column name: the header's names, the check that required
// columns are there, and the row loop (csv_row_loop.h) that turns every problem into
// "file:line: column: what was expected" or, with --skip-bad-jobs, a counted skip.
#pragma once

#include "workloads/formats/csv_row_loop.h"
#include "workloads/trace.h"

#include <fmt/format.h>
#include <libfccp/csv.h>

#include <array>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <vector>

namespace dlsim {

// The names in the first line, trimmed of spaces, tabs, '\r' and double quotes (a UTF-8 BOM is
// dropped; the file may be gzip-compressed). Empty for an empty file; an unreadable file is an
// InputError.
std::vector<std::string> read_csv_header(const std::string& file);

// The first line (plain or gzip), without trailing spaces and '\r'; nullopt for an empty file.
// For tables published without a header line, whose files may start with one.
std::optional<std::string> read_first_line(const std::string& file);

// True when the header has the column.
bool has_column(const std::vector<std::string>& header, std::string_view name);

// An InputError about line 1 for an empty header or a required column that is missing; a
// warning in `trace` naming the columns the format does not know.
void check_csv_header(Trace& trace, const std::vector<std::string>& header,
                      std::span<const char* const> known, std::span<const char* const> required,
                      const char* format);

// The end of a CSV trace read: a warning about the `not_run` jobs with a run time of 0 s, and an
// InputError when the trace has no job (and skipped none).
void finish_trace(Trace& trace, std::size_t not_run);

// Calls on_row(cells, row) for every data row of a CSV file with a header line (csv_row_loop);
// a bad row is rejected (reject_row): an error, or a counted skip with --skip-bad-jobs.
template <std::size_t N, class OnRow>
void for_each_csv_row(const CsvSource& source, const std::array<const char*, N>& columns,
                      Trace& trace, const ReadOptions& options, OnRow&& on_row) {
  csv_row_loop(source, columns, on_row,
               [&](const std::string& message) { reject_row(trace, options, message); });
}

template <std::size_t N, class OnRow>
void for_each_csv_row(const std::string& file, const std::array<const char*, N>& columns,
                      std::size_t header_size, Trace& trace, const ReadOptions& options,
                      OnRow&& on_row) {
  for_each_csv_row(CsvSource{file, CsvHeader::kNamed, header_size}, columns, trace, options,
                   on_row);
}

} // namespace dlsim

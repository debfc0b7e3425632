// The small CSV dialect of results.csv (RFC 4180 quoting, one record per line): writing a field
// and splitting a line. Hand-written because the columns are only known at run time, which
// libfccp's fixed-column reader cannot express.
#pragma once

#include <string>
#include <vector>

namespace dlsim {

// The field as written: quoted (with "" for ") when it holds a comma, a quote, a line break or
// leading or trailing blanks; otherwise as is.
std::string csv_field(const std::string& value);

// Splits one line into fields, undoing csv_field. `where` names the file and line for errors.
std::vector<std::string> csv_split(const std::string& line, const std::string& where);

// Reads a whole CSV file: the header, then the rows, each as long as the header.
struct CsvTable {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
};
CsvTable read_csv_table(const std::string& file);

} // namespace dlsim

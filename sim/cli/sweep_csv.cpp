// CSV fields for results.csv: quoting on write, splitting on read.
#include "sim/cli/sweep_csv.h"

#include "sim/engine/error.h"

#include <fmt/format.h>

#include <fstream>

namespace dlsim {

std::string csv_field(const std::string& v) {
  bool quote = v.find_first_of(",\"\r\n") != std::string::npos ||
               (!v.empty() &&
                (v.front() == ' ' || v.back() == ' ' || v.front() == '\t' || v.back() == '\t'));
  if (!quote) return v;
  std::string out = "\"";
  for (char c : v) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
  return out;
}

std::vector<std::string> csv_split(const std::string& line, const std::string& where) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (quoted) {
      if (c != '"') {
        fields.back() += c;
      } else if (i + 1 < line.size() && line[i + 1] == '"') {
        fields.back() += '"';
        ++i;
      } else {
        quoted = false;
      }
    } else if (c == '"' && fields.back().empty()) {
      quoted = true;
    } else if (c == ',') {
      fields.emplace_back();
    } else if (c != '\r') {
      fields.back() += c;
    }
  }
  if (quoted) throw InputError(fmt::format("{}: unterminated quoted field", where));
  return fields;
}

CsvTable read_csv_table(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw InputError(fmt::format("{}: cannot read", file));
  CsvTable t;
  std::string line;
  std::size_t n = 0;
  while (std::getline(in, line)) {
    ++n;
    if (line.empty() || line == "\r") continue;
    auto fields = csv_split(line, fmt::format("{}:{}", file, n));
    if (t.header.empty()) {
      t.header = std::move(fields);
      continue;
    }
    if (fields.size() != t.header.size()) {
      throw InputError(fmt::format("{}:{}: expected {} fields like the header, got {}", file, n,
                                   t.header.size(), fields.size()));
    }
    t.rows.push_back(std::move(fields));
  }
  if (t.header.empty())
    throw InputError(fmt::format("{}: empty file (expected a header line)", file));
  return t;
}

} // namespace dlsim

// ChunkWriter (sim/report/chunk_writer.h) hands rows to the stream a chunk at a time: the stream
// must get every byte once, in order, whether rows fit the buffer, straddle a chunk's end or
// are longer than the buffer itself; and csv fields written at a pointer quote as RFC 4180 does.
#include "sim/report/chunk_writer.h"
#include "sim/report/csv_field.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <sstream>
#include <string>

namespace {

void put_row(dlsim::ChunkWriter& w, const std::string& row) {
  char* p = w.row(row.size());
  w.end_row(std::copy(row.begin(), row.end(), p));
}

} // namespace

TEST_CASE("ChunkWriter writes every row once and in order", "[outputs]") {
  std::ostringstream out;
  std::string expected;
  dlsim::ChunkWriter w(out);
  // 10,000 rows of 1..50 bytes: 255,000 bytes in all, about 4 chunks of 65,536.
  for (int i = 0; i < 10'000; ++i) {
    std::string row(static_cast<std::size_t>(1 + i % 50), static_cast<char>('a' + i % 26));
    put_row(w, row);
    expected += row;
  }
  // Before the last flush the stream holds a prefix: at least 3 chunks were handed over.
  CHECK(out.str().size() >= 3 * dlsim::ChunkWriter::kChunk);
  CHECK(out.str().size() < expected.size());
  CHECK(expected.compare(0, out.str().size(), out.str()) == 0);
  w.flush();
  CHECK(out.str() == expected);
}

TEST_CASE("ChunkWriter takes a row longer than its buffer", "[outputs]") {
  std::ostringstream out;
  dlsim::ChunkWriter w(out);
  put_row(w, "first,");
  // 3 chunks' worth in one row (196,608 bytes > kChunk + kSlack = 69,632): the buffer grows.
  const std::string big(3 * dlsim::ChunkWriter::kChunk, 'x');
  put_row(w, big);
  put_row(w, ",last");
  w.flush();
  CHECK(out.str() == "first," + big + ",last");
}

TEST_CASE("write_csv_field quotes what RFC 4180 quotes", "[outputs]") {
  auto field = [](std::string_view s) {
    std::string text(dlsim::csv_field_max(s), '\0');
    text.resize(static_cast<std::size_t>(dlsim::write_csv_field(text.data(), s) - text.data()));
    return text;
  };
  CHECK(field("job7") == "job7");
  CHECK(field("") == "");
  CHECK(field("a,b") == "\"a,b\"");
  CHECK(field("say \"hi\"") == "\"say \"\"hi\"\"\"");
  CHECK(field("two\nlines") == "\"two\nlines\"");
  CHECK(field("cr\r") == "\"cr\r\"");
  // The bound: a field of quotes only doubles each and adds two: """""""" for "".
  CHECK(field("\"\"") == "\"\"\"\"\"\"");
  CHECK(field("\"\"").size() == dlsim::csv_field_max("\"\""));
}

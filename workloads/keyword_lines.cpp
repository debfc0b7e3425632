#include "workloads/keyword_lines.h"

#include "sim/engine/error.h"
#include "workloads/formats/field_parse.h"

#include <fmt/format.h>

#include <cmath>
#include <optional>
#include <sstream>

namespace dlsim {

KeywordLines::KeywordLines(std::string_view text, std::string name) : name_(std::move(name)) {
  std::istringstream in{std::string(text)};
  std::string raw;
  while (std::getline(in, raw)) {
    ++last_;
    // `>>` splits on whitespace, so a CRLF file's '\r' never reaches a word.
    std::istringstream words(raw);
    KeywordLine line{last_, {}};
    for (std::string w; words >> w;)
      line.words.push_back(w);
    if (!line.words.empty() && line.words[0][0] != '#') lines_.push_back(std::move(line));
  }
}

void KeywordLines::fail(unsigned line, const std::string& what) const {
  throw InputError(fmt::format("{}:{}: {}", name_, line, what));
}

const KeywordLine& KeywordLines::expect(const std::string& key) {
  if (next_ >= lines_.size())
    fail(last_ + 1, fmt::format("the file ends where '{}' is expected (truncated?)", key));
  const KeywordLine& line = lines_[next_++];
  if (line.words[0] != key)
    fail(line.number, fmt::format("expected '{}', found {}", key, quote_input(line.words[0])));
  return line;
}

double KeywordLines::number(const KeywordLine& line, std::size_t i) const {
  std::optional<double> v;
  try {
    v = parse_double_field(line.words[i].c_str());
  } catch (const FieldError&) {
    v.reset();
  }
  if (!v || !std::isfinite(*v)) {
    fail(line.number, fmt::format("{}: expected a finite number, got {}", line.words[0],
                                  quote_input(line.words[i])));
  }
  return *v;
}

Eigen::VectorXd KeywordLines::vector(const std::string& key, std::size_t n, bool positive,
                                     const char* count) {
  const KeywordLine& line = expect(key);
  if (line.words.size() != n + 1) {
    fail(line.number,
         fmt::format("{}: expected {} {}, got {}", key, n, count, line.words.size() - 1));
  }
  Eigen::VectorXd v(static_cast<Eigen::Index>(n));
  for (std::size_t i = 0; i < n; ++i) {
    v(static_cast<Eigen::Index>(i)) = number(line, i + 1);
    if (positive && !(v(static_cast<Eigen::Index>(i)) > 0))
      fail(line.number, fmt::format("{}: value {} must be > 0", key, i + 1));
  }
  return v;
}

double KeywordLines::scalar(const std::string& key) {
  const KeywordLine& line = expect(key);
  if (line.words.size() != 2) fail(line.number, fmt::format("{}: expected one number", key));
  return number(line, 1);
}

void put_keyword_vector(std::string& out, const char* key, const Eigen::VectorXd& v) {
  out += key;
  for (Eigen::Index i = 0; i < v.size(); ++i)
    out += fmt::format(" {}", v(i));
  out += '\n';
}

} // namespace dlsim

// Reading the small text files dlsim writes for its learned models (the utilization predictor,
// the predictability classifier): one `key value ...` line each, blank lines and `#` comments
// skipped, every error naming the file and line.
#pragma once

#include <Eigen/Core>

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace dlsim {

struct KeywordLine {
  unsigned number = 0; // 1-based line number in the file
  std::vector<std::string> words;
};

class KeywordLines {
public:
  KeywordLines(std::string_view text, std::string name);

  // An InputError "name:line: what".
  [[noreturn]] void fail(unsigned line, const std::string& what) const;
  // The next line, which must start with `key`; an error at the end of the file.
  const KeywordLine& expect(const std::string& key);
  [[nodiscard]] bool at_end() const { return next_ >= lines_.size(); }
  [[nodiscard]] const KeywordLine& peek() const { return lines_[next_]; }
  // Word i of the line as a finite number.
  [[nodiscard]] double number(const KeywordLine& line, std::size_t i) const;
  // A `key v1 ... vn` line; `count` names what n counts in the error ("numbers"); `positive`:
  // every value must be > 0 (a standardizer's scale).
  Eigen::VectorXd vector(const std::string& key, std::size_t n, bool positive = false,
                         const char* count = "numbers");
  // A `key v` line.
  double scalar(const std::string& key);

private:
  std::string name_;
  std::vector<KeywordLine> lines_;
  std::size_t next_ = 0;
  unsigned last_ = 0;
};

// Appends the line `key v1 ... vn` (fmt's shortest round-trip text of each value).
void put_keyword_vector(std::string& out, const char* key, const Eigen::VectorXd& v);

} // namespace dlsim

#include "sim/config/nearest_name.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <numeric>
#include <utility>

namespace dlsim {

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  std::iota(row.begin(), row.end(), 0);
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

namespace {

std::string lower(std::string s) {
  for (char& c : s)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

} // namespace

std::vector<std::string> nearest_names(const std::string& name,
                                       const std::vector<std::string>& known) {
  // A quarter of the letters may differ, as for misspelt configuration keys.
  const std::size_t allowed = 1 + name.size() / 4;
  const std::string wanted = lower(name);
  std::vector<std::pair<std::size_t, std::string>> near;
  for (const std::string& k : known) {
    std::size_t d = edit_distance(wanted, lower(k));
    if (d <= allowed) near.emplace_back(d, k);
  }
  std::stable_sort(near.begin(), near.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> names;
  for (std::size_t i = 0; i < near.size() && i < 3; ++i)
    names.push_back(near[i].second);
  return names;
}

std::string unknown_name_message(const std::string& what, const std::string& name,
                                 const std::vector<std::string>& known) {
  std::vector<std::string> near = nearest_names(name, known);
  if (!near.empty())
    return fmt::format("unknown {} '{}' (did you mean {}?)", what, name, fmt::join(near, ", "));
  return fmt::format("unknown {} '{}' (known: {})", what, name, fmt::join(known, ", "));
}

} // namespace dlsim

// Bounded reading of dlsim's JSON result files (result_json.h).
#include "sim/cli/result_json.h"

#include "sim/engine/error.h"

#include <fmt/format.h>

#include <fstream>
#include <iterator>

namespace dlsim {

nlohmann::ordered_json parse_result_json(std::string_view text, const std::string& where) {
  using json = nlohmann::ordered_json;
  // The parser itself keeps its own stack; the callback sees each container as it opens, at its
  // depth (0 for the top level), and stops the parse before it goes too deep.
  auto bound = [&](int depth, json::parse_event_t event, json&) {
    if ((event == json::parse_event_t::object_start || event == json::parse_event_t::array_start) &&
        depth >= kMaxResultJsonDepth) {
      throw InputError(fmt::format("{}: not valid JSON: nested more than {} levels deep", where,
                                   kMaxResultJsonDepth));
    }
    return true;
  };
  try {
    return json::parse(text.begin(), text.end(), bound);
  } catch (const json::exception& e) {
    throw InputError(fmt::format("{}: not valid JSON: {}", where, e.what()));
  }
}

nlohmann::ordered_json read_result_json(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw InputError(fmt::format("{}: cannot read", file));
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw InputError(fmt::format("{}: cannot read", file));
  return parse_result_json(text, file);
}

} // namespace dlsim

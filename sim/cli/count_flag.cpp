#include "sim/cli/count_flag.h"

#include <boost/program_options.hpp>

#include <algorithm>
#include <cctype>
#include <charconv>

namespace dlsim {

void validate(boost::any& out, const std::vector<std::string>& values, Count*, int) {
  namespace po = boost::program_options;
  po::validators::check_first_occurrence(out);
  const std::string& text = po::validators::get_single_string(values);
  Count c;
  bool digits = !text.empty() && std::all_of(text.begin(), text.end(), [](unsigned char ch) {
    return std::isdigit(ch) != 0;
  });
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), c.value);
  if (!digits || ec != std::errc() || end != text.data() + text.size()) {
    // Boost fills in the option's name as it unwinds through the parser.
    po::error_with_option_name e("the argument ('%value%') for option '%canonical_option%' is "
                                 "invalid: expected a whole number from 0 to 2^64-1");
    e.set_substitute("value", text);
    throw e;
  }
  out = c;
}

} // namespace dlsim

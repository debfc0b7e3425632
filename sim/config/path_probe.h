#pragma once
// Questions about a path that never throw. std::filesystem's throwing overloads raise
// filesystem_error when the OS refuses to look at a name at all (ENAMETOOLONG for a component
// over 255 bytes, ELOOP, EACCES on a parent directory), and that escaped dlsim's error handling
// as an abort. A path that cannot be examined is treated as absent here, so the code that goes
// on to open it (or says it is missing) names the file in an InputError.

#include <filesystem>
#include <system_error>

namespace dlsim {

inline bool path_exists(const std::filesystem::path& p) noexcept {
  std::error_code ec;
  return std::filesystem::exists(p, ec);
}

inline bool is_directory_path(const std::filesystem::path& p) noexcept {
  std::error_code ec;
  return std::filesystem::is_directory(p, ec);
}

inline bool is_regular_file_path(const std::filesystem::path& p) noexcept {
  std::error_code ec;
  return std::filesystem::is_regular_file(p, ec);
}

} // namespace dlsim

// A private scratch directory for one fuzzing process: the readers take file paths, so each
// input is written to a file there first. Removed when the process exits.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace dlsim::fuzz {

// The directory, made on first use (mkdtemp under $TMPDIR or /tmp).
const std::string& scratch_dir();

// Writes bytes to scratch_dir()/name and returns the path.
std::string write_input(const std::string& name, const std::uint8_t* data, std::size_t size);

} // namespace dlsim::fuzz

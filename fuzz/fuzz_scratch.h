// Inputs for the fuzz targets as in-memory files: the readers take file paths, so each input is
// written to a memfd (memfd_create, no disk) and named by its /proc/self/fd/N path. A scratch
// directory remains for readers that need a directory (pai2020); it is removed at exit.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace dlsim::fuzz {

// The directory, made on first use (mkdtemp under $TMPDIR, else /dev/shm, else /tmp).
const std::string& scratch_dir();

// Writes bytes to an in-memory file kept for `name` (one memfd per name, reused) and returns its
// path, /proc/self/fd/N.
std::string memory_input(const std::string& name, const std::uint8_t* data, std::size_t size);

// Writes bytes to scratch_dir()/name and returns the path.
std::string write_input(const std::string& name, const std::uint8_t* data, std::size_t size);

} // namespace dlsim::fuzz

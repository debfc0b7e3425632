// Inputs for the fuzz targets as in-memory files: the readers take file paths, so each input is
// written to a memfd (memfd_create, no disk) and named by its /proc/self/fd/N path. A scratch
// directory remains for readers that need a directory (pai2020); it is removed at exit.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace dlsim::fuzz {

// The directory, made on first use (mkdtemp under $TMPDIR, else /dev/shm, else /tmp).
const std::string& scratch_dir();

// Writes bytes to an in-memory file kept for `name` (one memfd per name, reused) and returns its
// path, /proc/self/fd/N.
std::string memory_input(const std::string& name, const std::uint8_t* data, std::size_t size);

// Writes bytes to scratch_dir()/name and returns the path.
std::string write_input(const std::string& name, const std::uint8_t* data, std::size_t size);

// The input cut into at most `parts` pieces at lines "%%" (the separator "\n%%\n"); the last
// piece keeps any further separators. An empty input is one empty piece.
std::vector<std::string_view> split_input(const std::uint8_t* data, std::size_t size,
                                          std::size_t parts);

// A directory scratch_dir()/sub kept from one input to the next, holding files[i] with the text
// of pieces[i] for each piece given; the files without a piece are removed. Returns its path.
std::string input_dir(const std::string& sub, const std::vector<std::string>& files,
                      const std::vector<std::string_view>& pieces);

// A file `name` holding the bytes, in the directory input_dir(sub) keeps: for a YAML input that
// names other files by relative path, which must resolve in a scratch directory (in a memfd's
// /proc/self/fd/ a name such as `1` is the fuzzer's own stdout, and reading it blocks).
std::string file_in_dir(const std::string& sub, const std::string& name, const std::uint8_t* data,
                        std::size_t size);

// Aborts (a finding) when `text`, the contents of `what`, is not UTF-8: every result file and
// report dlsim writes must be.
void require_utf8(std::string_view text, const std::string& what);

// The whole contents of a file dlsim wrote, as bytes.
std::string file_bytes(const std::string& path);

} // namespace dlsim::fuzz

// CRC-32 (the gzip/zlib polynomial) of large inputs at memory speed: provenance.json names every
// input file by its CRC-32, and the trace of a million-job run is 33 MB (117 MB for 3.4M jobs),
// which zlib's table-driven crc32 took 6 ms (20 ms) of CPU to read.
#pragma once

#include <cstddef>
#include <cstdint>

namespace dlsim {

// zlib's crc32(crc, data, n), the same value for every input: start with crc = 0 and pass the
// result on to continue over the next part. Folds 64 bytes at a time with carry-less multiplies
// (PCLMULQDQ) when the processor has them, zlib for short inputs, the tail and other processors.
std::uint32_t crc32_update(std::uint32_t crc, const unsigned char* data, std::size_t n);

} // namespace dlsim

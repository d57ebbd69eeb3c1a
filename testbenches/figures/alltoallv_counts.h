// The all-to-all-v counts file of `figures collectives --op alltoallv --counts F`: a CSV of p rows
// of p byte counts (row i: what rank i sends to rank j).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace asim {

// The --counts matrix, p x p row-major; InputError naming --counts, the file and line when it is
// not p rows of p non-negative integers or the counts add up to more than 2^60 bytes.
std::vector<uint64_t> read_counts(const std::string& path, uint32_t p);

}  // namespace asim

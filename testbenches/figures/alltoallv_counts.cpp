#include "testbenches/figures/alltoallv_counts.h"

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "models/common/errors.h"
#include "models/common/trace.h"

namespace asim {

std::vector<uint64_t> read_counts(const std::string& path, uint32_t p) {
    std::ifstream in(path);
    if (!in) throw InputError(fmt::format("--counts {}: cannot read the file", path));
    std::vector<uint64_t> counts;
    counts.reserve(static_cast<std::size_t>(p) * p);
    std::string line;
    uint32_t rows = 0, number = 0;
    uint64_t total = 0;
    while (std::getline(in, line)) {
        ++number;
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (line.find_first_not_of(" \t") == std::string::npos) continue;  // blank lines
        if (++rows > p)
            throw InputError(fmt::format(
                "--counts {}:{}: more than {} rows (the group has {} ranks)", path, number, p, p));
        std::stringstream cells(line);
        std::string cell;
        uint32_t columns = 0;
        while (std::getline(cells, cell, ',')) {
            const auto a = cell.find_first_not_of(" \t"), z = cell.find_last_not_of(" \t");
            const std::string v = a == std::string::npos ? "" : cell.substr(a, z - a + 1);
            char* end = nullptr;
            errno = 0;
            const unsigned long long bytes = std::strtoull(v.c_str(), &end, 10);
            if (v.empty() || v[0] == '-' || end != v.c_str() + v.size() || errno == ERANGE)
                throw InputError(fmt::format(
                    "--counts {}:{}: column {} is '{}', not a byte count (a non-negative "
                    "integer)",
                    path, number, columns + 1, v));
            counts.push_back(bytes);
            if (__builtin_add_overflow(total, static_cast<uint64_t>(bytes), &total) ||
                total > trace::kMaxOpWork)
                throw InputError(
                    fmt::format("--counts {}:{}: the counts add up to more than 2^60 bytes, the "
                                "most one collective may move",
                                path, number));
            ++columns;
        }
        if (columns != p)
            throw InputError(fmt::format(
                "--counts {}:{}: {} columns, the group has {} ranks (row i: bytes rank i "
                "sends to ranks 0..{})",
                path, number, columns, p, p - 1));
    }
    if (rows != p)
        throw InputError(fmt::format(
            "--counts {}: {} rows, the group has {} ranks (one row per sender)", path, rows, p));
    return counts;
}

}  // namespace asim

// A trace set's index.json (traces/FORMAT.md): which trace file holds which die's ops. The reader
// checks the index and each listed file's header; `run --trace SET` and `trace export` use it.
// (`trace stats SET` still reads the index itself, for the tokens count it reports.)
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace asim {

struct TraceSet {
    std::string name;
    uint32_t dies = 0;
    std::vector<std::pair<uint32_t, std::filesystem::path>> files;  // die, path
};

// Reads and checks `path` (an index.json); file names are relative to its directory. Every
// problem (not JSON, wrong format or version, a die out of range or listed twice, one file for two
// dies, a file whose header names another die or set size) is an InputError naming the file.
TraceSet read_trace_set_index(const std::filesystem::path& path);

}  // namespace asim

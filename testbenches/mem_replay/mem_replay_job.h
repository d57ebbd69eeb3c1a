// `ascend-sim mem-replay`: replays a DRAMSim3-format memory trace into the memory system of a
// platform and reports bandwidth, latency distribution, row-hit rates and command counts.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace asim {

struct MemReplayOptions {
    std::string platform;
    std::vector<std::string> overrides;
    std::string trace;
    uint64_t issue_cap = 1;      // requests entering per cycle; 0 = no limit
    std::string target = "hbm";  // hbm | l2
    std::string request_size;    // empty: the device's transaction size (hbm), 64 B (l2)
    std::string stream =
        "general";        // stream class of --target l2 requests (the L2 partitions by it)
    std::string out_dir;  // empty: no files
};

// Runs the replay; returns the one-line summary. Writes DIR/stats.json and DIR/config.yaml
// atomically when out_dir is set. Throws InputError (exit 2) on bad input; nothing is written.
std::string mem_replay_job(const MemReplayOptions& options);

}  // namespace asim

// `ascend-sim figures hbm`: load-latency curves of the platform's HBM (latency against offered
// bandwidth, sequential and random reads) and its peak sustained bandwidth, from the JEDEC
// timing core driven like mem-replay.
#pragma once

#include <string>
#include <vector>

namespace asim {

struct FigureTable {
    std::string name;  // file stem, e.g. "hbm_load_latency"
    std::vector<std::string> columns;
    std::vector<std::vector<std::string>> rows;
    std::string csv() const;
    std::string json() const;
};

struct HbmFiguresOptions {
    std::string platform;
    std::vector<std::string> overrides;
    uint64_t requests_per_point = 20000;
};

std::vector<FigureTable> hbm_figures(const HbmFiguresOptions& o);

}  // namespace asim

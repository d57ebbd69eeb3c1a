// `ascend-sim figures hbm`: load-latency curves of the platform's HBM (latency against offered
// bandwidth, sequential and random reads) and its peak sustained bandwidth, from the JEDEC
// timing core driven like mem-replay.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "testbenches/figures/figure_table.h"

namespace asim {

struct HbmFiguresOptions {
    std::string platform;
    std::vector<std::string> overrides;
    // Requests per load point; 0: as many as arrive in 8192 cycles of tCK (8 tREFI with all-bank
    // refresh, if longer) at the point's offered rate, at least 20,000 (the saturated run of
    // hbm_peak takes the full-rate count).
    uint64_t requests_per_point = 0;
};

// A load point's achieved bandwidth in requests per cycle. Request i arrives at cycle
// floor(i / offered) and request n - 1 at `last_arrival`; `completed` reads finished by
// last_arrival plus the cycle of the run's first completion (the start-up, during which the
// device delivered nothing). The result, (completed - 1) / (last_arrival + 1), is below the
// offered rate whatever the device did, since fewer than offered x (last_arrival + 1) + 1
// requests ever arrived. Below saturation it is the offered rate less the reads still in flight
// at the end; at saturation the device's rate over the run, its start included.
double achieved_requests_per_cycle(uint64_t completed, uint64_t last_arrival);

std::vector<FigureTable> hbm_figures(const HbmFiguresOptions& o);

}  // namespace asim

// `ascend-sim figures links`: latency and bandwidth against message size of die-to-die remote
// reads and writes, within a node (die 0 to the farthest die of its node) and across nodes (die 0
// to the farthest die outside it), from the packet-level link model along the platform's routes.
// Links named in network.faults count as down (routes avoid them, or take the standby star).
// Table "links": path,op,size_bytes,latency_us,bandwidth_GBps.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "testbenches/figures/hbm_figures.h"

#include "models/interconnect/network_params.h"

namespace asim {

struct LinkFiguresOptions {
    std::string platform;
    std::vector<std::string> overrides;
    std::string sizes = "64B..64MiB";
    std::vector<std::string>
        faults;  // --fault LINK: down for the whole run, besides network.faults
};

std::vector<FigureTable> link_figures(const LinkFiguresOptions& o);

// The platform's network with the links named by --fault (e.g. "die3->die4") down from time 0,
// after those of network.faults; a name that is no link fails when the faults are resolved.
NetworkParams with_cli_faults(NetworkParams net, const std::vector<std::string>& faults);

// "A..B" (powers of two from A to B) or "A,B,C"; sizes with units. Throws InputError naming
// `option`.
std::vector<uint64_t> parse_size_list(const std::string& text, const std::string& option);

}  // namespace asim

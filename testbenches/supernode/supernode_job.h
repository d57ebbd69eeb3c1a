// `ascend-sim run --trace SET/index.json` on a platform with a `network:` section: every die of
// a generated trace set replays its own trace on its own full die model, concurrently, in one
// SystemC simulation; collectives synchronise their groups over the supernode network
// (network_bridge.h). Overlap of compute and communication follows from the traces'
// dependencies. A die can be given its own overrides (e.g. a derated clock) to see it slow its
// groups. At the `fast` fidelity a die replays its ops with per-op durations measured once per
// distinct op on the detailed model (op_time_table.h, models/chip/die/fast_die.h); fidelities mix
// per die.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "models/common/timeline.h"
#include "models/interconnect/network_params.h"

namespace asim {

struct SupernodeOptions {
    std::string platform;
    std::string index;                       // path to a trace set's index.json (or its directory)
    std::vector<std::string> overrides;      // --set, for every die and the network
    std::vector<std::string> die_overrides;  // "DIE:KEY=VALUE", for one die
    std::string out_dir;
    int64_t max_sim_time_ps = 0;
    int64_t util_window_ps = 100'000'000;  // the Cube utilisation curve's window (--util-window)
    bool progress = false;                 // a progress line (testbenches/command/progress.h)
    std::string progress_what = "run";     // its label
    std::string fidelity = "detailed";     // detailed | fast (the default for every die)
    std::vector<uint32_t> detailed_dies;   // with fidelity fast: these dies stay detailed
    std::vector<std::string>
        faults;  // "LINK@TIME" (or "LINK": down from the start), added to network.faults
    // timeline.json (op_timeline.h): per die a group `dieN` with op and collective lanes and the
    // L2 / HBM counters, pipe tracks only of the cores --timeline-cores names; a group `network`
    // with a counter per link that carried anything.
    bool timeline = false;
    bool timeline_gzip = false;
    TimelineOptions timeline_options;
};

// A --fault option, "LINK@TIME" or "LINK" (down from time 0), as a network fault; InputError
// naming the option when the time does not parse. The link is checked against the topology later.
LinkFault parse_fault_option(const std::string& option);

// Whether `trace` names a trace set (an index.json, or a directory holding one).
bool is_trace_set(const std::string& trace);

// Reads a trace set whole (its index and every die's file), throwing InputError on the first
// problem; returns the index's path, then the files' paths in the index's order.
std::vector<std::string> check_trace_set(const std::string& trace);

// Runs the set; returns the summary text (also written to summary.txt). InputError for bad input
// (before anything is simulated where it can be found then), SimulationError for a deadlock or
// the watchdog.
std::string run_supernode_job(const SupernodeOptions& options);

}  // namespace asim

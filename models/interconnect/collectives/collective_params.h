// The collective engine's parameters (`network.collectives`; network_config.cpp reads them): in a
// header of their own, so the platform's network section and the testbenches use them without
// the engine (collective_engine.h describes what each does).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "models/interconnect/collectives/schedule.h"

namespace asim {

// What an all-reduce ring with a hop over the host does (see above); the choices are listed once,
// in ring_break_choices().
enum class RingBreak { cost, forward, star };
const char* to_string(RingBreak r);
const std::vector<RingBreak>& ring_break_choices();
// Throws InputError listing the choices.
RingBreak parse_ring_break(const std::string& s);

struct CollectiveParams {
    CollectiveAlgo allreduce_algo = CollectiveAlgo::ring;  // default for all-reduce
    uint64_t chunk_bytes = 4ull << 20;                     // ring_pipelined / broadcast pieces
    double reduce_bytes_per_s = 0;                         // vector-core reduction rate (0: free)
    int64_t launch_overhead_ps = 0;                        // per collective, before the first send
    RingBreak ring_break = RingBreak::cost;                // a ring hop that needs the host
    int64_t sdma_start_ps = 0;                             // per message moved by SDMA
    int64_t aiv_start_ps = 0;                              // per message moved AIV-direct
    std::vector<CollectiveOp> aiv_direct;                  // ops whose data moves AIV-direct
    uint64_t notify_bytes = 0;                             // ready flag per receive (0: none)
    int64_t notify_overhead_ps = 0;                        // before each flag leaves
    bool uses_aiv(CollectiveOp op) const;
    // In a supernode run, each member die reads what it sends from, and writes what it receives
    // to, its HCCL buffer in HBM, and reduces on its vector cores (models/chip/die: collective
    // work).
    bool die_work = true;
    uint64_t buffer_bytes = 200ull << 20;  // HCCL_BUFFSIZE: each of the in and out buffers
    std::string problems() const;
};

}  // namespace asim

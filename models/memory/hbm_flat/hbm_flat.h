// HBM as a set of independent channels, each a bandwidth server that serves demand before
// prefetch (DESIGN §5: a demand access waits for the demand work before it and the prefetch in
// service, not for queued prefetches; PriorityBandwidthServer) with a fixed unloaded access
// latency; first come first served within each class. Addresses interleave across channels in
// `interleave_bytes` blocks through a hash, so sequential and strided streams both spread.
//
// Models: per-channel occupancy and queueing, bandwidth = channels x per-channel rate, unloaded
// latency, the bus turnaround of write drains, a read's expected wait for a refreshing bank. Leaves
// out (the JEDEC controller in ../hbm models them): banks, row buffers and JEDEC timing,
// scheduling. Derived from die.hbm, the bandwidth is the pin peak less the refresh duty
// (HbmDeviceParams::streaming_bandwidth_bytes_per_s): what the JEDEC controller sustains on a
// streaming read, an upper bound for anything less regular.
#pragma once

#include <tlm_utils/simple_target_socket.h>

#include "models/common/priority_bandwidth_server.h"
#include "models/common/tlm_target.h"

#include <cstdint>
#include <memory>
#include <string>
#include <systemc>
#include <tlm>
#include <vector>

#include "models/common/bandwidth_server.h"
#include "models/common/clock_domain.h"
#include "models/common/stats.h"
#include "models/memory/interfaces/hbm_model.h"

namespace asim {

struct HbmFlatParams {
    uint64_t capacity_bytes = 288ULL << 30;
    uint32_t stacks = 8;
    uint32_t channels_per_stack = 16;
    double bandwidth_bytes_per_s = 9.6e12;  // all stacks, one direction shared by reads and writes
    uint64_t clock_hz =
        1'600'000'000;  // the granularity of occupancy (1 THz, i.e. 1 ps, from die.hbm)
    uint64_t interleave_bytes = 256;
    int64_t latency_ps = 100'000;  // unloaded: request arrival to data return
    // Write drains: the controller gathers writes and turns its bus around once per
    // `write_batch_bytes` of them; each turn (read to write and back) leaves the bus idle for
    // `write_turnaround_ps`, charged to the batch's writes in proportion to their bytes. Only
    // while the channel also serves reads: a write pays when a read arrived on its channel at
    // most `turnaround_window_ps` before it (reads that recent still wait in the controller when
    // the drain ends, so the bus turns back). 0 bytes: no turnaround.
    uint64_t write_batch_bytes = 0;
    int64_t write_turnaround_ps = 0;
    int64_t turnaround_window_ps = 0;
    // Refresh seen by a read: entry i is the mean wait of a piece of at most 2^i bytes for a
    // refreshing bank it needs (empty: none; pieces beyond the table take its last entry).
    std::vector<int64_t> refresh_wait_ps;

    uint32_t channels() const { return stacks * channels_per_stack; }
    // Every problem, one per line, as "key: message"; empty when valid.
    std::vector<std::pair<std::string, std::string>> validate() const;
};

struct HbmFlatStats {
    Counter& reads;
    Counter& writes;
    Counter& read_bytes;
    Counter& write_bytes;
    Histogram& read_latency_ns;
    Counter& busy_cycles;        // summed over channels, turnarounds included
    Counter& turnaround_cycles;  // the part of busy_cycles spent turning the bus around
    Counter& overlap_bytes;      // demand time over granted prefetches (priority server)
};

class HbmFlat : public sc_core::sc_module, public HbmModel, public TlmTarget<HbmFlat> {
public:
    tlm_utils::simple_target_socket<HbmFlat> l2_in;

    HbmFlat(sc_core::sc_module_name name, const HbmFlatParams& params, StatsRegistry& stats);

    const HbmFlatParams& params() const { return m_params; }
    tlm::tlm_target_socket<>& l2_target() override { return l2_in; }
    uint64_t read_bytes() const override { return m_stats.read_bytes.value(); }
    uint64_t write_bytes() const override { return m_stats.write_bytes.value(); }
    void finalize_stats() override;

    // The timing core without TLM, for callers inside this folder's tests: returns the
    // completion time of an access of `bytes` at `addr` arriving at `arrival` (`prefetch`: the
    // H-JSD's, behind demand).
    Picoseconds access(Picoseconds arrival, uint64_t addr, uint64_t bytes, bool is_write,
                       bool prefetch = false);

private:
    friend class TlmTarget<HbmFlat>;
    uint64_t address_limit() const { return m_params.capacity_bytes; }
    Picoseconds serve(tlm::tlm_generic_payload& p, sc_core::sc_time& delay, int port);
    uint32_t channel_of(uint64_t addr) const;

    HbmFlatParams m_params;
    ClockDomain m_clock;
    static constexpr Picoseconds kNoRead = ~Picoseconds{0};
    struct Channel {
        PriorityBandwidthServer server;
        Picoseconds last_read = kNoRead;  // when its last read arrived (kNoRead: none yet)
    };
    std::vector<Channel> m_channels;
    Cycles turnaround_cycles(uint32_t channel, Picoseconds arrival, uint64_t bytes, bool is_write);
    HbmFlatStats m_stats;
};

}  // namespace asim

// Drives the HBM timing core (models/memory/hbm) with a stream of requests, following the
// DRAMSim3 front-end semantics (shared/refdata/dramsim3/README.md): each cycle the memory ticks
// first; then records whose cycle has come enter in order until the controller refuses one
// (head-of-line blocking) or `issue_cap` have entered (0: no cap). Done when all completed.
// No SystemC kernel: the loop jumps from one cycle with work to the next.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/memory/hbm/hbm_controller.h"
#include "testbenches/mem_replay/mem_trace.h"

namespace asim {

// Exact counts below 64 Ki cycles, 1/64-of-a-power-of-two buckets above: percentiles are exact
// for any latency a calibration looks at, and memory stays flat however long the trace. Above
// 64 Ki they are interpolated inside the bucket and kept within [min, max] (percentile_in_bucket
// in models/common/stats.h). The exact range grows with the largest latency seen, so a short
// replay does not pay for 512 KiB of zeroed counters (page faults were a tenth of a 100 k-request
// replay's time).
class LatencyHistogram {
public:
    void add(uint64_t v);
    uint64_t count() const { return m_n; }
    double mean() const {
        return m_n ? static_cast<double>(m_sum) / static_cast<double>(m_n) : 0.0;
    }
    uint64_t min() const { return m_n ? m_min : 0; }
    uint64_t max() const { return m_max; }
    // The nearest-rank q-quantile (the ceil(q * count)-th smallest sample).
    uint64_t percentile(double q) const;

private:
    static constexpr uint64_t kExact = 1 << 16;
    std::vector<uint64_t> m_exact;  // grows by powers of two up to kExact
    std::vector<uint64_t> m_log = std::vector<uint64_t>(64 * 64, 0);
    uint64_t m_n = 0, m_sum = 0, m_min = 0, m_max = 0;
};

// Completion times in a fixed number of bins whose width doubles as the run grows: the cycle of
// the k-th completion to within one bin (under 1/2048 of the run).
class CompletionTimeline {
public:
    void add(uint64_t cycle);
    uint64_t cycle_of_fraction(double q) const;  // cycle by which a fraction q had completed
    uint64_t count() const { return m_n; }

private:
    static constexpr std::size_t kBins = 4096;
    std::vector<uint64_t> m_bins = std::vector<uint64_t>(kBins, 0);
    uint64_t m_width = 1, m_n = 0;
};

struct ReplayResult {
    uint64_t requests = 0, reads = 0, writes = 0;
    uint64_t total_cycles = 0;  // cycle of the last completion
    LatencyHistogram read_from_trace, read_from_accept;
    CompletionTimeline completions;
    HbmChannelStats counters;
};

// `next` yields records in trace order (false at the end). Throws InputError for an address
// beyond the device's capacity, naming `where(addr)`.
ReplayResult run_replay(const HbmDeviceParams& device, const std::function<bool(MemRecord&)>& next,
                        uint64_t issue_cap, const std::function<std::string()>& where);

// The summary block of stats.json (issue 3's keys) for a finished replay.
nlohmann::json replay_summary(const ReplayResult& r, const HbmDeviceParams& device);

}  // namespace asim

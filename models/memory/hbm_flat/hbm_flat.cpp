#include "models/memory/hbm_flat/hbm_flat.h"

#include <algorithm>

#include "models/common/op_ledger.h"
#include "models/common/payload.h"

namespace asim {

namespace {
// The smallest i with 2^i >= x (0 for x <= 1).
std::size_t ceil_log2(uint64_t x) {
    return x <= 1 ? 0 : 64 - static_cast<std::size_t>(__builtin_clzll(x - 1));
}
}  // namespace

std::vector<std::pair<std::string, std::string>> HbmFlatParams::validate() const {
    std::vector<std::pair<std::string, std::string>> problems;
    if (capacity_bytes == 0) problems.emplace_back("capacity", "must be greater than zero");
    if (stacks == 0) problems.emplace_back("stacks", "must be at least 1");
    if (channels_per_stack == 0) problems.emplace_back("channels_per_stack", "must be at least 1");
    if (!(bandwidth_bytes_per_s > 0))
        problems.emplace_back("bandwidth", "must be greater than zero");
    if (clock_hz == 0) problems.emplace_back("clock", "must be greater than zero");
    if (interleave_bytes == 0 || (interleave_bytes & (interleave_bytes - 1)) != 0) {
        problems.emplace_back("interleave", "must be a power of two");
    }
    if (latency_ps < 0) problems.emplace_back("latency", "must not be negative");
    if (write_turnaround_ps < 0) problems.emplace_back("write_turnaround", "must not be negative");
    if (turnaround_window_ps < 0)
        problems.emplace_back("turnaround_window", "must not be negative");
    for (const int64_t wait : refresh_wait_ps) {
        if (wait < 0) {
            problems.emplace_back("refresh_wait", "must not be negative");
            break;
        }
    }
    return problems;
}

HbmFlat::HbmFlat(sc_core::sc_module_name name, const HbmFlatParams& params, StatsRegistry& stats)
    : sc_module(name),
      l2_in("l2_in"),
      m_params(params),
      m_clock(std::string(this->name()) + ".clock", params.clock_hz),
      m_stats{StatsGroup(stats, *this).counter("reads", "read transactions"),
              StatsGroup(stats, *this).counter("writes", "write transactions"),
              StatsGroup(stats, *this).counter("read_bytes", "bytes read", "B"),
              StatsGroup(stats, *this).counter("write_bytes", "bytes written", "B"),
              StatsGroup(stats, *this)
                  .histogram("read_latency_ns", "read latency, arrival to last data", "ns"),
              StatsGroup(stats, *this)
                  .counter("busy_cycles", "channel-cycles spent transferring, summed over channels",
                           "cycles"),
              StatsGroup(stats, *this)
                  .counter("turnaround_cycles",
                           "channel-cycles of busy_cycles the bus idled turning around for write "
                           "drains",
                           "cycles"),
              StatsGroup(stats, *this)
                  .counter("overlap_bytes",
                           "bytes' worth of demand time that ran over prefetch (background) "
                           "transfers already granted, summed over channels "
                           "(priority_bandwidth_server.h)",
                           "B")} {
    const double per_channel =
        params.bandwidth_bytes_per_s / params.channels() / static_cast<double>(params.clock_hz);
    m_channels.assign(params.channels(), Channel{PriorityBandwidthServer(&m_clock, per_channel)});
    l2_in.register_b_transport(this, &HbmFlat::b_transport);
}

uint32_t HbmFlat::channel_of(uint64_t addr) const {
    const uint64_t block = addr / m_params.interleave_bytes;
    // Multiplicative hash: strides that are multiples of the channel count still spread.
    return static_cast<uint32_t>(((block * 0x9E3779B97F4A7C15ULL) >> 32) % m_channels.size());
}

Cycles HbmFlat::turnaround_cycles(uint32_t channel, Picoseconds arrival, uint64_t bytes,
                                  bool is_write) {
    Picoseconds& last_read = m_channels[channel].last_read;
    if (!is_write) {
        last_read = last_read == kNoRead ? arrival : std::max(last_read, arrival);
        return 0;
    }
    if (m_params.write_batch_bytes == 0 || last_read == kNoRead ||
        (arrival > last_read &&
         arrival - last_read > static_cast<Picoseconds>(m_params.turnaround_window_ps)))
        return 0;
    const double ps = static_cast<double>(m_params.write_turnaround_ps) *
                      static_cast<double>(bytes) / static_cast<double>(m_params.write_batch_bytes);
    const Cycles extra = m_clock.ps_to_cycles_ceil(static_cast<Picoseconds>(ps + 0.5));
    m_stats.turnaround_cycles += extra;
    return extra;
}

Picoseconds HbmFlat::access(Picoseconds arrival, uint64_t addr, uint64_t bytes, bool is_write,
                            bool prefetch) {
    Picoseconds done = arrival;
    uint64_t a = addr;
    const uint64_t end = addr + bytes;
    uint64_t largest = 0;  // the largest piece, for its refresh wait
    while (a < end) {
        const uint64_t block_end = (a / m_params.interleave_bytes + 1) * m_params.interleave_bytes;
        const uint64_t chunk = std::min(end, block_end) - a;
        largest = std::max(largest, chunk);
        const uint32_t c = channel_of(a);
        const auto grant = m_channels[c].server.reserve(
            arrival, chunk, prefetch, turnaround_cycles(c, arrival, chunk, is_write));
        done = std::max(done, grant.end);
        a += chunk;
    }
    done += static_cast<Picoseconds>(m_params.latency_ps);
    if (!is_write && !m_params.refresh_wait_ps.empty()) {
        const std::size_t i =
            std::min<std::size_t>(ceil_log2(largest), m_params.refresh_wait_ps.size() - 1);
        done += static_cast<Picoseconds>(m_params.refresh_wait_ps[i]);
    }
    if (is_write) {
        ++m_stats.writes;
        m_stats.write_bytes += bytes;
    } else {
        ++m_stats.reads;
        m_stats.read_bytes += bytes;
        m_stats.read_latency_ns.sample((done - arrival) / 1000);
    }
    return done;
}

Picoseconds HbmFlat::serve(tlm::tlm_generic_payload& p, sc_core::sc_time& delay, int) {
    const Picoseconds arrival =
        ClockDomain::to_ps(sc_core::sc_time_stamp()) + ClockDomain::to_ps(delay);
    const TransactionInfo* info = info_of(p);
    const bool prefetch = info && info->stream == StreamClass::kPrefetch;
    const Picoseconds done =
        access(arrival, p.get_address(), p.get_data_length(), p.is_write(), prefetch);
    if (info && info->ledger) {
        info->ledger->hbm(*info, p.get_data_length(), p.is_write());  // per-op bytes (op_ledger.h)
    }
    delivered(done, p.get_data_length());
    return done;
}

void HbmFlat::finalize_stats() {
    uint64_t busy = 0;
    uint64_t overlap = 0;
    for (const auto& c : m_channels) {
        busy += c.server.busy_cycles();
        overlap += c.server.overlap_bytes();
    }
    m_stats.busy_cycles.set(busy);
    m_stats.overlap_bytes.set(overlap);
}

}  // namespace asim

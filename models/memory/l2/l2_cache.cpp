#include "models/memory/l2/l2_cache.h"

#include <algorithm>
#include <limits>

#include "models/common/errors.h"

namespace asim {

namespace {
constexpr uint64_t kInvalid = std::numeric_limits<uint64_t>::max();
constexpr std::array<StreamClass, 4> kClasses = {StreamClass::kWeight, StreamClass::kActivation,
                                                 StreamClass::kGeneral, StreamClass::kPrefetch};

uint64_t mix(uint64_t x) {
    x ^= x >> 31;
    x *= 0x7FB5D329728EA185ULL;
    x ^= x >> 27;
    x *= 0x81DADEF4BC2DD44DULL;
    return x ^ (x >> 33);
}
}  // namespace

std::vector<std::pair<std::string, std::string>> L2Params::validate() const {
    std::vector<std::pair<std::string, std::string>> problems;
    auto pow2 = [](uint64_t v) { return v != 0 && (v & (v - 1)) == 0; };
    if (!pow2(line_bytes)) problems.emplace_back("line", "must be a power of two");
    if (ways == 0) problems.emplace_back("ways", "must be at least 1");
    if (slices == 0) problems.emplace_back("slices", "must be at least 1");
    if (line_bytes != 0 && ways != 0 && (size_bytes % (line_bytes * ways) != 0 || sets() == 0)) {
        problems.emplace_back("size", "must be a whole number of sets (line x ways)");
    }
    if (!(slice_bandwidth_bytes_per_s > 0)) {
        problems.emplace_back("slice_bandwidth", "must be greater than zero");
    }
    return problems;
}

L2Cache::L2Cache(sc_core::sc_module_name name, const L2Params& params, StatsRegistry& stats)
    : sc_module(name),
      core_in("core_in"),
      hbm_out("hbm_out"),
      m_params(params),
      m_clock(std::string(this->name()) + ".clock", params.clock_hz),
      m_sets(params.sets()),
      m_set_shift(__builtin_ctzll(params.line_bytes)),
      m_tags(params.sets() * params.ways, kInvalid),
      m_stamp(params.sets() * params.ways, 0),
      m_dirty(params.sets() * params.ways, 0),
      m_evictions(stats.counter(std::string(this->name()) + ".evictions", "lines evicted")),
      m_writebacks(stats.counter(std::string(this->name()) + ".writebacks",
                                 "dirty lines written back to HBM")),
      m_read_bytes(stats.counter(std::string(this->name()) + ".read_bytes", "bytes read by engines", "B")),
      m_write_bytes(stats.counter(std::string(this->name()) + ".write_bytes",
                                  "bytes written by engines", "B")),
      m_slice_busy_cycles(stats.counter(std::string(this->name()) + ".slice_busy_cycles",
                                        "slice-cycles transferring, summed over slices", "cycles")) {
    const double per_slice =
        params.slice_bandwidth_bytes_per_s / static_cast<double>(params.clock_hz);
    m_slices.assign(params.slices, BandwidthServer(&m_clock, per_slice));
    for (StreamClass c : kClasses) {
        const std::string base = std::string(this->name()) + "." + std::string(to_string(c));
        m_class_stats.push_back({stats.counter(base + ".hits", "line hits"),
                                 stats.counter(base + ".misses", "line misses")});
    }
    core_in.register_b_transport(this, &L2Cache::b_transport);
}

uint64_t L2Cache::hits() const {
    uint64_t n = 0;
    for (const auto& s : m_class_stats) n += s.hits.value();
    return n;
}

uint64_t L2Cache::misses() const {
    uint64_t n = 0;
    for (const auto& s : m_class_stats) n += s.misses.value();
    return n;
}

bool L2Cache::lookup_and_install(uint64_t line_addr, bool is_write, bool& evicted_dirty,
                                 uint64_t& victim_addr) {
    const uint64_t line = line_addr >> m_set_shift;
    const uint64_t set = mix(line) % m_sets;
    const std::size_t base = set * m_params.ways;
    ++m_use_counter;
    // Victim: the first empty way, else the least recently used one.
    std::size_t victim = base;
    bool found_empty = false;
    for (std::size_t w = base; w < base + m_params.ways; ++w) {
        if (m_tags[w] == line) {
            m_stamp[w] = m_use_counter;
            if (is_write) m_dirty[w] = 1;
            evicted_dirty = false;
            return true;
        }
        if (found_empty) continue;
        if (m_tags[w] == kInvalid) {
            victim = w;
            found_empty = true;
        } else if (m_stamp[w] < m_stamp[victim]) {
            victim = w;
        }
    }
    evicted_dirty = m_tags[victim] != kInvalid && m_dirty[victim];
    if (m_tags[victim] != kInvalid) ++m_evictions;
    victim_addr = m_tags[victim] << m_set_shift;
    m_tags[victim] = line;
    m_stamp[victim] = m_use_counter;
    m_dirty[victim] = is_write ? 1 : 0;
    return false;
}

Picoseconds L2Cache::hbm_access(Picoseconds now, Picoseconds arrival, uint64_t addr,
                                uint64_t bytes, bool is_write, const TransactionInfo* info) {
    tlm::tlm_generic_payload* p = m_pool.acquire();
    p->set_command(is_write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
    p->set_address(addr);
    p->set_data_length(static_cast<unsigned>(bytes));
    p->set_streaming_width(static_cast<unsigned>(bytes));
    TransactionInfo* mine = info_of(*p);
    if (info) *mine = *info;
    mine->engine = name();
    sc_core::sc_time delay = ClockDomain::from_ps(arrival - now);
    hbm_out->b_transport(*p, delay);
    check_response(*p, name());
    p->release();
    return now + ClockDomain::to_ps(delay);
}

void L2Cache::b_transport(int /*port*/, tlm::tlm_generic_payload& p, sc_core::sc_time& delay) {
    if (!validate_payload(p, m_params.address_space_bytes)) return;
    const TransactionInfo* info = info_of(p);
    const StreamClass cls = info ? info->stream : StreamClass::kGeneral;
    ClassStats& cs = m_class_stats[static_cast<std::size_t>(cls)];
    const bool is_write = p.is_write();
    const Picoseconds now = ClockDomain::to_ps(sc_core::sc_time_stamp());
    const Picoseconds arrival = now + ClockDomain::to_ps(delay);
    const Picoseconds hit_latency = m_clock.cycles_to_ps(m_params.hit_latency_cycles);

    const uint64_t addr = p.get_address();
    const uint64_t end = addr + p.get_data_length();
    const uint64_t line_bytes = m_params.line_bytes;
    Picoseconds done = arrival;
    uint64_t miss_run_start = 0, miss_run_end = 0;  // [start, end) of contiguous missing lines
    auto flush_miss_run = [&] {
        if (miss_run_end > miss_run_start) {
            done = std::max(done, hbm_access(now, arrival + hit_latency, miss_run_start,
                                             miss_run_end - miss_run_start, false, info));
        }
        miss_run_start = miss_run_end = 0;
    };

    for (uint64_t line_addr = addr & ~(line_bytes - 1); line_addr < end; line_addr += line_bytes) {
        const uint64_t lo = std::max(addr, line_addr);
        const uint64_t hi = std::min(end, line_addr + line_bytes);
        const uint64_t slice = mix(line_addr >> m_set_shift ^ 0x5bd1e995ULL) % m_slices.size();
        const auto grant = m_slices[slice].reserve(arrival, hi - lo);
        bool evicted_dirty = false;
        uint64_t victim = 0;
        const bool hit = lookup_and_install(line_addr, is_write, evicted_dirty, victim);
        if (evicted_dirty) {
            ++m_writebacks;
            hbm_access(now, arrival, victim, line_bytes, true, info);  // posted
        }
        if (hit) {
            ++cs.hits;
        } else {
            ++cs.misses;
        }
        if (hit || is_write) {
            done = std::max(done, grant.end + hit_latency);
            flush_miss_run();
        } else {
            if (miss_run_end != line_addr) flush_miss_run();
            if (miss_run_end == miss_run_start) miss_run_start = line_addr;
            miss_run_end = line_addr + line_bytes;
            done = std::max(done, grant.end);
        }
    }
    flush_miss_run();
    (is_write ? m_write_bytes : m_read_bytes) += p.get_data_length();
    delay = ClockDomain::from_ps(done - now);
    p.set_response_status(tlm::TLM_OK_RESPONSE);
}

void L2Cache::finalize_stats() {
    uint64_t busy = 0;
    for (const auto& s : m_slices) busy += s.busy_cycles();
    m_slice_busy_cycles.set(busy);
}

}  // namespace asim

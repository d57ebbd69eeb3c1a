// sc_spawn (the lanes) needs this before SystemC is first included.
#define SC_INCLUDE_DYNAMIC_PROCESSES
#include "models/memory/l2/l2_cache.h"

#include <algorithm>
#include <stdexcept>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "models/common/errors.h"
#include "models/common/op_ledger.h"

namespace asim {

namespace {
constexpr std::array<StreamClass, 4> kClasses = {StreamClass::kWeight, StreamClass::kActivation,
                                                 StreamClass::kGeneral, StreamClass::kPrefetch};
constexpr std::array<const char*, 3> kPartitionNames = {"weight", "activation", "general"};

uint64_t mix(uint64_t x) {
    x ^= x >> 31;
    x *= 0x7FB5D329728EA185ULL;
    x ^= x >> 27;
    x *= 0x81DADEF4BC2DD44DULL;
    return x ^ (x >> 33);
}

bool pow2(uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }
}  // namespace

std::vector<std::pair<std::string, std::string>> L2Params::validate() const {
    std::vector<std::pair<std::string, std::string>> problems;
    if (!pow2(line_bytes)) problems.emplace_back("line", "must be a power of two");
    if (!pow2(sector_bytes) || sector_bytes > line_bytes || line_bytes / sector_bytes > 8) {
        problems.emplace_back("sector",
                              "must be a power of two dividing the line into at most 8 sectors");
    }
    if (ways == 0) problems.emplace_back("ways", "must be at least 1");
    if (slices == 0) problems.emplace_back("slices", "must be at least 1");
    if (line_bytes != 0 && ways != 0 && (size_bytes % (line_bytes * ways) != 0 || sets() == 0)) {
        problems.emplace_back("size", "must be a whole number of sets (line x ways)");
    }
    if (!(slice_bandwidth_bytes_per_s > 0))
        problems.emplace_back("slice_bandwidth", "must be greater than zero");
    if (mshrs == 0) problems.emplace_back("mshrs", "must be at least 1");
    if (write_back_entries == 0) problems.emplace_back("write_back_entries", "must be at least 1");
    if (demand_mshrs >= mshrs)
        problems.emplace_back("demand_mshrs", "must leave prefetches at least one of the mshrs");
    if (pow2(line_bytes) && address_space_bytes / line_bytes >= (uint64_t{1} << 48) - 1) {
        problems.emplace_back("line",
                              "too small for the address space: line numbers must fit 48 bits (" +
                                  std::to_string(address_space_bytes) + " B of memory)");
    }
    if (!replacement_policy_registry().contains(replacement)) {
        problems.emplace_back("replacement",
                              replacement_policy_registry().unknown_message(replacement));
    }
    if (partitioned() && ways != 0 && size_bytes % ways == 0) {
        uint64_t total = 0;
        for (std::size_t i = 0; i < partition_bytes.size(); ++i) {
            total += partition_bytes[i];
            if (partition_bytes[i] % way_bytes() != 0) {
                problems.emplace_back(std::string("partitions.") + kPartitionNames[i],
                                      "is not a whole number of ways (" +
                                          std::to_string(way_bytes()) + " B each: size / ways)");
            }
        }
        if (total > size_bytes) {
            problems.emplace_back("partitions", "add up to " + std::to_string(total) +
                                                    " B, more than the L2's " +
                                                    std::to_string(size_bytes) + " B");
        }
    }
    return problems;
}

std::vector<L2Params::Partition> L2Params::partition_layout() const {
    if (!partitioned())
        return {{"shared",
                 ways,
                 {StreamClass::kWeight, StreamClass::kActivation, StreamClass::kGeneral}}};
    const bool any_rest = partition_rest[0] || partition_rest[1] || partition_rest[2];
    std::vector<Partition> layout;
    Partition rest{"", 0, {}};
    uint32_t used = 0;
    for (std::size_t i = 0; i < kPartitionNames.size(); ++i) {
        if (partition_rest[i]) {
            rest.name += (rest.name.empty() ? "" : "+") + std::string(kPartitionNames[i]);
            rest.classes.push_back(kClasses[i]);
            continue;
        }
        const bool takes_leftover = !any_rest && i + 1 == kPartitionNames.size();
        const uint32_t n =
            takes_leftover ? ways - used : static_cast<uint32_t>(partition_bytes[i] / way_bytes());
        layout.push_back({kPartitionNames[i], n, {kClasses[i]}});
        used += n;
    }
    if (any_rest) {
        rest.ways = ways - used;
        layout.push_back(rest);
    }
    return layout;
}

L2Cache::L2Cache(sc_core::sc_module_name name, const L2Params& params, StatsRegistry& stats)
    : sc_module(name),
      core_in("core_in"),
      hbm_out("hbm_out"),
      m_params(params),
      m_clock(std::string(this->name()) + ".clock", params.clock_hz),
      m_sets(params.sets()),
      m_line_shift(__builtin_ctzll(params.line_bytes)),
      m_sector_shift(__builtin_ctzll(params.sector_bytes)),
      m_lines(params.sets() * params.ways, Line{}),
      m_tags(params.sets() * params.ways, kInvalidTag),
      m_set_masks(params.sets(), SetMasks{}),
      m_policy(replacement_policy_registry().make(params.replacement, params.replacement_params,
                                                  params.sets() * params.ways, 0)),
      m_read_bytes(StatsGroup(stats, *this).counter("read_bytes", "bytes read by engines", "B")),
      m_write_bytes(
          StatsGroup(stats, *this).counter("write_bytes", "bytes written by engines", "B")),
      m_atomic_bytes(StatsGroup(stats, *this)
                         .counter("atomic_add_bytes",
                                  "bytes written by atomic adds (included in write_bytes)", "B")),
      m_hbm_fetch_demand(
          StatsGroup(stats, *this)
              .counter("hbm_fetch_bytes_demand", "bytes fetched from HBM for demand misses", "B")),
      m_hbm_fetch_prefetch(StatsGroup(stats, *this)
                               .counter("hbm_fetch_bytes_prefetch",
                                        "bytes fetched from HBM for prefetch fills", "B")),
      m_slice_busy_cycles(StatsGroup(stats, *this)
                              .counter("slice_busy_cycles",
                                       "slice-cycles transferring, summed over slices", "cycles")),
      m_mshr_stalls(
          StatsGroup(stats, *this).counter("mshr_stalls", "misses that waited for a free MSHR")),
      m_all_ways_filling(
          StatsGroup(stats, *this)
              .counter(
                  "all_ways_filling",
                  "misses not allocated: every way of their partition's set was being filled")) {
    const double per_slice =
        params.slice_bandwidth_bytes_per_s / static_cast<double>(params.clock_hz);
    m_slices.assign(params.slices, BandwidthServer(&m_clock, per_slice));

    auto add_partition = [&](const std::string& pname, uint32_t first, uint32_t ways) {
        const StatsGroup g = StatsGroup(stats, *this).group("partition." + pname);
        m_partitions.push_back(Partition{
            pname, first, ways,
            L2PartitionStats{g.counter("hits", "demand hits"), g.counter("misses", "demand misses"),
                             g.counter("merged", "hits on lines still being filled"),
                             g.counter("evictions", "lines evicted"),
                             g.counter("writebacks", "dirty lines written back"),
                             g.counter("prefetch_fills", "lines filled by prefetch"),
                             g.counter("prefetch_useful", "prefetched lines hit after their fill"),
                             g.counter("prefetch_late", "prefetched lines hit during their fill"),
                             g.counter("prefetch_unused", "prefetched lines evicted unused")}});
    };
    uint32_t first = 0;
    for (const L2Params::Partition& part : params.partition_layout()) {
        for (StreamClass c : part.classes)
            m_partition_of_class[static_cast<std::size_t>(c)] = m_partitions.size();
        add_partition(part.name, first, part.ways);
        first += part.ways;
    }
    // Prefetches fill the weight class's partition unless a request names another.
    m_partition_of_class[static_cast<std::size_t>(StreamClass::kPrefetch)] =
        m_partition_of_class[static_cast<std::size_t>(StreamClass::kWeight)];
    for (StreamClass c : kClasses) {
        const StatsGroup g = StatsGroup(stats, *this).group("class." + std::string(to_string(c)));
        m_class_hits[static_cast<std::size_t>(c)] =
            &g.counter("hits", "demand hits of this stream class");
        m_class_misses[static_cast<std::size_t>(c)] =
            &g.counter("misses", "demand misses of this stream class");
    }
    core_in.register_b_transport(this, &L2Cache::b_transport_tagged);
}

L2Cache::~L2Cache() = default;

uint64_t L2Cache::hits() const {
    uint64_t n = 0;
    for (const auto& p : m_partitions) n += p.stats.hits.value();
    return n;
}

uint64_t L2Cache::misses() const {
    uint64_t n = 0;
    for (const auto& p : m_partitions) n += p.stats.misses.value();
    return n;
}

std::size_t L2Cache::partition_of(StreamClass cls) const {
    return m_partition_of_class[static_cast<std::size_t>(cls)];
}

uint8_t L2Cache::sector_mask(uint64_t lo, uint64_t hi, uint64_t line_addr) const {
    const uint64_t first = (lo - line_addr) >> m_sector_shift;
    const uint64_t last = (hi - 1 - line_addr) >> m_sector_shift;
    return static_cast<uint8_t>(((1u << (last + 1)) - 1) & ~((1u << first) - 1));
}

std::size_t L2Cache::set_of(uint64_t line_number) const {
    const uint64_t h = mix(line_number);
    return (m_sets & (m_sets - 1)) == 0 ? h & (m_sets - 1) : h % m_sets;
}

std::size_t L2Cache::slice_of(uint64_t line_number) const {
    const uint64_t h = mix(line_number ^ 0x5bd1e995ULL), n = m_slices.size();
    return (n & (n - 1)) == 0 ? h & (n - 1) : h % n;
}

std::size_t L2Cache::find(uint64_t line_number, std::size_t set) const {
    const std::size_t base = set * m_params.ways;
    for (std::size_t w = find_low(line_number, set, 0); w < m_params.ways;
         w = find_low(line_number, set, w + 1)) {
        if (m_lines[base + w].tag_high == (line_number >> 32)) return base + w;
    }
    return kNone;
}

std::size_t L2Cache::find_low(uint64_t line_number, std::size_t set, std::size_t from) const {
    const uint32_t low = static_cast<uint32_t>(line_number);
    const uint32_t* tags = &m_tags[set * m_params.ways];
    std::size_t w = from;
#if defined(__SSE2__)
    // Four ways per compare: one branch per group instead of one per way.
    const __m128i key = _mm_set1_epi32(static_cast<int>(low));
    for (; w + 4 <= m_params.ways; w += 4) {
        const __m128i four = _mm_loadu_si128(reinterpret_cast<const __m128i*>(tags + w));
        const auto match =
            static_cast<unsigned>(_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(four, key))));
        if (match != 0) return w + static_cast<unsigned>(__builtin_ctz(match));
    }
#endif
    for (; w < m_params.ways; ++w) {
        if (tags[w] == low) return w;
    }
    return m_params.ways;
}

std::size_t L2Cache::allocate(uint64_t line_number, std::size_t set, std::size_t part,
                              Picoseconds when, Request& r) {
    const Partition& p = m_partitions[part];
    const std::size_t base = set * m_params.ways + p.first_way;
    std::size_t victim = kNone;
    for (std::size_t i = base; i < base + p.ways; ++i) {
        if (m_tags[i] == kInvalidTag) {
            victim = i;
            break;
        }
    }
    if (victim == kNone) {
        // Lines whose fill is in flight are never evicted (their MSHR holds them).
        const SetMasks& masks = m_set_masks[set];
        const uint64_t ways = p.ways >= 64 ? ~uint64_t{0} : (uint64_t{1} << p.ways) - 1;
        const uint64_t filling = (masks.filling >> p.first_way) & ways;
        const uint64_t prefetched = (masks.prefetched >> p.first_way) & ways;
        const std::size_t none = base + p.ways;
        if (m_params.protect_prefetched && prefetched != 0)
            victim = m_policy->victim(base, p.ways, prefetched | filling);
        if (victim == kNone || victim == none) victim = m_policy->victim(base, p.ways, filling);
        if (victim == none) {
            ++m_all_ways_filling;
            return kNone;
        }
        Line& v = m_lines[victim];
        L2PartitionStats& vs = m_partitions[v.partition].stats;
        ++vs.evictions;
        if (v.prefetched) {
            ++vs.prefetch_unused;
            release_prefetch(v);
        }
        if (v.dirty) {
            ++vs.writebacks;
            // Each run of contiguous dirty sectors is one posted write: exactly the dirty bytes.
            unsigned dirty = v.dirty;
            while (dirty) {
                const unsigned first = static_cast<unsigned>(__builtin_ctz(dirty));
                unsigned run = 0;
                while (dirty & (1u << (first + run))) dirty &= ~(1u << (first + run++));
                r.posted.push_back(
                    {when,
                     (((uint64_t{v.tag_high} << 32) | m_tags[victim]) << m_line_shift) +
                         (uint64_t{first} << m_sector_shift),
                     uint64_t{run} << m_sector_shift});
            }
        }
    }
    m_lines[victim] = Line{0, 0, 0, static_cast<uint8_t>(part), false, 0};
    m_lines[victim].tag_high = static_cast<uint16_t>(line_number >> 32);
    m_tags[victim] = static_cast<uint32_t>(line_number);
    m_policy->on_fill(victim);
    return victim;
}

void L2Cache::mark_filling(std::size_t index, std::size_t set) {
    if (filling(index)) return;
    m_lines[index].ready = kFilling;
    m_set_masks[set].filling |= uint64_t{1} << (index - set * m_params.ways);
}

Picoseconds L2Cache::kernel_now() { return ClockDomain::to_ps(sc_core::sc_time_stamp()); }

Picoseconds L2Cache::hbm_access(Picoseconds arrival, uint64_t addr, uint64_t bytes, bool is_write,
                                const TransactionInfo* info, bool prefetch) {
    tlm::tlm_generic_payload* p = m_pool.acquire();
    p->set_command(is_write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
    p->set_address(addr);
    p->set_data_length(static_cast<unsigned>(bytes));
    p->set_streaming_width(static_cast<unsigned>(bytes));
    TransactionInfo* mine = info_of(*p);
    if (info) *mine = *info;
    mine->engine = name();
    mine->noc_route = nullptr;  // the request's distances to the slices, not the HBM's
    arrival += m_noc_to_hbm;    // slice to controller
    const Picoseconds before = kernel_now();
    sc_core::sc_time delay = ClockDomain::from_ps(arrival > before ? arrival - before : 0);
    hbm_out->b_transport(*p, delay);
    check_response(*p, name());
    p->release();
    if (!is_write) (prefetch ? m_hbm_fetch_prefetch : m_hbm_fetch_demand) += bytes;
    // The target may have waited: the kernel's time now, not the time of the call.
    const Picoseconds done = kernel_now() + ClockDomain::to_ps(delay);  // at the controller
    if (m_timeline)
        m_timeline->add_bytes(is_write ? m_tl_hbm_write : m_tl_hbm_read, arrival, bytes);
    return done + m_noc_to_hbm;  // data back to the slice
}

void L2Cache::wait_for_a_fill(Request& r) {
    flush_batch(r);  // nobody may wait for a line this request has not sent for
    ++m_fill_waiters;
    wait(m_fill_returned);
    --m_fill_waiters;
}

// The time a new miss wanting to issue at `t` can take an MSHR.
Picoseconds L2Cache::mshr_issue_time(Picoseconds t, Request& r) {
    auto retire = [&] {
        while (!m_mshr_holds.empty() && m_mshr_holds.front().until <= t) {
            m_mshrs_held -= m_mshr_holds.front().count;
            m_mshr_holds.pop();
        }
    };
    retire();
    // Demand first (DESIGN §5): a prefetch leaves `demand_mshrs` free for demand misses.
    const uint64_t limit = r.prefetch ? m_params.mshrs - m_params.demand_mshrs : m_params.mshrs;
    if (m_mshrs_held + m_mshrs_in_flight + r.batch.lines.size() < limit) return t;
    flush_batch(r);  // learn when the batch's fills complete
    retire();
    if (m_mshrs_held + m_mshrs_in_flight < limit) return t;
    ++m_mshr_stalls;
    // Every MSHR is taken by fetches still in flight (a target that waits): wait for one.
    while (m_mshr_holds.empty() && m_mshrs_in_flight >= limit) {
        wait_for_a_fill(r);
        t = std::max(t, kernel_now());
        retire();
    }
    if (m_mshrs_held + m_mshrs_in_flight < limit) return t;
    // Take one MSHR of the earliest-freed batch (its time, not its order, decides).
    MshrHolds::Hold& first = m_mshr_holds.front();
    const Picoseconds free_at = first.until;
    --m_mshrs_held;
    if (--first.count == 0) m_mshr_holds.pop();
    return free_at;
}

void L2Cache::flush_batch(Request& r, bool last) {
    // Posted writes go first, in the order they were made (write-backs of the victims that made
    // room for this batch's lines).
    for (PostedWrite& w : r.posted) {
        if (!m_target_waits) {
            hbm_access(w.arrival, w.addr, w.bytes, true, r.info, false);
            continue;
        }
        // A lane writes it; no engine waits for a target to accept it. A dirty victim needs a
        // write-back entry before its line can be reused.
        while (m_lane_writes >= m_params.write_back_entries) {
            ++m_write_back_waiters;
            wait(m_write_back_room);
            --m_write_back_waiters;
        }
        ++m_lane_writes;
        if (r.info && r.info->ledger) {
            w.ledger = r.info->ledger;
            w.op_id = r.info->op_id;
        }
        LaneJob& job = hand_to_lane();
        job.request = nullptr;
        job.write = w;
    }
    r.posted.clear();
    if (r.batch.lines.empty()) return;
    m_mshrs_in_flight += r.batch.lines.size();
    if (m_target_waits && !last) {
        // A lane waits for the target; this request goes on to its next run of misses (its
        // last run it fetches itself: it would only wait for the lane).
        ++r.fetches_out;
        LaneJob& job = hand_to_lane();
        job.request = &r;
        job.batch.begin = r.batch.begin;
        job.batch.end = r.batch.end;
        job.batch.issue = r.batch.issue;
        job.batch.lines.swap(r.batch.lines);
        r.batch.lines.clear();
        return;
    }
    const Picoseconds done = hbm_access(r.batch.issue, r.batch.begin, r.batch.end - r.batch.begin,
                                        false, r.info, r.prefetch);
    fetch_returned(r, r.batch.lines, done);
    r.batch.lines.clear();
}

L2Cache::LaneJob& L2Cache::hand_to_lane() {
    if (!m_idle_lanes.empty()) {
        m_idle_lanes.back()->work.notify();
        m_idle_lanes.pop_back();
    } else {
        m_lanes.emplace_back();
        sc_core::sc_spawn(sc_bind(&L2Cache::lane, this, &m_lanes.back()),
                          sc_core::sc_gen_unique_name("lane"));
    }
    m_lane_jobs.emplace_back();
    return m_lane_jobs.back();
}

void L2Cache::lane(Lane* self) {
    // Posted writes carry no requester's transaction info, only the op they are counted for.
    TransactionInfo write_info;
    for (;;) {
        if (m_lane_jobs.empty()) {
            // Idle until a request hands over a job (another lane may have taken it by then).
            m_idle_lanes.push_back(self);
            wait(self->work);
            continue;
        }
        LaneJob job = std::move(m_lane_jobs.front());
        m_lane_jobs.pop_front();
        if (job.request == nullptr) {
            const PostedWrite& w = job.write;
            write_info.ledger = w.ledger;
            write_info.op_id = w.op_id;
            hbm_access(w.arrival, w.addr, w.bytes, true, w.ledger ? &write_info : nullptr, false);
            --m_lane_writes;  // its entry is free once the target took the write
            if (m_write_back_waiters != 0) m_write_back_room.notify(sc_core::SC_ZERO_TIME);
            continue;
        }
        Request& r = *job.request;
        const FetchBatch& b = job.batch;
        const Picoseconds done =
            hbm_access(b.issue, b.begin, b.end - b.begin, false, r.info, r.prefetch);
        fetch_returned(r, b.lines, done);
        if (--r.fetches_out == 0) r.fetches_back.notify();
    }
}

void L2Cache::fetch_returned(Request& r, const std::vector<Fill>& lines, Picoseconds done) {
    const auto count = static_cast<uint32_t>(lines.size());
    m_mshrs_in_flight -= count;
    for (const Fill& f : lines) {
        if (f.index == kNone || m_tags[f.index] != static_cast<uint32_t>(f.line_number) ||
            m_lines[f.index].tag_high != (f.line_number >> 32) || !filling(f.index)) {
            continue;
        }
        m_lines[f.index].ready = done;
        const std::size_t set = f.index / m_params.ways;
        m_set_masks[set].filling &= ~(uint64_t{1} << (f.index - set * m_params.ways));
    }
    m_mshr_holds.push({done, count});
    m_mshrs_held += count;
    r.fills_done = std::max(r.fills_done, done);
    if (m_fill_waiters != 0) m_fill_returned.notify(sc_core::SC_ZERO_TIME);
}

void L2Cache::release_prefetch(Line& line) {
    if (m_listener && line.prefetch_bytes) {
        m_listener->prefetch_released(line.partition, line.prefetch_bytes);
    }
    if (line.prefetched) {
        const auto index = static_cast<std::size_t>(&line - m_lines.data());
        const std::size_t set = index / m_params.ways;
        m_set_masks[set].prefetched &= ~(uint64_t{1} << (index - set * m_params.ways));
    }
    line.prefetched = false;
    line.prefetch_bytes = 0;
}

// The hit paths are inlined into serve()'s line loop (out of line they cost a call per line).
__attribute__((always_inline)) inline void L2Cache::write_line(Request& r, LineVisit& v) {
    L2PartitionStats& ps = *r.part_stats;
    if (v.index != kNone) {
        m_lines[v.index].valid |= v.need;
        m_lines[v.index].dirty |= v.need;
        m_policy->on_hit(v.index);
        ++ps.hits;
        ++r.hits;
        ++*r.class_hits;
        return;
    }
    ++ps.misses;
    ++r.misses;
    ++*r.class_misses;
    if (!r.no_allocate) v.index = allocate(v.line_number, v.set, r.part, v.arrival, r);
    if (v.index == kNone) {
        r.posted.push_back({v.arrival, v.lo, v.hi - v.lo});  // written through
    } else {
        m_lines[v.index].valid = v.need;
        m_lines[v.index].dirty = v.need;
    }
}

__attribute__((always_inline)) inline bool L2Cache::read_present(Request& r, LineVisit& v,
                                                                 uint8_t& missing,
                                                                 Picoseconds& done) {
    // A read of a line whose fill is still in flight (only behind a target that waits): it
    // merges with that fill, so it waits for it and then looks again.
    bool waited = false;
    while (v.index != kNone && filling(v.index)) {
        wait_for_a_fill(r);
        waited = true;
        v.index = find(v.line_number, v.set);
    }
    missing = v.need;
    if (v.index == kNone) {
        if (!r.no_allocate) v.index = allocate(v.line_number, v.set, r.part, v.arrival, r);
        return false;
    }
    Line& l = m_lines[v.index];
    missing = v.need & static_cast<uint8_t>(~l.valid);
    if (missing != 0) return false;
    const bool in_flight = waited || l.ready > v.arrival;
    if (r.prefetch) {
        if (m_listener) m_listener->prefetch_released(r.part, v.hi - v.lo);  // nothing to fill
    } else {
        L2PartitionStats& ps = *r.part_stats;
        ++ps.hits;
        ++r.hits;
        ++*r.class_hits;
        if (in_flight) ++ps.merged;
        if (l.prefetched) {
            ++(in_flight ? ps.prefetch_late : ps.prefetch_useful);
            release_prefetch(l);
        }
        m_policy->on_hit(v.index);
    }
    if (r.atomic) l.dirty |= v.need;
    done = std::max(done, l.ready + v.hop);
    return true;
}

void L2Cache::fetch_missing(Request& r, const LineVisit& v, uint8_t missing) {
    L2PartitionStats& ps = *r.part_stats;
    const std::size_t idx = v.index;
    if (r.prefetch) {
        ++ps.prefetch_fills;
        if (idx == kNone) {
            if (m_listener) m_listener->prefetch_released(r.part, v.hi - v.lo);  // streamed
        } else {
            m_set_masks[v.set].prefetched |= uint64_t{1} << (idx - v.set * m_params.ways);
            m_lines[idx].prefetched = true;
            m_lines[idx].prefetch_bytes =
                static_cast<uint16_t>(m_lines[idx].prefetch_bytes + (v.hi - v.lo));
        }
    } else {
        ++ps.misses;
        ++r.misses;
        ++*r.class_misses;
        if (idx != kNone && m_lines[idx].prefetched) {  // sector miss on a prefetched line
            ++ps.prefetch_late;
            release_prefetch(m_lines[idx]);
        }
    }
    if (idx != kNone) {
        m_lines[idx].valid |= missing;
        if (r.atomic) m_lines[idx].dirty |= v.need;
        mark_filling(idx, v.set);
    } else if (r.atomic) {
        r.posted.push_back({v.arrival, v.lo, v.hi - v.lo});  // not allocated: written through
    }
    // Fetch the missing sectors (first to last) after the tag check, once an MSHR is free.
    const uint64_t first =
        v.line_addr + (static_cast<uint64_t>(__builtin_ctz(missing)) << m_sector_shift);
    const uint64_t last =
        v.line_addr + (static_cast<uint64_t>(32 - __builtin_clz(missing)) << m_sector_shift);
    // Misses of one request are fetched as contiguous runs issued together (one HBM access per
    // run, not per line): their tag checks are taken to finish at the request's mean distance to
    // the slices, so lines a hop nearer or farther still join one run.
    const Picoseconds issue = mshr_issue_time(r.miss_check, r);
    if (!r.batch.lines.empty() && (r.batch.end != first || r.batch.issue != issue)) flush_batch(r);
    if (r.batch.lines.empty()) {
        r.batch.begin = first;
        r.batch.issue = issue;
    }
    r.batch.end = last;
    // Field by field: GCC built the pair on the stack and copied it with one 16-byte load, a
    // store-forwarding stall where 6 % of the default layer's samples landed.
    Fill& fill = r.batch.lines.emplace_back();
    fill.index = idx;
    fill.line_number = v.line_number;
}

std::unique_ptr<L2Cache::Request> L2Cache::start_request(tlm::tlm_generic_payload& p) {
    std::unique_ptr<Request> request;
    if (m_free_requests.empty()) {
        request = std::make_unique<Request>();
        request->slices.resize(m_slices.size());
    } else {
        request = std::move(m_free_requests.back());
        m_free_requests.pop_back();
    }
    Request& r = *request;
    r.info = info_of(p);
    r.fills_done = 0;
    r.hits = r.misses = 0;
    ++r.serial;
    r.visited.clear();
    const TransactionInfo* info = r.info;
    const StreamClass cls = info ? info->stream : StreamClass::kGeneral;
    r.prefetch = cls == StreamClass::kPrefetch;
    r.part = partition_of(r.prefetch ? info->prefetch_target : cls);
    r.part_stats = &m_partitions[r.part].stats;
    r.no_allocate = (info && info->no_allocate) || m_partitions[r.part].ways == 0;
    const bool is_write = p.is_write() && !r.prefetch;
    // An atomic add reads the line, adds and writes it back: the read path (a miss fetches the
    // sectors first), the slice busy for both accesses, and the line left dirty.
    r.atomic = is_write && info && info->atomic_add;
    r.write = is_write && !r.atomic;
    r.class_hits = m_class_hits[static_cast<std::size_t>(cls)];
    r.class_misses = m_class_misses[static_cast<std::size_t>(cls)];
    return request;
}

// serve()'s host-cache read-ahead (see kFarLines): sets of the lines up to kFarLines ahead,
// hashed once when their prefetch is issued and used when the loop reaches them (line i's set is
// in slot i mod kFarLines); likewise the line whose tag held line i's low bits kNearLines before
// (kNone: none did), a hint checked when the line is served (only the tags are read ahead: the
// Line, which holds the high bits, is what the hint asks the host for). Its methods store what
// they found: GCC deems a function that only prefetches pure and drops the call.
class L2Cache::LineReadAhead {
public:
    LineReadAhead(const L2Cache& l2, uint64_t first_line, uint64_t lines, const Partition& own)
        : m_l2(l2), m_first(first_line), m_lines(lines), m_own(own) {
        for (uint64_t i = 0; i < std::min(lines, kFarLines); ++i) ask_far(i);
        for (uint64_t i = 0; i < std::min(lines, kNearLines); ++i) ask_near(i);
    }
    std::size_t set(uint64_t i) const { return m_sets[i % kFarLines]; }
    std::size_t hint(uint64_t i) const { return m_hits[i % kFarLines]; }
    // The loop is at line i: ask for the lines kFarLines and kNearLines ahead.
    __attribute__((always_inline)) void reached(uint64_t i) {
        if (i + kFarLines < m_lines) ask_far(i + kFarLines);
        if (i + kNearLines < m_lines) ask_near(i + kNearLines);
    }

private:
    __attribute__((always_inline)) void ask_far(uint64_t i) {
        const std::size_t set = m_l2.set_of(m_first + i);
        m_sets[i % kFarLines] = set;
        const std::size_t ways = m_l2.m_params.ways;
        const std::size_t base = set * ways;
        for (std::size_t w = 0; w < ways; w += 64 / sizeof(uint32_t))
            __builtin_prefetch(&m_l2.m_tags[base + w]);
        if (const char* state = m_l2.m_policy->state_of(base)) {
            for (std::size_t b = 0; b < ways * m_l2.m_policy->state_bytes(); b += 64)
                __builtin_prefetch(state + b);
        }
    }
    __attribute__((always_inline)) void ask_near(uint64_t i) {
        const std::size_t set = m_sets[i % kFarLines];
        const std::size_t ways = m_l2.m_params.ways;
        const std::size_t way = m_l2.find_low(m_first + i, set, 0);
        if (way < ways) {
            m_hits[i % kFarLines] = set * ways + way;
            __builtin_prefetch(&m_l2.m_lines[set * ways + way]);
            return;
        }
        m_hits[i % kFarLines] = kNone;
        const std::size_t base = set * ways + m_own.first_way;
        for (std::size_t w = 0; w < m_own.ways; w += 64 / sizeof(Line))
            __builtin_prefetch(&m_l2.m_lines[base + w]);
        if (m_own.ways != 0) __builtin_prefetch(&m_l2.m_lines[base + m_own.ways - 1]);
        __builtin_prefetch(&m_l2.m_set_masks[set]);
    }

    const L2Cache& m_l2;
    const uint64_t m_first, m_lines;
    const Partition& m_own;
    std::array<std::size_t, kFarLines> m_sets{}, m_hits{};
};

Picoseconds L2Cache::serve(tlm::tlm_generic_payload& p, sc_core::sc_time& delay, int /*port*/) {
    std::unique_ptr<Request> request = start_request(p);
    Request& r = *request;
    const uint64_t slice_passes = r.atomic ? 2 : 1;
    const Picoseconds issued = kernel_now() + ClockDomain::to_ps(delay);
    const Picoseconds hit_latency = m_clock.cycles_to_ps(m_params.hit_latency_cycles);

    const uint64_t addr = p.get_address();
    const uint64_t end = addr + p.get_data_length();
    const uint64_t line_bytes = m_params.line_bytes;
    // A whole line's occupancy of its slice (every slice has the same rate).
    const Cycles line_busy = m_slices.front().occupancy_cycles(slice_passes * line_bytes);
    Picoseconds done = issued;
    // The on-die network: each line reaches its slice `hop` after issue and its data returns
    // `hop` later (zero without a NoC). Fills that complete in a batch return the farthest hop.
    const SliceDistances* route = r.info ? r.info->noc_route : nullptr;
    if (route && route->one_way.size() != m_slices.size())
        throw std::logic_error(std::string(name()) + ": the network's route names " +
                               std::to_string(route->one_way.size()) + " slices, the L2 has " +
                               std::to_string(m_slices.size()));
    const Picoseconds* hop_of_slice = route ? route->one_way.data() : nullptr;
    Picoseconds farthest_hop = 0;
    const Picoseconds port_mean_hop = route ? route->mean : 0;
    r.miss_check = issued + port_mean_hop + hit_latency;
    const uint64_t first_line = addr >> m_line_shift;
    const uint64_t lines = end > addr ? ((end - 1) >> m_line_shift) - first_line + 1 : 0;
    LineReadAhead ahead(*this, first_line, lines, m_partitions[r.part]);
    uint64_t line_index = 0;
    for (uint64_t line_addr = addr & ~(line_bytes - 1); line_addr < end;
         line_addr += line_bytes, ++line_index) {
        LineVisit v;
        v.line_addr = line_addr;
        v.line_number = line_addr >> m_line_shift;
        v.set = ahead.set(line_index);
        const std::size_t hint = ahead.hint(line_index);
        ahead.reached(line_index);
        v.lo = std::max(addr, line_addr);
        v.hi = std::min(end, line_addr + line_bytes);
        v.need = sector_mask(v.lo, v.hi, line_addr);
        const std::size_t slice = slice_of(v.line_number);
        v.hop = hop_of_slice ? hop_of_slice[slice] : 0;
        farthest_hop = std::max(farthest_hop, v.hop);
        v.arrival = issued + v.hop;  // at the slice
        // The slice serves the line; the request completes no sooner than hit_latency + hop
        // after the slice's last reservation for it (added up after the loop).
        Request::SliceVisit& visit = r.slices[slice];
        if (visit.request != r.serial) {
            visit = {r.serial, m_clock.ps_to_cycles_ceil(v.arrival), 0};
            r.visited.push_back(static_cast<uint32_t>(slice));
        }
        const uint64_t slice_bytes = slice_passes * (v.hi - v.lo);
        const Cycles busy =
            v.hi - v.lo == line_bytes ? line_busy : m_slices[slice].occupancy_cycles(slice_bytes);
        visit.last_end = std::max(visit.last_end,
                                  m_slices[slice].reserve_cycles(visit.arrival, busy, slice_bytes));
        // The line is where its tag was kNearLines ago unless something moved it meanwhile.
        v.index = hint != kNone && m_tags[hint] == static_cast<uint32_t>(v.line_number) &&
                          m_lines[hint].tag_high == (v.line_number >> 32)
                      ? hint
                      : find(v.line_number, v.set);
        if (r.write) {
            write_line(r, v);
            continue;
        }
        uint8_t missing = 0;
        if (read_present(r, v, missing, done)) continue;
        fetch_missing(r, v, missing);
    }
    for (const uint32_t slice : r.visited) {
        const Picoseconds hop = hop_of_slice ? hop_of_slice[slice] : 0;
        done = std::max(done, m_clock.cycles_to_ps(r.slices[slice].last_end) + hit_latency + hop);
    }
    flush_batch(r, true);
    while (r.fetches_out != 0) wait(r.fetches_back);
    if (r.fills_done != 0) done = std::max(done, r.fills_done + farthest_hop);
    finish_request(r, p, issued);
    m_free_requests.push_back(std::move(request));
    return done;  // TlmTarget annotates it relative to the kernel's time now (a target below may
                  // have waited)
}

void L2Cache::finish_request(const Request& r, const tlm::tlm_generic_payload& p,
                             Picoseconds issued) {
    const uint64_t bytes = p.get_data_length();
    (r.writes() ? m_write_bytes : m_read_bytes) += bytes;
    if (r.atomic) m_atomic_bytes += bytes;
    if (r.info && r.info->ledger && (r.hits | r.misses) != 0)
        r.info->ledger->l2(*r.info, r.hits, r.misses);
    if (m_timeline && !r.prefetch)
        m_timeline->add_bytes(r.writes() ? m_tl_write : m_tl_read, issued, bytes);
}

void L2Cache::record_to(Timeline* timeline, const std::string& l2_group,
                        const std::string& hbm_group) {
    m_timeline = timeline;
    m_tl_read = timeline->counter_track(l2_group, "L2 read by engines");
    m_tl_write = timeline->counter_track(l2_group, "L2 write by engines");
    m_tl_hbm_read = timeline->counter_track(hbm_group, "HBM read (L2 fills)");
    m_tl_hbm_write = timeline->counter_track(hbm_group, "HBM write (write-backs, write-through)");
}

void L2Cache::finalize_stats() {
    uint64_t busy = 0;
    for (const auto& s : m_slices) busy += s.busy_cycles();
    m_slice_busy_cycles.set(busy);
}

}  // namespace asim

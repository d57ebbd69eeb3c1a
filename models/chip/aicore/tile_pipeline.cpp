// sc_spawn (the load lanes) needs this before SystemC is first included.
#define SC_INCLUDE_DYNAMIC_PROCESSES
#include "models/chip/aicore/tile_pipeline.h"

#include <algorithm>
#include <array>

#include "models/chip/aicore/functional_cube.h"
#include "models/common/errors.h"

namespace asim {

namespace {
// Tiles in flight per pipeline: up to kMaxInputBuffers loaded ahead of compute, plus those
// computed but not yet stored. A power of two above that bound.
constexpr std::size_t kRing = 8;
static_assert(kRing >= 2 * kMaxInputBuffers);
constexpr Picoseconds kUnknown = ~Picoseconds{0};
constexpr Picoseconds kInFlight = kUnknown - 1;  // a load handed to a lane, not yet returned
}  // namespace

TilePipeline::TilePipeline(sc_core::sc_module_name name, const ClockDomain& clock,
                           const TilePipelineParams& params, StatsRegistry& stats,
                           FailureSink& failures)
    : sc_module(name),
      l2_out("l2_out"),
      m_clock(clock),
      m_failures(failures),
      m_lanes(params.memory_waits),
      m_load_port(&clock, params.load_bytes_per_cycle),
      m_store_port(&clock, params.store_bytes_per_cycle),
      m_tiles(StatsGroup(stats, *this).counter("tiles", "tiles processed")),
      m_cube_busy(StatsGroup(stats, *this)
                      .counter("cube_busy_cycles", "cycles the Cube issued fractals", "cycles")),
      m_vector_busy(
          StatsGroup(stats, *this)
              .counter("vector_busy_cycles", "cycles the vector unit was busy", "cycles")),
      m_mte1_busy(StatsGroup(stats, *this)
                      .counter("mte1_busy_cycles", "cycles MTE1 moved L1 -> L0A/L0B", "cycles")),
      m_load_bytes(
          StatsGroup(stats, *this).counter("load_bytes", "bytes loaded from GM (MTE2)", "B")),
      m_store_bytes(StatsGroup(stats, *this)
                        .counter("store_bytes", "bytes stored to GM (FixPipe/MTE3)", "B")) {
    SC_THREAD(run);
    if (m_lanes) {
        for (uint32_t i = 0; i < kMaxInputBuffers; ++i) {
            sc_core::sc_spawn(sc_bind(&TilePipeline::load_lane, this),
                              sc_core::sc_gen_unique_name("load_lane"));
        }
    }
}

void TilePipeline::start_load(const Tile& tile, uint64_t op_id, Picoseconds* end) {
    LaneLoad l;
    std::copy(tile.loads.begin(), tile.loads.begin() + static_cast<std::ptrdiff_t>(tile.load_count),
              l.accesses.begin());
    l.count = tile.load_count;
    l.op_id = op_id;
    l.end = end;
    *end = kInFlight;
    ++m_loads_in_flight;
    m_lane_queue.push_back(l);
    m_lane_work.notify(sc_core::SC_ZERO_TIME);
}

void TilePipeline::load_lane() {
    try {
        while (true) {
            while (m_lane_queue.empty()) wait(m_lane_work);
            const LaneLoad l = m_lane_queue.front();
            m_lane_queue.pop_front();
            *l.end = transfer(l.accesses.data(), l.count, false, false, m_load_port, l.op_id);
            --m_loads_in_flight;
            m_load_returned.notify(sc_core::SC_ZERO_TIME);
        }
    } catch (const sc_core::sc_unwind_exception&) {
        throw;
    } catch (...) {
        m_failures.fail(std::current_exception());
    }
}

void TilePipeline::submit(PipelineWork work) {
    m_queue.push_back(std::move(work));
    m_work_arrived.notify(sc_core::SC_ZERO_TIME);
}

void TilePipeline::run() {
    try {
        while (true) {
            while (m_queue.empty()) wait(m_work_arrived);
            m_busy = true;
            // The work item lives in a member, not on this thread's stack: a run stopped early
            // never resumes the thread, and only members are freed by the destructor.
            m_current = std::move(m_queue.front());
            m_queue.pop_front();
            execute(m_current);
            m_busy = false;
            if (m_current.on_done) m_current.on_done();
            m_current = PipelineWork{};
        }
    } catch (const sc_core::sc_unwind_exception&) {
        throw;  // the kernel unwinding this thread
    } catch (...) {
        m_failures.fail(std::current_exception());
    }
}

Picoseconds TilePipeline::transfer(const MemAccess* accesses, std::size_t count, bool is_write,
                                   bool atomic_add, BandwidthServer& port, uint64_t op_id) {
    const Picoseconds now = ClockDomain::to_ps(sc_core::sc_time_stamp());
    Picoseconds done = now;
    for (std::size_t i = 0; i < count; ++i) {
        const MemAccess& a = accesses[i];
        const auto grant = port.reserve(now, a.bytes);
        tlm::tlm_generic_payload* p = m_pool.acquire();
        p->set_command(is_write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
        p->set_address(a.addr);
        p->set_data_length(static_cast<unsigned>(a.bytes));
        p->set_streaming_width(static_cast<unsigned>(a.bytes));
        TransactionInfo* info = info_of(*p);
        info->stream = a.stream;
        info->op_id = op_id;
        info->ledger = m_ledger;
        info->engine = name();
        info->issue_time = sc_core::sc_time_stamp();
        info->atomic_add = atomic_add;
        // The request leaves the port when its last byte has been sent (writes) or may start to
        // return data as soon as the L2 answers (reads); either way it finishes when both the
        // port and the memory side are done.
        sc_core::sc_time delay =
            is_write ? ClockDomain::from_ps(grant.start - now) : sc_core::SC_ZERO_TIME;
        l2_out->b_transport(*p, delay);
        check_response(*p, name());
        p->release();
        done = std::max({done, grant.end, now + ClockDomain::to_ps(delay)});
        (is_write ? m_store_bytes : m_load_bytes) += a.bytes;
    }
    return done;
}

void TilePipeline::compute_functional(const Tile& tile, FunctionalSlot& slot,
                                      const PipelineWork& work) {
    const std::size_t elements = std::size_t{tile.mm_rows} * tile.mm_cols;
    if (tile.starts_output_block) m_accumulator.assign(elements, 0.0);
    accumulate_tile(slot.a.data(), slot.b.data(), work.input_dtype, tile.mm_rows, tile.mm_cols,
                    tile.mm_depth, m_accumulator);
    if (tile.store_count == 0) return;
    // The last K step: FixPipe converts the accumulators into the output's format (a K split's
    // partial sums stay 32-bit).
    const uint32_t bits = tile.store_bits ? tile.store_bits : work.output_bits;
    slot.out.assign((elements * bits + 7) / 8, 0);
    const bool integer = is_integer_dtype(work.input_dtype);
    for (std::size_t i = 0; i < elements; ++i)
        store_element(slot.out.data(), bits, integer, i, m_accumulator[i]);
}

void TilePipeline::load_functional(const Tile& tile, FunctionalSlot& slot) {
    if (tile.mm_rows != 0) {
        slot.a.resize(tile.loads[0].bytes);
        slot.b.resize(tile.loads[1].bytes);
        m_memory->read(tile.loads[0].addr, slot.a.data(), slot.a.size());
        m_memory->read(tile.loads[1].addr, slot.b.data(), slot.b.size());
    } else if (tile.function == Tile::Function::kCastFrom32) {
        slot.a.resize(tile.loads[0].bytes);
        m_memory->read(tile.loads[0].addr, slot.a.data(), slot.a.size());
    }
}

void TilePipeline::store_functional(const Tile& tile, FunctionalSlot& slot,
                                    const PipelineWork& work) {
    if (tile.store_count == 0) return;
    const MemAccess& to = tile.stores[0];
    const bool integer = is_integer_dtype(work.input_dtype);
    if (tile.function == Tile::Function::kZeroFill) {
        for (std::size_t i = 0; i < tile.store_count; ++i) {
            slot.out.assign(tile.stores[i].bytes, 0);
            m_memory->write(tile.stores[i].addr, slot.out.data(), slot.out.size());
        }
        return;
    }
    if (tile.function == Tile::Function::kCastFrom32) {
        const uint64_t elements = slot.a.size() / 4;
        slot.out.assign((elements * tile.store_bits + 7) / 8, 0);
        for (uint64_t i = 0; i < elements; ++i) {
            store_element(slot.out.data(), tile.store_bits, integer, i,
                          load_accumulator(slot.a.data(), integer, i));
        }
        m_memory->write(to.addr, slot.out.data(), std::min<uint64_t>(slot.out.size(), to.bytes));
        return;
    }
    if (tile.mm_rows == 0) return;
    const uint64_t bytes = std::min<uint64_t>(slot.out.size(), to.bytes);
    if (tile.atomic_add) {
        std::vector<uint8_t> sum(bytes);
        m_memory->read(to.addr, sum.data(), bytes);
        add_accumulators(sum.data(), slot.out.data(), bytes / 4, integer);
        m_memory->write(to.addr, sum.data(), bytes);
    } else {
        m_memory->write(to.addr, slot.out.data(), bytes);
    }
}

// A DMA track shows when the engine had a transfer in flight. Transfers overlap (the next load
// issues before the previous one's data has all arrived); a track's slices must not, so each
// starts where the one before it ended.
void TilePipeline::record_transfer(Timeline::TrackId track, Picoseconds& shown_until,
                                   Picoseconds begin, Picoseconds end, uint32_t label) {
    begin = std::max(begin, shown_until);
    if (end <= begin) return;
    m_timeline->slice(track, begin, end, label);
    shown_until = end;
}

struct TilePipeline::Run {
    struct Slot {
        Tile tile;
        uint64_t block = 0;
        Picoseconds load_end = kUnknown;
        Picoseconds load_issued = 0;
        Picoseconds compute_end = kUnknown;
    };
    std::array<Slot, kRing> ring;
    std::array<Picoseconds, kRing> block_store_end{};  // by block index
    uint64_t next_load = 0, next_compute = 0, next_store = 0;
    uint64_t block = 0;  // blocks begun so far
    bool exhausted = false, have_pending = false;
    Picoseconds last_end = 0;
    uint64_t out_bufs = 1, in_bufs = 1;
};

void TilePipeline::execute(PipelineWork& work) {
    // Functional runs: the loaded operands and the block to store, per ring slot (members, not on
    // this thread's stack, so that a run stopped early frees them).
    if (m_memory && m_functional_slots.size() != kRing) m_functional_slots.resize(kRing);
    Run run;
    run.last_end = ClockDomain::to_ps(sc_core::sc_time_stamp());
    run.out_bufs = std::max<uint32_t>(1, work.output_buffers);
    run.in_bufs = std::clamp<uint64_t>(work.input_buffers, 1, kMaxInputBuffers);
    auto& ring = run.ring;

    while (true) {
        // Fetch the next tile description when there is room for it.
        if (!run.have_pending && !run.exhausted && run.next_load - run.next_store < kRing) {
            Run::Slot& s = ring[run.next_load % kRing];
            s.tile = Tile{};
            s.load_end = s.compute_end = kUnknown;  // not the times of the slot's previous tile
            if (work.tiles->next(s.tile)) {
                run.have_pending = true;
            } else {
                run.exhausted = true;
            }
        }
        compute_loaded(run, work);
        // Candidate actions and the time each can happen.
        Picoseconds load_ready = kUnknown, store_ready = kUnknown;
        if (run.have_pending &&
            (run.next_load < run.in_bufs || run.next_compute > run.next_load - run.in_bufs)) {
            load_ready = run.next_load < run.in_bufs
                             ? 0
                             : ring[(run.next_load - run.in_bufs) % kRing].compute_end;
        }
        if (run.next_store < run.next_compute)
            store_ready = ring[run.next_store % kRing].compute_end;
        if (load_ready == kUnknown && store_ready == kUnknown) {
            if (m_loads_in_flight != 0) {  // nothing to do until a lane returns a load
                wait(m_load_returned);
                continue;
            }
            if (run.exhausted && run.next_store == run.next_load) break;
            throw SimulationError(std::string(name()) + ": pipeline deadlock in op " +
                                  std::to_string(work.op_id));
        }
        const bool do_store = store_ready <= load_ready;
        const Picoseconds when = do_store ? store_ready : load_ready;
        const Picoseconds now = ClockDomain::to_ps(sc_core::sc_time_stamp());
        if (when > now) {
            if (m_loads_in_flight != 0) {
                // A load returning first may make an earlier action possible: look again then.
                wait(ClockDomain::from_ps(when - now), m_load_returned);
                continue;
            }
            wait(ClockDomain::from_ps(when - now));
        }
        if (!do_store && run.next_load - run.next_compute >= run.in_bufs) {
            // The buffer dependency says load(i) waits for compute(i - input_buffers): a model
            // bug if broken. (With load lanes a tile may wait uncomputed while the next load is
            // considered; its slot's times were reset, so it reads as not computed, not as the
            // slot's previous tile.)
            throw SimulationError(std::string(name()) + ": a load would issue with all " +
                                  std::to_string(run.in_bufs) + " input buffers full in op " +
                                  std::to_string(work.op_id));
        }
        if (do_store) {
            store_next(run, work, now, when);
        } else {
            load_next(run, work, now, when);
        }
    }
    const Picoseconds now = ClockDomain::to_ps(sc_core::sc_time_stamp());
    if (run.last_end > now) wait(ClockDomain::from_ps(run.last_end - now));
}

void TilePipeline::compute_loaded(Run& run, PipelineWork& work) {
    auto cyc = [&](Picoseconds ps) { return m_clock.ps_to_cycles_ceil(ps); };
    auto ps = [&](Cycles c) { return m_clock.cycles_to_ps(c); };
    auto& ring = run.ring;
    while (run.next_compute < run.next_load) {
        Run::Slot& s = ring[run.next_compute % kRing];
        if (s.load_end == kInFlight) break;  // its load is still in a lane
        if (m_lanes && m_timeline) {
            record_transfer(m_tracks.mte2, m_load_shown_until, s.load_issued, s.load_end,
                            work.timeline_label);
        }
        Picoseconds out_free = 0;
        const bool new_block = s.tile.starts_output_block && run.next_compute > 0;
        if (new_block) ++run.block;
        s.block = run.block;
        if (s.tile.starts_output_block && run.block >= run.out_bufs) {
            // The block out_bufs back must have been stored; it is, when next_store passed it.
            const uint64_t older = run.block - run.out_bufs;
            bool stored = true;
            for (uint64_t t = run.next_store; t < run.next_compute; ++t) {
                if (ring[t % kRing].block <= older) stored = false;
            }
            if (!stored) {
                if (new_block) --run.block;
                break;
            }
            out_free = run.block_store_end[older % kRing];
        }
        if (new_block || run.next_compute == 0) run.block_store_end[run.block % kRing] = 0;
        const Cycles mte1_start = std::max(cyc(s.load_end), m_mte1_free);
        m_mte1_free = mte1_start + s.tile.mte1_cycles;
        const Cycles cube_start = std::max({m_mte1_free, m_cube_free, cyc(out_free)});
        m_cube_free = cube_start + s.tile.cube_cycles;
        const Cycles c2v_start = std::max(m_cube_free, m_c2v_free);
        m_c2v_free = c2v_start + s.tile.c2v_cycles;
        const Cycles vec_start = std::max(m_c2v_free, m_vector_free);
        m_vector_free = vec_start + s.tile.vector_cycles;
        s.compute_end = ps(m_vector_free);
        if (m_memory && s.tile.mm_rows != 0)
            compute_functional(s.tile, m_functional_slots[run.next_compute % kRing], work);
        if (m_timeline) {
            const uint32_t label = work.timeline_label;
            m_timeline->slice(m_tracks.mte1, ps(mte1_start), ps(m_mte1_free), label);
            m_timeline->slice(m_tracks.cube, ps(cube_start), ps(m_cube_free), label);
            m_timeline->slice(m_tracks.c2v, ps(c2v_start), ps(m_c2v_free), label);
            m_timeline->slice(m_tracks.vector, ps(vec_start), ps(m_vector_free), label);
        }
        m_cube_busy += s.tile.cube_cycles;
        if (m_cube_windows && s.tile.cube_cycles)
            m_cube_windows->add(ps(cube_start), ps(m_cube_free));
        m_vector_busy += s.tile.vector_cycles;
        m_mte1_busy += s.tile.mte1_cycles;
        ++m_tiles;
        ++run.next_compute;
    }
}

void TilePipeline::store_next(Run& run, PipelineWork& work, Picoseconds now, Picoseconds when) {
    Run::Slot& s = run.ring[run.next_store % kRing];
    const Picoseconds end = s.tile.store_count
                                ? transfer(s.tile.stores.data(), s.tile.store_count, true,
                                           s.tile.atomic_add, m_store_port, work.op_id)
                                : s.compute_end;
    if (m_memory) store_functional(s.tile, m_functional_slots[run.next_store % kRing], work);
    if (m_timeline)
        record_transfer(m_tracks.store, m_store_shown_until, std::max(now, when), end,
                        work.timeline_label);
    Picoseconds& block_end = run.block_store_end[s.block % kRing];
    block_end = std::max(block_end, end);
    run.last_end = std::max(run.last_end, end);
    ++run.next_store;
}

void TilePipeline::load_next(Run& run, PipelineWork& work, Picoseconds now, Picoseconds when) {
    Run::Slot& s = run.ring[run.next_load % kRing];
    if (m_lanes) {
        s.load_issued = std::max(now, when);
        start_load(s.tile, work.op_id, &s.load_end);
        if (m_memory) load_functional(s.tile, m_functional_slots[run.next_load % kRing]);
    } else {
        s.load_end =
            transfer(s.tile.loads.data(), s.tile.load_count, false, false, m_load_port, work.op_id);
        if (m_memory) load_functional(s.tile, m_functional_slots[run.next_load % kRing]);
        if (m_timeline)
            record_transfer(m_tracks.mte2, m_load_shown_until, std::max(now, when), s.load_end,
                            work.timeline_label);
        run.last_end = std::max(run.last_end, s.load_end);
    }
    run.have_pending = false;
    ++run.next_load;
}

}  // namespace asim

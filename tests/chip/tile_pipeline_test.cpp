// Tile pipeline: double buffering overlaps the loads of tile i+1 with the compute of tile i, so a
// sequence of tiles takes less than the sum of its parts, and no less than its busiest stage.
#include "models/chip/aicore/tile_pipeline.h"

#include <gtest/gtest.h>
#include <tlm_utils/simple_target_socket.h>

#include <memory>
#include <systemc>
#include <tlm>
#include <vector>

#include "models/common/clock_domain.h"
#include "models/common/failure_sink.h"
#include "models/common/stats.h"
#include "tests/harness/sc_harness.h"

namespace asim {
namespace {

constexpr uint64_t kLatencyNs = 100;

// An L2 stand-in: every access completes kLatencyNs after it is issued, nothing queues here
// (the pipeline's own port carries the bandwidth).
struct FixedLatencyMemory : sc_core::sc_module {
    tlm_utils::simple_target_socket<FixedLatencyMemory> core_in;
    explicit FixedLatencyMemory(sc_core::sc_module_name n) : sc_module(n), core_in("core_in") {
        core_in.register_b_transport(this, &FixedLatencyMemory::b_transport);
    }
    void b_transport(tlm::tlm_generic_payload& p, sc_core::sc_time& delay) {
        delay += sc_core::sc_time(static_cast<double>(kLatencyNs), sc_core::SC_NS);
        p.set_response_status(tlm::TLM_OK_RESPONSE);
    }
};

// `count` tiles, each loading `load_bytes`, computing `cube` cycles and storing `store_bytes`
// into its own output block.
class UniformTiles : public TileSource {
public:
    UniformTiles(int count, uint64_t load_bytes, Cycles cube, uint64_t store_bytes)
        : m_left(count), m_load(load_bytes), m_cube(cube), m_store(store_bytes) {}
    bool next(Tile& t) override {
        if (m_left == 0) return false;
        const uint64_t i = static_cast<uint64_t>(m_left--);
        t.add_load(i << 20, m_load, StreamClass::kActivation);
        t.cube_cycles = m_cube;
        t.add_store((i << 20) + (1ULL << 40), m_store, StreamClass::kActivation);
        t.starts_output_block = true;
        return true;
    }

private:
    int m_left;
    uint64_t m_load;
    Cycles m_cube;
    uint64_t m_store;
};

struct Driver : sc_core::sc_module {
    SC_HAS_PROCESS(Driver);
    Driver(sc_core::sc_module_name n, TilePipeline& p, std::unique_ptr<TileSource> tiles)
        : sc_module(n), m_pipe(p), m_tiles(std::move(tiles)) {
        SC_THREAD(run);
    }
    void run() {
        PipelineWork w;
        w.tiles = std::move(m_tiles);
        w.output_buffers = 2;
        w.on_done = [this] { end = sc_core::sc_time_stamp(); };
        m_pipe.submit(std::move(w));
    }
    sc_core::sc_time end = sc_core::SC_ZERO_TIME;
    TilePipeline& m_pipe;
    std::unique_ptr<TileSource> m_tiles;
};

TEST(TilePipeline, DoubleBufferingMakesATileSequenceShorterThanItsParts) {
    test::set_time_resolution();
    const ClockDomain clock("clk", 1'000'000'000);  // 1 cycle = 1 ns
    StatsRegistry stats;
    FailureSink failures;
    const int tiles = 8;
    const uint64_t load_bytes = 10'000, store_bytes = 1'000;
    const Cycles cube = 150;
    TilePipeline pipe("pipe", clock, TilePipelineParams{100, 100}, stats, failures);
    FixedLatencyMemory mem("mem");
    pipe.l2_out.bind(mem.core_in);
    Driver driver("driver", pipe,
                  std::make_unique<UniformTiles>(tiles, load_bytes, cube, store_bytes));
    test::run_simulation(sc_core::sc_time(1, sc_core::SC_MS));
    failures.rethrow_if_failed();

    const double end_ns = driver.end.to_seconds() * 1e9;
    // Each part alone: a load takes max(100 ns latency, 10000 B / 100 B per cycle = 100 cycles),
    // the compute 150 cycles, a store max(100 ns, 10 cycles).
    const double load_ns = std::max<double>(kLatencyNs, load_bytes / 100.0);
    const double store_ns = std::max<double>(kLatencyNs, store_bytes / 100.0);
    const double sum_of_parts = tiles * (load_ns + cube + store_ns);
    // The busiest stage (compute) plus the first load and the last store cannot be hidden.
    const double bound = load_ns + tiles * static_cast<double>(cube) + store_ns;
    RecordProperty("end_ns", std::to_string(end_ns));
    EXPECT_LT(end_ns, sum_of_parts);
    EXPECT_GE(end_ns, bound);
    EXPECT_LE(end_ns, bound * 1.05);  // with two input buffers the loads hide entirely
    EXPECT_EQ(pipe.cube_busy_cycles(), tiles * cube);
}

// Reads take 100 ns, writes 100 ns up to the 8th and 10 us from the 9th on (after the pipeline's
// ring of tile slots has wrapped), and the target records when each arrives.
struct SlowStoreMemory : sc_core::sc_module {
    tlm_utils::simple_target_socket<SlowStoreMemory> core_in;
    std::vector<sc_core::sc_time> loads, stores;
    explicit SlowStoreMemory(sc_core::sc_module_name n) : sc_module(n), core_in("core_in") {
        core_in.register_b_transport(this, &SlowStoreMemory::b_transport);
    }
    void b_transport(tlm::tlm_generic_payload& p, sc_core::sc_time& delay) {
        (p.is_write() ? stores : loads).push_back(sc_core::sc_time_stamp() + delay);
        const bool slow = p.is_write() && stores.size() > 8;
        delay += sc_core::sc_time(slow ? 10'000.0 : 100.0, sc_core::SC_NS);
        p.set_response_status(tlm::TLM_OK_RESPONSE);
    }
};

// Loads run ahead of compute by at most `input_buffers` tiles, even while compute is held up by
// output buffers waiting for slow stores: with 2 input and 2 output buffers, tiles 8 and 9 are
// computed and stored slowly, tile 10's compute waits for block 8's store (10 us), so tiles 10
// and 11 may be loaded (their buffers were freed by computes 8 and 9) and tile 12 may not: 12
// loads before that store completes. The slow stores start after the ring of tile slots has
// wrapped, so slots are reused from earlier tiles.
TEST(TilePipeline, LoadsRunAheadByAtMostTheInputBuffers) {
    test::set_time_resolution();
    const ClockDomain clock("clk", 1'000'000'000);
    StatsRegistry stats;
    FailureSink failures;
    TilePipeline pipe("pipe", clock, TilePipelineParams{100, 100}, stats, failures);
    SlowStoreMemory mem("mem");
    pipe.l2_out.bind(mem.core_in);
    Driver driver("driver", pipe, std::make_unique<UniformTiles>(24, 1'000, 50, 1'000));
    test::run_simulation(sc_core::sc_time(1, sc_core::SC_MS));
    failures.rethrow_if_failed();
    ASSERT_EQ(mem.loads.size(), 24u);
    ASSERT_GT(mem.stores.size(), 8u);
    const sc_core::sc_time first_slow_store_done =
        mem.stores[8] + sc_core::sc_time(10'000.0, sc_core::SC_NS);
    std::size_t early = 0;
    for (const auto& t : mem.loads) early += t < first_slow_store_done ? 1 : 0;
    EXPECT_EQ(early, 12u);
}

}  // namespace
}  // namespace asim

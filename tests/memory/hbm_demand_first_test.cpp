// Demand first in the JEDEC HBM (DESIGN §5): accesses of H-JSD prefetches and staging copies
// (stream class prefetch) wait for room in a channel's queues behind demand accesses, and leave
// `controller.demand_entries` of each queue to demand. A 64 KiB prefetch floods every channel of
// the default device (1 stack x 8 channels, 32-entry read queues: 128 accesses of 64 B per
// channel, 96 of them waiting for room); a 64 B read 10 ns later is timed as demand, as a
// prefetch, and as demand with 8 entries kept.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include <tlm_utils/multi_passthrough_target_socket.h>
#include <tlm_utils/simple_initiator_socket.h>

#include "models/common/stats.h"
#include "models/memory/hbm/hbm.h"
#include "tests/harness/sc_harness.h"
#include "tests/harness/test_engine.h"

namespace asim {
namespace {

// Two initiators into the HBM's one target socket (the L2's place).
struct Join : sc_core::sc_module {
    tlm_utils::multi_passthrough_target_socket<Join> in{"in"};
    tlm_utils::simple_initiator_socket<Join> out{"out"};
    explicit Join(sc_core::sc_module_name n) : sc_module(n) {
        in.register_b_transport(this, &Join::b_transport);
    }
    void b_transport(int, tlm::tlm_generic_payload& p, sc_core::sc_time& delay) {
        out->b_transport(p, delay);
    }
};

// One HBM with a 64 KiB prefetch flooding it at t = 0 and a 64 B read of class `late_read` at
// 10 ns. Several floods run side by side in one simulation (one per configuration).
struct Flood {
    Hbm hbm;
    Join join;
    test::TestEngine prefetcher, reader;

    static HbmParams params(uint32_t demand_entries) {
        HbmParams h;  // the default device
        h.fidelity = HbmFidelity::kJedec;
        h.device.ctrl.demand_entries = demand_entries;
        return h;
    }
    Flood(const std::string& name, StatsRegistry& stats, StreamClass late_read,
          uint32_t demand_entries)
        : hbm((name + "_hbm").c_str(), params(demand_entries), stats),
          join((name + "_join").c_str()),
          prefetcher((name + "_prefetcher").c_str()),
          reader((name + "_reader").c_str()) {
        join.out.bind(hbm.l2_in);
        prefetcher.out.bind(join.in);
        reader.out.bind(join.in);
        test::EngineAccess flood;
        flood.bytes = 64 * 1024;
        flood.stream = StreamClass::kPrefetch;
        prefetcher.accesses = {flood};
        test::EngineAccess late;
        late.at = 10'000;
        // Channel 0 (as a quarter of the flood), bank group 3, which the flood does not touch
        // (mapping rorabgbachco, 2 KiB rows: bank group in address bits 16-17).
        late.addr = (1ULL << 24) | (3ULL << 16);
        late.bytes = 64;
        late.stream = late_read;
        reader.accesses = {late};
    }
    Picoseconds late_latency() const { return reader.accesses[0].done - reader.accesses[0].issued; }
    Picoseconds flood_done() const { return prefetcher.accesses[0].done; }
    bool finished() const { return prefetcher.finished && reader.finished; }
};

TEST(HbmDemandFirst, DemandEntersBeforeWaitingPrefetchesAndHasEntriesKept) {
    test::set_time_resolution();
    StatsRegistry stats;
    Flood demand("demand", stats, StreamClass::kWeight, 0),
        prefetch("prefetch", stats, StreamClass::kPrefetch, 0),
        kept("kept", stats, StreamClass::kWeight, 8);
    test::run_simulation(sc_core::sc_time(1, sc_core::SC_MS));
    for (const Flood* f : {&demand, &prefetch, &kept}) EXPECT_TRUE(f->finished());

    // As a prefetch the read waits behind the 96 accesses per channel already waiting for room
    // (measured: 172 ns); as demand it takes the first free entry of its channel's queue (40 ns).
    EXPECT_LT(demand.late_latency() * 3, prefetch.late_latency())
        << "demand " << demand.late_latency() << " ps, prefetch " << prefetch.late_latency();
    EXPECT_LT(demand.late_latency(), prefetch.flood_done() / 2);
    // The prefetch that was overtaken still completes, and moves the same bytes.
    EXPECT_EQ(demand.hbm.read_bytes(), prefetch.hbm.read_bytes());

    // With 8 entries kept, the demand read enters at once instead of waiting for an access of
    // the flood to leave the full queue (measured: 32 ns).
    EXPECT_LT(kept.late_latency(), demand.late_latency())
        << "kept " << kept.late_latency() << " ps, shared " << demand.late_latency();
}

}  // namespace
}  // namespace asim

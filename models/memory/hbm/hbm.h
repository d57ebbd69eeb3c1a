// The JEDEC HBM controller (HbmController) as a TLM-2.0 target for the die: `jedec` fidelity.
//
// b_transport is called from the L2's SC_THREADs. It first waits until the transaction's
// arrival time, so the controller sees requests in time order, splits the payload into
// device accesses and hands each to its channel; an access whose channel is full waits in that
// channel's line of pending reads or writes (the back-pressure) while the transaction's accesses
// to other channels go on, as a controller with a queue per channel takes them (a full write
// buffer holds up no read, a full read queue no write). It then waits until
// the last read access has returned its data. Writes are posted: they return once buffered. One
// SC_THREAD advances the controller to the next cycle at which a busy channel has work; with every
// channel idle it waits for a request and costs no kernel event (refresh that falls due meanwhile
// is accounted arithmetically). `network_latency` is added to every read on top of the controller's
// latency.
#pragma once

#include <cstdint>
#include <deque>
#include <vector>

#include <tlm_utils/simple_target_socket.h>

#include <systemc>
#include <tlm>
#include "models/common/tlm_target.h"

#include "models/common/stats.h"
#include "models/memory/hbm/hbm_controller.h"
#include "models/memory/hbm/hbm_device.h"
#include "models/memory/interfaces/hbm_model.h"

namespace asim {

class Hbm : public sc_core::sc_module, public HbmModel, public TlmTarget<Hbm> {
public:
    tlm_utils::simple_target_socket<Hbm> l2_in;

    Hbm(sc_core::sc_module_name name, const HbmParams& params, StatsRegistry& stats);

    tlm::tlm_target_socket<>& l2_target() override { return l2_in; }
    uint64_t read_bytes() const override { return m_read_bytes.value(); }
    uint64_t write_bytes() const override { return m_write_bytes.value(); }
    void finalize_stats() override;
    bool waits() const override { return true; }
    const HbmController& controller() const { return m_core; }

private:
    struct Waiter {
        sc_core::sc_event done;
        uint32_t outstanding = 0;
        uint64_t last = 0;  // cycle of the latest completion
    };
    // An access waiting for room in its channel's queues. Each channel keeps its own line, so a
    // full channel holds up only its own accesses, not a transaction's accesses to other channels.
    struct Pending {
        uint64_t addr;
        bool is_write;
        Waiter* waiter;
    };
    // The line of a channel's accesses waiting for room: reads and writes, demand and prefetch
    // (stream class prefetch: H-JSD prefetches and staging copies), each its own.
    static uint32_t line_of(uint32_t channel, bool is_write, bool prefetch) {
        return 4 * channel + 2 * uint32_t{is_write} + uint32_t{prefetch};
    }
    // Whether the access at the front of `line` may enter now. Demand first (DESIGN §5): a
    // prefetch access waits while a demand access of its channel and direction waits, and
    // leaves the controller's demand_entries free.
    bool may_enter(uint32_t line) const;
    friend class TlmTarget<Hbm>;
    uint64_t address_limit() const { return m_params.capacity_bytes(); }
    Picoseconds serve(tlm::tlm_generic_payload& p, sc_core::sc_time& delay, int port);
    void run();
    uint64_t now_cycle() const;
    sc_core::sc_time time_of(uint64_t cycle) const;
    void advance_to(uint64_t cycle);
    void deliver();
    void accept(uint64_t addr, bool is_write, Waiter* w);
    void accept_pending();  // moves waiting accesses into channels that have room

    HbmParams m_params;
    HbmController m_core;
    int64_t m_tck;
    std::vector<HbmCompletion> m_done;
    // tag -> waiter of each access in flight; a tag is a slot, reused once its access completed.
    std::vector<Waiter*> m_waiting;
    std::vector<uint64_t> m_free_tags;
    // Per channel, lines of demand reads, prefetch reads, demand writes and prefetch writes
    // (line_of): a read waits only for room in the read queue, a write for room in the write
    // buffer.
    std::vector<std::deque<Pending>> m_pending;
    std::vector<uint32_t> m_pending_channels;  // lines of m_pending that are not empty
    sc_core::sc_event m_wake;                  // a request arrived
    Counter& m_reads;
    Counter& m_writes;
    Counter& m_read_bytes;
    Counter& m_write_bytes;
    Histogram& m_read_latency_ns;
    Counter& m_activates;
    Counter& m_precharges;
    Counter& m_refreshes;
    Counter& m_row_hits;
};

}  // namespace asim

// A test initiator for memory models: an engine that issues its list of accesses from its own
// SystemC thread, each no earlier than its time, one after the other (as a core's load/store lane
// does), and records when each was issued and completed, and how many times it completed.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include <tlm_utils/simple_initiator_socket.h>
#include <systemc>
#include <tlm>

#include "models/common/clock_domain.h"
#include "models/common/payload.h"
#include "models/common/stream_class.h"

namespace asim::test {

struct EngineAccess {
    Picoseconds at = 0;  // earliest issue, from the start
    uint64_t addr = 0, bytes = 0;
    bool write = false;
    bool atomic = false, no_allocate = false;
    StreamClass stream = StreamClass::kWeight;
    Picoseconds issued = 0;  // at, or later when the engine's previous access finished later
    Picoseconds done = 0;
    int completions = 0;
};

struct TestEngine : sc_core::sc_module {
    tlm_utils::simple_initiator_socket<TestEngine> out{"out"};
    std::vector<EngineAccess> accesses;
    PayloadPool pool;
    bool finished = false;

    explicit TestEngine(sc_core::sc_module_name n) : sc_module(n) { SC_THREAD(run); }
    SC_HAS_PROCESS(TestEngine);
    void run() {
        for (EngineAccess& a : accesses) {
            const Picoseconds now = ClockDomain::to_ps(sc_core::sc_time_stamp());
            if (a.at > now) wait(ClockDomain::from_ps(a.at - now));
            a.issued = ClockDomain::to_ps(sc_core::sc_time_stamp());
            tlm::tlm_generic_payload* p = pool.acquire();
            p->set_command(a.write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
            p->set_address(a.addr);
            p->set_data_length(static_cast<unsigned>(a.bytes));
            p->set_streaming_width(static_cast<unsigned>(a.bytes));
            TransactionInfo* info = info_of(*p);
            info->stream = a.stream;
            info->prefetch_target = StreamClass::kWeight;
            info->atomic_add = a.atomic;
            info->no_allocate = a.no_allocate;
            sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
            out->b_transport(*p, delay);
            EXPECT_EQ(p->get_response_status(), tlm::TLM_OK_RESPONSE)
                << name() << " 0x" << std::hex << a.addr;
            p->release();
            ++a.completions;
            a.done = ClockDomain::to_ps(sc_core::sc_time_stamp() + delay);
        }
        finished = true;
    }
};

}  // namespace asim::test

// The base of every TLM target (VCML's `peripheral` is the model). The socket's b_transport lands
// here: the payload is checked (command, length, byte enables, data pointer unless timing-only,
// and the address range the target accepts) and a bad one gets its TLM error response without
// reaching the target. A good one goes to the target's serve(), which returns the simulated time
// (ps) its transaction completes, or kNotServed after setting an error response itself; the base
// annotates the delay from the kernel's time after serve() (a target may have waited inside) and
// sets the OK response. Static dispatch: the hot path pays no virtual call.
//
//   class MyTarget : public sc_core::sc_module, public TlmTarget<MyTarget> {
//       uint64_t address_limit() const;                       // accepts [0, limit)
//       Picoseconds serve(tlm::tlm_generic_payload& p, sc_core::sc_time& delay, int port);
//   };
//   socket.register_b_transport(this, &MyTarget::b_transport);  // or b_transport_tagged
#pragma once

#include <cstdint>

#include <systemc>
#include <tlm>

#include "models/common/clock_domain.h"
#include "models/common/payload.h"

namespace asim {

template <class Target>
class TlmTarget {
public:
    static constexpr Picoseconds kNotServed = ~Picoseconds{0};

    // A simple (one-port) socket's callback.
    void b_transport(tlm::tlm_generic_payload& p, sc_core::sc_time& delay) {
        transport(0, p, delay);
    }
    // A multi-port socket's callback; `port` is the initiator's index.
    void b_transport_tagged(int port, tlm::tlm_generic_payload& p, sc_core::sc_time& delay) {
        transport(port, p, delay);
    }

protected:
    // `delay` on entry: the caller's annotation (the arrival is now + delay).
    void transport(int port, tlm::tlm_generic_payload& p, sc_core::sc_time& delay) {
        Target& self = static_cast<Target&>(*this);
        if (!validate_payload(p, self.address_limit())) return;
        const Picoseconds done = self.serve(p, delay, port);
        if (done == kNotServed) return;
        const Picoseconds now = ClockDomain::to_ps(sc_core::sc_time_stamp());
        delay = ClockDomain::from_ps(done > now ? done - now : 0);
        p.set_response_status(tlm::TLM_OK_RESPONSE);
    }
};

}  // namespace asim

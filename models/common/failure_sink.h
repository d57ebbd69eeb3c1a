// Where SystemC processes leave the first error they hit. An exception escaping a process would
// be turned into a generic sc_report by the kernel, losing its type (and so the exit code); a
// process instead catches it, hands it here, and the simulation stops. The platform rethrows it
// once sc_start() has returned.
#pragma once

#include <exception>

#include <systemc>

namespace asim {

struct FailureSink {
    std::exception_ptr error;
    void fail(std::exception_ptr e) {
        if (error) return;  // stopped already: a second sc_stop() would print a kernel warning
        error = e;
        sc_core::sc_stop();
    }
    void rethrow_if_failed() const {
        if (error) std::rethrow_exception(error);
    }
};

}  // namespace asim

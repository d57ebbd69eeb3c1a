#include "tests/harness/sc_harness.h"

#include <gtest/gtest.h>

#include "models/common/clock_domain.h"
#include "models/common/kernel.h"

namespace asim::test {

namespace {
void report_handler(const sc_core::sc_report& report, const sc_core::sc_actions& actions) {
    if (report.get_severity() >= sc_core::SC_WARNING) {
        ADD_FAILURE() << "SystemC "
                      << (report.get_severity() == sc_core::SC_WARNING ? "warning" : "error")
                      << " [" << report.get_msg_type() << "]: " << report.get_msg();
    }
    // Keep the default display and actions (a fatal error still aborts).
    sc_core::sc_report_handler::default_handler(report, actions);
}
}  // namespace

void install_report_handler() { sc_core::sc_report_handler::set_handler(report_handler); }

void set_time_resolution() { asim::set_kernel_time_resolution(); }

void run_simulation(const sc_core::sc_time& limit) {
    // Through run_kernel: under ASan it tells the sanitizer the thread is back on its own stack.
    // Without that, ASan keeps the last coroutine's stack as the main thread's, and LeakSanitizer
    // at exit scans it after SystemC freed it ("Tracer caught signal 11", about half the runs on
    // a 6.18 kernel).
    run_kernel(ClockDomain::to_ps(limit));
    if (sc_core::sc_pending_activity()) {
        ADD_FAILURE() << "simulation did not stop within " << limit.to_string();
    }
}

}  // namespace asim::test

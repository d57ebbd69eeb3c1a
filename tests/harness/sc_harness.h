// Test support for SystemC: a report handler that turns SystemC warnings and errors into test
// failures, and run_simulation(), which runs the kernel and fails the test if it does not stop.
#pragma once

#include <systemc>

namespace asim::test {

// Call once at start-up (test_main does). Warnings and errors become GoogleTest failures.
void install_report_handler();

// Sets the time resolution to 1 ps. Must run before any sc_time is created; idempotent.
void set_time_resolution();

// Runs sc_start() until the simulation stops by itself or `limit` of simulated time has
// passed; fails the current test when the limit is reached with activity still pending.
void run_simulation(const sc_core::sc_time& limit);

}  // namespace asim::test

// Our own sc_main runs GoogleTest: SystemC elaborates once per process, so every TEST runs in a
// process of its own (gtest_discover_tests) and never links GTest::gtest_main.
#include <gtest/gtest.h>

#include <cstdlib>

#include <systemc>

#include "tests/harness/sc_harness.h"

int main(int argc, char* argv[]) {
    setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);  // the banner prints before sc_main
    return sc_core::sc_elab_and_sim(argc, argv);
}

int sc_main(int argc, char* argv[]) {
    ::testing::InitGoogleTest(&argc, argv);
    asim::test::install_report_handler();
    return RUN_ALL_TESTS();
}

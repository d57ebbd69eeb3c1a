// The progress line (testbenches/command/progress.h): what it prints in each mode, when it shows
// an ETA, and that commands print it on request (ASCEND_SIM_PROGRESS=lines) and only then.
#include "testbenches/command/progress.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>

#include "tests/harness/cli_runner.h"

namespace asim {
namespace {

TEST(Progress, LinesModeShowsCountsPercentAndDetailThenAFinalLine) {
    testing::internal::CaptureStderr();
    {
        ProgressLine p("run", "ops", 200, ProgressLine::Mode::kLines);
        p.update(50, "simulated 1 us");  // the first update is shown at once
        p.update(60, "simulated 2 us");  // within 5 s of it: not shown
        p.finish(200);
        p.finish(200);  // once only
    }
    const std::string err = testing::internal::GetCapturedStderr();
    EXPECT_EQ(err, "[run] 50/200 ops (25.0 %), simulated 1 us\n[run] 200/200 ops in 0.0s\n");
}

TEST(Progress, AnEtaOnceASecondHasPassedAtTheAverageRateSoFar) {
    testing::internal::CaptureStderr();
    {
        ProgressLine p("calibrating", "distinct ops", 4, ProgressLine::Mode::kLines);
        std::this_thread::sleep_for(std::chrono::milliseconds(1100));
        p.update(1);  // 1 of 4 in at least 1.1 s: at least 3.3 s to go
    }
    const std::string err = testing::internal::GetCapturedStderr();
    const std::string head = "[calibrating] 1/4 distinct ops (25.0 %), ETA ";
    ASSERT_EQ(err.rfind(head, 0), 0u) << err;
    const double eta =
        std::stod(err.substr(head.size()));  // "3.3s" (or "1m05s" on a stalled machine)
    EXPECT_GE(eta, 1.0) << err;
}

TEST(Progress, UnknownTotalsAndFractionsAndOffMode) {
    testing::internal::CaptureStderr();
    {
        ProgressLine counts("run", "ops", 0, ProgressLine::Mode::kLines);
        counts.update(7);
        ProgressLine fraction("figures", "", 1000, ProgressLine::Mode::kLines);
        fraction.update(125, "simulated 3 ms");
        ProgressLine off("quiet", "ops", 10, ProgressLine::Mode::kOff);
        off.update(3);
        off.finish(10);
        EXPECT_FALSE(off.enabled());
    }
    const std::string err = testing::internal::GetCapturedStderr();
    EXPECT_EQ(err, "[run] 7 ops\n[figures] 12.5 %, simulated 3 ms\n");
}

TEST(Progress, RedrawModeErasesItsLineAtTheEnd) {
    testing::internal::CaptureStderr();
    {
        ProgressLine p("run", "ops", 10, ProgressLine::Mode::kRedraw);
        p.update(5);
        p.finish(10);
    }
    const std::string err = testing::internal::GetCapturedStderr();
    EXPECT_EQ(err, "\r\033[K[run] 5/10 ops (50.0 %)\r\033[K");
}

TEST(Progress, ModeComesFromTheEnvironment) {
    ::setenv("ASCEND_SIM_PROGRESS", "lines", 1);
    EXPECT_EQ(ProgressLine::mode_from_environment(), ProgressLine::Mode::kLines);
    ::setenv("ASCEND_SIM_PROGRESS", "0", 1);
    EXPECT_EQ(ProgressLine::mode_from_environment(), ProgressLine::Mode::kOff);
    ::setenv("ASCEND_SIM_PROGRESS", "tty", 1);
    EXPECT_EQ(ProgressLine::mode_from_environment(), ProgressLine::Mode::kRedraw);
    ::unsetenv("ASCEND_SIM_PROGRESS");
}

TEST(Progress, FormatDurationForPeople) {
    EXPECT_EQ(format_duration(4.24), "4.2s");
    EXPECT_EQ(format_duration(185), "3m05s");
    EXPECT_EQ(format_duration(3720), "1h02m");
}

// Commands print it on request (the tests' stderr is no terminal) and not without.
TEST(Progress, CommandsReportOnRequestOnly) {
    ::unsetenv("ASCEND_SIM_PROGRESS");
    const test::CliResult quiet =
        test::run_cli("run --out " + test::scratch_path("progress", "quiet"));
    ASSERT_EQ(quiet.exit_code, 0) << quiet.output;
    EXPECT_EQ(quiet.output.find("[run]"), std::string::npos) << quiet.output;

    ::setenv("ASCEND_SIM_PROGRESS", "lines", 1);
    const test::CliResult single =
        test::run_cli("run --out " + test::scratch_path("progress", "single"));
    const std::string set = test::scratch_path("progress", "set");
    const test::CliResult gen = test::run_cli(
        "trace gen --model llama3-8b --phase decode --batch 1 --seq 128 --tp 2 --layers 1 "
        "--no-embedding --out " +
        set);
    const test::CliResult fast =
        test::run_cli("run --platform supernode8_ring --trace " + set + " --fidelity fast --out " +
                      test::scratch_path("progress", "fast"));
    const test::CliResult figures =
        test::run_cli("figures collectives --platform supernode8_ring --op allreduce --sizes 1MiB");
    ::unsetenv("ASCEND_SIM_PROGRESS");
    ASSERT_EQ(single.exit_code, 0) << single.output;
    EXPECT_NE(single.output.find("[run] 1/11 ops (9.1 %), simulated "), std::string::npos)
        << single.output;
    EXPECT_NE(single.output.find("[run] 11/11 ops in "), std::string::npos) << single.output;
    ASSERT_EQ(gen.exit_code, 0) << gen.output;
    ASSERT_EQ(fast.exit_code, 0) << fast.output;
    EXPECT_NE(fast.output.find("[calibrating fast dies] 1/"), std::string::npos) << fast.output;
    EXPECT_NE(fast.output.find(" distinct ops in "), std::string::npos) << fast.output;
    EXPECT_NE(fast.output.find("[run] 1/"), std::string::npos) << fast.output;
    ASSERT_EQ(figures.exit_code, 0) << figures.output;
    EXPECT_NE(figures.output.find("[figures collectives: 1048576 B] done in "), std::string::npos)
        << figures.output;
}

}  // namespace
}  // namespace asim

// The prefetch-scheduler RTL against the C++ reference: random and trace-derived stimulus pass,
// the coverage goals are reached, the bug-injected RTL is caught (by the scoreboard, and by the
// bound checker's assertions alone), bad input exits 2.
// run_cosim() elaborates SystemC, so each TEST runs it at most once (each TEST is its own process);
// runs beyond the first go through the ascend-sim binary.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "testbenches/prefetch_scheduler/cosim_bench.h"

#include "tests/harness/scratch.h"

namespace fs = std::filesystem;

namespace {

struct CliRun {
    int exit_code = -1;
    std::string output;
};

CliRun cosim_cli(const std::string& args) {
    const std::string cmd = std::string(ASIM_BINARY) + " cosim " + args + " 2>&1";
    FILE* p = popen(cmd.c_str(), "r");
    CliRun r;
    char buf[512];
    while (fgets(buf, sizeof buf, p)) r.output += buf;
    const int status = pclose(p);
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return r;
}

TEST(Cosim, RandomSeedsMatch) {
    // Seeds 16 and 23 write new credit limits in cycle 0: the RTL must come out of reset with the
    // initial limits, as the core does (the bench once reset it at the first evaluate, after the
    // write, and the credits diverged).
    for (const char* seed : {"2", "3", "4", "5", "16", "23"}) {
        const CliRun r = cosim_cli(std::string("--seed ") + seed + " --cycles 40000");
        EXPECT_EQ(r.exit_code, 0) << "seed " << seed << "\n" << r.output;
        EXPECT_NE(r.output.find("PASS: 40000 cycles"), std::string::npos) << r.output;
    }
}

TEST(Cosim, RandomCoverageGoalsAreHit) {
    asim::cosim::CosimOptions o;
    o.seed = 1;
    o.cycles = 150'000;
    const auto r = asim::cosim::run_cosim(o);
    EXPECT_TRUE(r.passed) << r.mismatch;
    EXPECT_EQ(r.cycles, o.cycles);
    EXPECT_TRUE(r.coverage.all_hit()) << r.coverage.report();
    EXPECT_GT(r.issued, 5'000u);
    EXPECT_EQ(r.reference.issued_bytes, r.rtl.issued_bytes);
    RecordProperty("cycles_per_s", std::to_string(static_cast<long long>(r.cycles_per_s())));
}

TEST(Cosim, TraceDerivedMatches) {
    asim::cosim::CosimOptions o;
    o.trace = "builtin:llama3-70b-layer";
    o.cycles = 2'000'000;
    const auto r = asim::cosim::run_cosim(o);
    EXPECT_TRUE(r.passed) << r.mismatch;
    EXPECT_LT(r.cycles, o.cycles);  // the trace ran to its end
    EXPECT_GT(r.issued, 100u);
    EXPECT_GT(r.reference.candidates_accepted, 0u);
}

TEST(Cosim, InjectedBugIsCaught) {
    if (!asim::rtl::has_bug_variant()) GTEST_SKIP() << "built with ASIM_RTL_BUG_VARIANT=OFF";
    asim::cosim::CosimOptions o;
    o.seed = 1;
    o.cycles = 100'000;
    o.variant = asim::rtl::RtlVariant::kInjectedBug;
    const auto r = asim::cosim::run_cosim(o);
    EXPECT_FALSE(r.passed);
    EXPECT_LT(r.cycles, o.cycles);  // stopped at the first mismatch
    EXPECT_NE(r.mismatch.find("MISMATCH at cycle"), std::string::npos) << r.mismatch;
    EXPECT_NE(r.mismatch.find("reference:"), std::string::npos)
        << r.mismatch;  // the surrounding stimulus
    // And the command line says so with exit code 1, also on a trace.
    const CliRun cli = cosim_cli("--inject-bug --trace builtin:llama3-70b-layer");
    EXPECT_EQ(cli.exit_code, 1) << cli.output;
    EXPECT_NE(cli.output.find("MISMATCH"), std::string::npos) << cli.output;
}

// The RTL carries the contract's checker (rtl/prefetch_scheduler/prefetch_scheduler_checker.sv)
// with Verilator's --assert: without the scoreboard, the assertions alone must fail the injected
// bug's run, name the property, and pass the good block.
TEST(Cosim, AssertionsAloneCatchTheInjectedBug) {
    if (!asim::rtl::has_bug_variant()) GTEST_SKIP() << "built with ASIM_RTL_BUG_VARIANT=OFF";
    if (!asim::rtl::has_assertions()) GTEST_SKIP() << "built with ASIM_RTL_ASSERTIONS=OFF";
    const CliRun bug = cosim_cli("--inject-bug --no-scoreboard --seed 1 --cycles 100000");
    EXPECT_EQ(bug.exit_code, 1) << bug.output;
    EXPECT_NE(bug.output.find("ASSERTION at the edge ending cycle 342"), std::string::npos)
        << bug.output;
    EXPECT_NE(bug.output.find("Assertion failed in"), std::string::npos) << bug.output;
    EXPECT_NE(bug.output.find("u_checker.a_eligible_issues"), std::string::npos) << bug.output;
    EXPECT_EQ(bug.output.find("MISMATCH"), std::string::npos) << bug.output;
    EXPECT_NE(bug.output.find("FAIL:"), std::string::npos) << bug.output;
    EXPECT_EQ(bug.output.find("PASS"), std::string::npos) << bug.output;

    const CliRun good = cosim_cli("--no-scoreboard --seed 7 --cycles 100000");
    EXPECT_EQ(good.exit_code, 0) << good.output;
    EXPECT_NE(good.output.find("PASS: 100000 cycles"), std::string::npos) << good.output;
    EXPECT_EQ(good.output.find("Assertion failed"), std::string::npos) << good.output;
}

// With the assertions switched off at run time the scoreboard alone catches the bug, in the same
// cycle (the assertion would have fired at that cycle's edge).
TEST(Cosim, ScoreboardAloneCatchesTheInjectedBug) {
    if (!asim::rtl::has_bug_variant()) GTEST_SKIP() << "built with ASIM_RTL_BUG_VARIANT=OFF";
    const CliRun r = cosim_cli("--inject-bug --no-assertions --seed 1 --cycles 100000");
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(r.output.find("MISMATCH at cycle 342"), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find("Assertion failed"), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find("ASSERTION"), std::string::npos) << r.output;
}

TEST(Cosim, AssertionStopsTheBenchInProcess) {
    if (!asim::rtl::has_bug_variant()) GTEST_SKIP() << "built with ASIM_RTL_BUG_VARIANT=OFF";
    if (!asim::rtl::has_assertions()) GTEST_SKIP() << "built with ASIM_RTL_ASSERTIONS=OFF";
    asim::cosim::CosimOptions o;
    o.seed = 1;
    o.cycles = 100'000;
    o.variant = asim::rtl::RtlVariant::kInjectedBug;
    o.scoreboard = false;
    const auto r = asim::cosim::run_cosim(o);
    EXPECT_FALSE(r.passed);
    EXPECT_TRUE(r.assertion_failed);
    EXPECT_LT(r.cycles, o.cycles);
    EXPECT_NE(r.mismatch.find("ASSERTION at the edge ending cycle " + std::to_string(r.cycles - 1)),
              std::string::npos)
        << r.mismatch;
}

TEST(Cosim, WaveformsOnDemand) {
    const fs::path vcd = asim::test::scratch_path("cosim", "waves.vcd");
    const CliRun r = cosim_cli("--cycles 200 --waves " + vcd.string());
    ASSERT_EQ(r.exit_code, 0) << r.output;
    std::ifstream in(vcd);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_NE(text.find("$enddefinitions"), std::string::npos);
    EXPECT_NE(text.find("req_valid"), std::string::npos);
    EXPECT_NE(text.find("#199"), std::string::npos);  // 200 cycles of 1 ns, ps resolution
    fs::remove(vcd);
}

// A disk that fills while the waveforms are written (here: a 64 KiB file-size limit, with SIGXFSZ
// ignored so a write fails with EFBIG as it would with ENOSPC). Verilator's own fatal handler
// flushed every trace from inside the failing flush and deadlocked; now the run ends at once with
// exit 1 naming the file, and nothing is left under the name or beside it.
TEST(Cosim, WaveformsOnAFullDiskEndTheRunInsteadOfHanging) {
    const fs::path dir = asim::test::scratch_path("cosim", "full-disk");
    fs::create_directories(dir);
    const fs::path vcd = dir / "w.vcd";
    const std::string cmd = "timeout 120 sh -c \"trap '' XFSZ; ulimit -f 64; exec " +
                            std::string(ASIM_BINARY) + " cosim --seed 1 --cycles 200000 --waves " +
                            vcd.string() + "\" 2>&1";
    FILE* p = popen(cmd.c_str(), "r");
    std::string output;
    char buf[512];
    while (fgets(buf, sizeof buf, p)) output += buf;
    const int status = pclose(p);
    ASSERT_TRUE(WIFEXITED(status)) << output;
    EXPECT_EQ(WEXITSTATUS(status), 1) << output;  // 124 would be the timeout: the old hang
    EXPECT_NE(output.find("cannot write the waveforms to " + vcd.string()), std::string::npos)
        << output;
    EXPECT_TRUE(fs::is_empty(dir)) << "a partial or temporary waveform file was left";
    fs::remove_all(dir);
}

TEST(Cosim, BadInputExits2) {
    for (const char* args :
         {"--trace /nonexistent/trace.jsonl", "--trace builtin:nope", "--cycles 0", "--cycles lots",
          "--seed -1", "--waves /nonexistent/dir/w.vcd", "--no-scoreboard --no-assertions"}) {
        const CliRun r = cosim_cli(args);
        EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.output;
        EXPECT_EQ(r.output.find("PASS"), std::string::npos) << args << "\n" << r.output;
        EXPECT_NE(r.output.find(std::string(args).substr(2, 4)), std::string::npos) << args << "\n"
                                                                                    << r.output;
    }
}

}  // namespace

// The synthesis check (scripts/rtl_synth.sh, yosys): the block synthesizes in the chip's
// configuration (rtl::RtlBuild) and the formal ones with no latches, loops or undriven signals and
// every bit of state kept; broken variants of the block fail the check; configurations the block
// does not support exit 2 naming the parameter.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "rtl/prefetch_scheduler/prefetch_scheduler_rtl.h"
#include "tests/rtl/rtl_tool.h"

#include "tests/harness/scratch.h"

namespace fs = std::filesystem;
using asim::rtl::RtlBuild;
using asim::rtl_test::read_file;
using asim::rtl_test::run_tool;
using asim::rtl_test::ToolRun;

namespace {

uint32_t clog2(uint32_t n) {
    uint32_t b = 0;
    while ((1u << b) < n) ++b;
    return b;
}

void expect_clean(const ToolRun& r, long long state_bits, uint32_t read_pointer_bits) {
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(r.value("result"), "clean") << r.output;
    EXPECT_EQ(r.value("latches"), "0 cells, 0 signals inferred") << r.output;
    EXPECT_EQ(r.number("logic loops"), 0) << r.output;
    EXPECT_EQ(r.number("undriven"), 0) << r.output;
    EXPECT_EQ(r.number("multiple drivers"), 0) << r.output;
    EXPECT_EQ(r.value("check problems"), "0 (3 check passes)") << r.output;
    EXPECT_EQ(r.number("state bits"), state_bits) << r.output;
    // Every bit of state is a flip-flop; yosys adds a copy of the queue's read pointer as the
    // registered address of the queue's read port (memory_dff), nothing else.
    EXPECT_EQ(r.number("flip-flops"), state_bits + read_pointer_bits) << r.output;
    EXPECT_GT(r.number("cells"), r.number("flip-flops")) << r.output;
}

TEST(RtlSynth, ChipConfigurationIsClean) {
    const ToolRun r = run_tool("rtl_synth.sh", "--config chip");
    // The configuration is rtl::RtlBuild's (the parameters the Verilated library is built with).
    const std::string expect_config = "MAX_DEPTH=" + std::to_string(RtlBuild::kMaxDepth) +
                                      " QUEUE_DEPTH=" + std::to_string(RtlBuild::kQueueDepth) +
                                      " ADDR_W=" + std::to_string(RtlBuild::kAddrBits) +
                                      " LEN_W=" + std::to_string(RtlBuild::kLenBits) +
                                      " SEQ_W=" + std::to_string(RtlBuild::kSeqBits) +
                                      " NPART=" + std::to_string(RtlBuild::kPartitions) +
                                      " CREDIT_W=" + std::to_string(RtlBuild::kCreditBits) +
                                      " CNT_W=64" +
                                      " TIER_W=" + std::to_string(RtlBuild::kTierBits) +
                                      " EST_W=" + std::to_string(RtlBuild::kEstBits);
    EXPECT_NE(r.output.find("configuration chip: " + expect_config + "\n"), std::string::npos)
        << r.output;
    const long long entry = RtlBuild::kSeqBits + RtlBuild::kAddrBits + RtlBuild::kLenBits +
                            clog2(RtlBuild::kPartitions) + RtlBuild::kTierBits + RtlBuild::kEstBits;
    const uint32_t qptr = clog2(RtlBuild::kQueueDepth);
    const long long state = RtlBuild::kQueueDepth * entry + 2 * qptr +
                            clog2(RtlBuild::kQueueDepth + 1) + RtlBuild::kLenBits + 1 +
                            RtlBuild::kSeqBits + RtlBuild::kEstBits +
                            RtlBuild::kPartitions * RtlBuild::kCreditBits + 9 * 64;
    EXPECT_EQ(state, 3606);
    expect_clean(r, state, qptr);
    EXPECT_GT(r.number("cells"), 10000) << r.output;
    RecordProperty("cells", std::to_string(r.number("cells")));
    RecordProperty("flip_flops", std::to_string(r.number("flip-flops")));
}

TEST(RtlSynth, FormalConfigurationsAreClean) {
    // formal: queue 3 x (3 + 6 + 5 + 1 + 1 + 3), pointers 2 x 2, count 2, offset 5, has_cur,
    // current 3 and its estimate 3, credits 2 x 6, counters 9 x 4.
    expect_clean(run_tool("rtl_synth.sh", "--config formal"), 57 + 4 + 2 + 5 + 1 + 3 + 3 + 12 + 36,
                 2);
    // formal_alt: queue 2 x (2 + 6 + 6 + 2 + 2 + 2), pointers 2 x 1, count 2, offset 6, has_cur,
    // current 2 and its estimate 2, credits 3 x 4, counters 9 x 3.
    expect_clean(run_tool("rtl_synth.sh", "--config formal_alt"),
                 40 + 2 + 2 + 6 + 1 + 2 + 2 + 12 + 27, 1);
}

// The check must be able to fail: the block with a latch, an undriven output, a logic loop.
TEST(RtlSynth, BrokenBlocksFailTheCheck) {
    const std::string block =
        read_file(std::string(ASIM_SOURCE_DIR) + "/rtl/prefetch_scheduler/prefetch_scheduler.sv");
    const auto variant = [&](const std::string& name, const std::string& from,
                             const std::string& to) {
        const std::size_t at = block.find(from);
        EXPECT_NE(at, std::string::npos) << name;
        std::string text = block;
        if (at != std::string::npos) text.replace(at, from.size(), to);
        const fs::path file = asim::test::scratch_path("rtl", name + ".sv");
        std::ofstream(file) << text;
        const ToolRun r = run_tool("rtl_synth.sh", "--config formal --block " + file.string());
        fs::remove(file);
        EXPECT_EQ(r.exit_code, 1) << name << "\n" << r.output;
        EXPECT_EQ(r.value("result").rfind("FAIL", 0), 0u) << name << "\n" << r.output;
        return r;
    };
    const ToolRun latch =
        variant("latch",
                "    always_comb begin\n        for (int p = 0; p < NPART; p++) begin\n"
                "            limit[p] = cfg_credit_limit[p*CREDIT_W +: CREDIT_W];\n"
                "            eff_credit[p] = credit[p] < limit[p] ? credit[p] : limit[p];",
                "    always @* begin\n        for (int p = 0; p < NPART; p++) begin\n"
                "            limit[p] = cfg_credit_limit[p*CREDIT_W +: CREDIT_W];\n"
                "            if (credit[p] < limit[p]) eff_credit[p] = credit[p];");
    EXPECT_EQ(latch.value("latches"), "12 cells, 2 signals inferred")
        << latch.output;  // 2 x 6 credit bits
    EXPECT_EQ(latch.value("result"), "FAIL (latches)") << latch.output;

    const ToolRun undriven = variant("undriven", "    assign req_tier      = h_tier;\n", "");
    EXPECT_EQ(undriven.number("undriven"), 1) << undriven.output;
    EXPECT_NE(undriven.output.find("req_tier is used but has no driver"), std::string::npos)
        << undriven.output;

    const ToolRun loop = variant("loop", "assign issue         = req_valid && req_ready;",
                                 "assign issue         = req_valid && req_ready && !head_done;");
    EXPECT_GT(loop.number("logic loops"), 0) << loop.output;
    EXPECT_EQ(loop.value("result"), "FAIL (check problems)") << loop.output;
}

TEST(RtlSynth, UnsupportedConfigurationExits2) {
    const std::pair<const char*, const char*> cases[] = {
        {"-P ADDR_W=16", "ADDR_W=16: must be at least LEN_W (40)"},
        {"-P QUEUE_DEPTH=0", "QUEUE_DEPTH=0: must be"},
        {"-P MAX_DEPTH=15 -P SEQ_W=2", "SEQ_W=2:"},
        {"-P WIDTH=3", "WIDTH: not a parameter of prefetch_scheduler"},
        {"-P NPART=two", "NPART: expected -P NAME=VALUE"},
        {"--config tiny", "--config tiny: not a configuration"},
        {"--block /nonexistent/block.sv", "--block /nonexistent/block.sv: no such file"},
    };
    for (const auto& [args, message] : cases) {
        const ToolRun r = run_tool("rtl_synth.sh", args);
        EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.output;
        EXPECT_NE(r.output.find(std::string("rtl_synth: ") + message), std::string::npos)
            << args << "\n"
            << r.output;
        EXPECT_EQ(r.value("result"), "") << args << "\n" << r.output;  // nothing synthesized
    }
}

}  // namespace

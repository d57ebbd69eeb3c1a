// The formal run (scripts/rtl_formal.sh, yosys sat): every assertion of the bound checker is
// proven by induction on both reduced configurations; the co-simulation's injected bug and every
// mutant of rtl/yosys/mutants.py are caught (each by the property it targets, alone); every
// property catches one; configurations the block or the checker cannot take exit 2.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "tests/rtl/rtl_tool.h"

using asim::rtl_test::checker_assertions;
using asim::rtl_test::run_tool;
using asim::rtl_test::take;
using asim::rtl_test::take_word;
using asim::rtl_test::ToolRun;

namespace {

void expect_proven(const ToolRun& r) {
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(r.value("result"), "PROVEN") << r.output;
    const auto props = checker_assertions();
    EXPECT_EQ(props.size(), 22u);
    EXPECT_EQ(r.value("properties"), std::to_string(props.size()) + " assertions checked (" +
                                         std::to_string(props.size()) +
                                         " in the checker), 3 assumptions")
        << r.output;
    for (const std::string& p : props) {
        EXPECT_EQ(r.value("property " + p), "proven by induction (length 2)") << p << "\n"
                                                                              << r.output;
    }
}

TEST(RtlFormal, ContractProvenByInduction) {
    const ToolRun r = run_tool("rtl_formal.sh", "--config formal");
    EXPECT_NE(
        r.output.find(
            "configuration formal: MAX_DEPTH=3 QUEUE_DEPTH=3 ADDR_W=6 LEN_W=5 SEQ_W=3 NPART=2 "
            "CREDIT_W=6 CNT_W=4 TIER_W=1 EST_W=3\n"),
        std::string::npos)
        << r.output;
    expect_proven(r);
}

TEST(RtlFormal, ContractProvenByInductionOtherWidths) {
    expect_proven(run_tool("rtl_formal.sh", "--config formal_alt"));
}

// The co-simulation's bug variant (ASIM_HJSD_INJECT_BUG) fails the whole proof, with a
// counterexample that violates the property that says an eligible head issues.
TEST(RtlFormal, InjectedBugFailsTheProof) {
    const ToolRun r = run_tool("rtl_formal.sh", "--config formal --define ASIM_HJSD_INJECT_BUG");
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_EQ(r.value("result"), "FAIL") << r.output;
    EXPECT_EQ(r.value("property a_eligible_issues").rfind("FAILED (counterexample, step ", 0), 0u)
        << r.output;
    EXPECT_EQ(r.output.find("proven by induction"), std::string::npos) << r.output;
}

void expect_every_mutant_caught(const std::string& config, std::size_t not_applicable) {
    const ToolRun r = run_tool("rtl_formal.sh", "--mutants --config " + config);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(r.value("result"), "every mutant caught by its property; every property catches one")
        << r.output;
    // Each line names the property the mutant targets and says that property caught it.
    std::set<std::string> mutants, properties;
    for (std::size_t at = r.output.find("mutant "); at != std::string::npos;
         at = r.output.find("mutant ", at + 1)) {
        std::size_t pos = at + 7;
        const std::string mutant = take_word(r.output, pos);
        if (mutant.empty() || !take(r.output, pos, ": caught by ")) continue;
        const std::string property = take_word(r.output, pos);
        if (property.empty() || !take(r.output, pos, " at step ") ||
            !std::isdigit(static_cast<unsigned char>(r.output[pos])))
            continue;
        mutants.insert(mutant);
        properties.insert(property);
    }
    EXPECT_EQ(mutants.size() + not_applicable, 34u) << r.output;
    EXPECT_TRUE(mutants.count("inject_bug")) << r.output;  // the co-simulation's variant
    for (const std::string& p : checker_assertions())
        EXPECT_TRUE(properties.count(p)) << p << "\n" << r.output;
    EXPECT_EQ(r.output.find("ESCAPED"), std::string::npos) << r.output;
}

TEST(RtlFormal, EveryMutantIsCaught) { expect_every_mutant_caught("formal", 0); }

// QUEUE_DEPTH 2 is a power of two: the write pointer's wrap is free, that mutant changes nothing.
TEST(RtlFormal, EveryMutantIsCaughtOtherWidths) { expect_every_mutant_caught("formal_alt", 1); }

TEST(RtlFormal, UnsupportedConfigurationExits2) {
    const std::pair<const char*, const char*> cases[] = {
        {"-P LEN_W=7", "ADDR_W=6: must be at least LEN_W (7)"},
        {"-P NPART=5", "NPART=5: the checker's refinement map reaches 4 partitions"},
        {"-P MAX_DEPTH=0", "MAX_DEPTH=0: must be"},
        {"-P SEQ_W=1 -P MAX_DEPTH=7", "SEQ_W=1:"},
        {"-P DEPTH=3", "DEPTH: not a parameter of prefetch_scheduler"},
        {"--config huge", "--config huge: not a configuration"},
        {"--mutant nope", "--mutant nope: not a mutant"},
        {"--only a_nope", "--only a_nope: not an assertion of the checker"},
        {"--depth 0", "--depth 0: must be at least 1"},
    };
    for (const auto& [args, message] : cases) {
        const ToolRun r = run_tool("rtl_formal.sh", args);
        EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.output;
        EXPECT_NE(r.output.find(std::string("rtl_formal: ") + message), std::string::npos)
            << args << "\n"
            << r.output;
        EXPECT_EQ(r.value("result"), "") << args << "\n" << r.output;
    }
}

}  // namespace

// The H-JSD decision core against DESIGN §5, cycle by cycle.
#include <gtest/gtest.h>

#include <map>
#include <optional>

#include "models/chip/hjsd/hjsd.h"
#include "models/chip/hjsd/prefetch_scheduler_core.h"
#include "models/common/config.h"

namespace asim::hjsd {
namespace {

Registers regs(uint32_t depth, uint64_t chunk = 4096, uint64_t credit = 1 << 20) {
    Registers r;
    r.prefetch_depth = depth;
    r.chunk_bytes = chunk;
    r.credit_limit = {credit, credit, credit, credit};
    return r;
}

Inputs cand(uint64_t seq, uint64_t addr, uint64_t bytes, uint32_t partition = 0,
            uint32_t tier = 0) {
    Inputs in;
    in.candidate = Candidate{seq, addr, bytes, partition, tier};
    return in;
}

Inputs start(uint64_t seq) {
    Inputs in;
    in.op_start = seq;
    return in;
}

// Steps with quiet inputs until `n` requests were issued or `limit` cycles passed.
std::vector<Request> drain(PrefetchSchedulerCore& core, std::size_t n, int limit = 1000) {
    std::vector<Request> out;
    for (int i = 0; i < limit && out.size() < n; ++i) {
        const Outputs o = core.step(Inputs{});
        if (o.issued) out.push_back(*o.request);
    }
    return out;
}

TEST(HjsdCore, EligibilityWindow) {
    PrefetchSchedulerCore core(16, 1, regs(2));
    // Before any op_start, current is -1: ops 0 and 1 are eligible, op 2 is not. (A candidate
    // pushed at one edge can issue in the next cycle, so collect from every step.)
    std::vector<Request> issued;
    for (const Inputs& in : {cand(0, 0x1000, 4096), cand(1, 0x2000, 4096), cand(2, 0x3000, 4096)}) {
        const Outputs o = core.step(in);
        if (o.issued) issued.push_back(*o.request);
    }
    for (const Request& r : drain(core, 3, 20)) issued.push_back(r);
    ASSERT_EQ(issued.size(), 2u);
    EXPECT_EQ(issued[0].op_seq, 0u);
    EXPECT_EQ(issued[1].op_seq, 1u);
    EXPECT_GT(core.counters().window_waits, 0u);
    // op 0 starts: the window is 0 < seq <= 2, so op 2 goes.
    core.step(start(0));
    issued = drain(core, 1, 5);
    ASSERT_EQ(issued.size(), 1u);
    EXPECT_EQ(issued[0].op_seq, 2u);
}

TEST(HjsdCore, StrictlyInOrderEvenWhenALaterCandidateCouldGo) {
    PrefetchSchedulerCore core(16, 2, regs(4, 4096, 0));
    Registers r = regs(4);
    r.credit_limit = {0, 1 << 20, 0, 0};  // partition 0 has no credit, partition 1 has plenty
    core.set_registers(r);
    core.step(cand(0, 0x1000, 4096, 0));
    core.step(cand(1, 0x2000, 4096, 1));
    EXPECT_TRUE(drain(core, 1, 50).empty());  // head blocked on credit: nothing overtakes it
    EXPECT_GT(core.counters().credit_stalls, 0u);
}

TEST(HjsdCore, ChunksAreAlignedAndCoverTheRegion) {
    PrefetchSchedulerCore core(16, 1, regs(5, 4096));
    core.step(
        cand(0, 0x1800, 10000));  // [0x1800, 0x3F10): 0x1800-0x2000, 0x2000-0x3000, 0x3000-0x3F10
    const auto issued = drain(core, 10, 20);
    ASSERT_EQ(issued.size(), 3u);
    EXPECT_EQ(issued[0].addr, 0x1800u);
    EXPECT_EQ(issued[0].bytes, 0x800u);
    EXPECT_EQ(issued[1].addr, 0x2000u);
    EXPECT_EQ(issued[1].bytes, 0x1000u);
    EXPECT_EQ(issued[2].addr, 0x3000u);
    EXPECT_EQ(issued[2].bytes, 10000u - 0x800u - 0x1000u);
    EXPECT_EQ(core.counters().issued_bytes, 10000u);
}

TEST(HjsdCore, AtMostOneRequestPerCycle) {
    PrefetchSchedulerCore core(16, 1, regs(5, 64));
    core.step(cand(0, 0, 64 * 10));
    int cycles = 0;
    std::size_t issued = 0;
    while (issued < 10 && cycles < 100) {
        if (core.step(Inputs{}).issued) ++issued;
        ++cycles;
    }
    EXPECT_EQ(issued, 10u);
    EXPECT_EQ(cycles, 10);  // one per cycle, back to back
}

TEST(HjsdCore, CreditStallAndReturn) {
    PrefetchSchedulerCore core(16, 1, regs(5, 4096, 8192));
    core.step(cand(0, 0, 8192));
    EXPECT_TRUE(core.step(cand(1, 0x2000, 8192))
                    .issued);                  // the first chunk, as the second candidate queues
    EXPECT_EQ(drain(core, 4, 20).size(), 1u);  // credit for two chunks only
    EXPECT_EQ(core.credit(0), 0u);
    const uint64_t stalls = core.counters().credit_stalls;
    EXPECT_GT(stalls, 0u);
    Inputs ret;
    ret.credit_return = std::make_pair(0u, uint64_t{4096});
    core.step(ret);  // credit arrives at this edge
    EXPECT_EQ(drain(core, 1, 3).size(), 1u);
    EXPECT_EQ(core.credit(0), 0u);
    // Returns saturate at the limit.
    ret.credit_return = std::make_pair(0u, uint64_t{1} << 30);
    core.step(ret);
    EXPECT_EQ(core.credit(0), 8192u);
}

// rtl/README.md refinement 1: a lowered limit clamps the credit from the next cycle on, and a
// raised limit does not raise the credit (the RTL computes min(credit, limit) combinationally).
TEST(HjsdCore, CreditLimitWritesClampAndDoNotRefill) {
    PrefetchSchedulerCore core(16, 1, regs(5, 4096, 16384));
    core.set_registers(regs(5, 4096, 4096));
    EXPECT_EQ(core.credit(0), 4096u);
    core.set_registers(regs(5, 4096, 16384));
    EXPECT_EQ(core.credit(0), 4096u);
    core.step(cand(0, 0, 16384));
    EXPECT_EQ(drain(core, 4, 20).size(), 1u);
}

TEST(HjsdCore, ThrottleHoldsIssue) {
    PrefetchSchedulerCore core(16, 1, regs(5));
    core.step(cand(0, 0, 4096));
    Inputs hot;
    hot.throttle = true;
    for (int i = 0; i < 10; ++i) EXPECT_FALSE(core.step(hot).issued);
    EXPECT_EQ(core.counters().throttle_stalls, 10u);
    EXPECT_TRUE(core.step(Inputs{}).issued);
}

// rtl/README.md refinement 11: the throttle (local HBM load) holds back a head from local HBM
// only; a head from a pool tier issues through it, and the local head behind it waits again.
TEST(HjsdCore, ThrottleHoldsOnlyLocalHbmHeads) {
    PrefetchSchedulerCore core(16, 1, regs(5));
    Inputs pool = cand(0, 0, 4096, 0, 2);  // from tier 2, a pool tier
    Inputs local = cand(1, 8192, 4096);    // from local HBM
    pool.throttle = local.throttle = true;
    EXPECT_FALSE(core.step(pool).issued);  // pushed at this edge
    const Outputs first = core.step(local);
    ASSERT_TRUE(first.issued);  // throttle high, but the head reads the pool
    EXPECT_EQ(first.request->tier, 2u);
    Inputs hot;
    hot.throttle = true;
    for (int i = 0; i < 5; ++i) EXPECT_FALSE(core.step(hot).issued);
    EXPECT_EQ(core.counters().throttle_stalls, 5u);
    const Outputs cool = core.step(Inputs{});
    ASSERT_TRUE(cool.issued);
    EXPECT_EQ(cool.request->tier, kLocalHbmTier);
}

TEST(HjsdCore, PortBackPressure) {
    PrefetchSchedulerCore core(16, 1, regs(5));
    core.step(cand(0, 0, 4096));
    Inputs busy;
    busy.req_ready = false;
    const Outputs o = core.step(busy);
    EXPECT_TRUE(o.request.has_value());  // valid held while not ready
    EXPECT_FALSE(o.issued);
    EXPECT_EQ(core.counters().port_stalls, 1u);
    EXPECT_EQ(core.credit(0), 1u << 20);  // credit is taken only at issue
    EXPECT_TRUE(core.step(Inputs{}).issued);
}

TEST(HjsdCore, LateCandidatesAreDropped) {
    PrefetchSchedulerCore core(16, 1, regs(5));
    core.step(start(7));
    core.step(cand(3, 0, 4096));  // op 3 is already past
    core.step(cand(7, 0, 4096));  // op 7 is running: late too
    core.step(cand(8, 0, 4096));
    const auto issued = drain(core, 1, 10);
    ASSERT_EQ(issued.size(), 1u);
    EXPECT_EQ(issued[0].op_seq, 8u);
    EXPECT_EQ(core.counters().late_drops, 2u);
}

TEST(HjsdCore, DepthZeroIsOff) {
    PrefetchSchedulerCore core(16, 1, regs(0));
    core.step(cand(0, 0, 4096));
    core.step(cand(1, 0, 4096));
    EXPECT_TRUE(drain(core, 1, 20).empty());
    core.step(start(0));
    core.step(start(1));
    drain(core, 1, 5);
    EXPECT_EQ(core.counters().issued_chunks, 0u);
    EXPECT_EQ(core.counters().late_drops, 2u);  // they became late and were dropped
}

TEST(HjsdCore, QueueFullDeassertsReady) {
    PrefetchSchedulerCore core(2, 1, regs(0));
    EXPECT_TRUE(core.step(cand(5, 0, 64)).cand_ready);
    EXPECT_TRUE(core.step(cand(6, 0, 64)).cand_ready);
    EXPECT_FALSE(core.step(cand(7, 0, 64)).cand_ready);
    EXPECT_EQ(core.queued(), 2u);
}

// DESIGN §5 bytes-bounded lookahead, as refined in rtl/README.md: a head larger than its
// partition's credit limit can never be held there and is dropped at the edge, counted apart.
TEST(HjsdCore, OversizeHeadIsDroppedAndCounted) {
    PrefetchSchedulerCore core(16, 1, regs(5, 4096, 8192));
    core.step(cand(0, 0x1000, 8193));  // one byte more than the partition holds
    // The oversize head is dropped in the first cycle it is at the head; nothing of it issues.
    const Outputs o = core.step(cand(1, 0x9000, 4096));
    EXPECT_TRUE(o.oversize_drop);
    EXPECT_FALSE(o.late_drop);
    EXPECT_TRUE(o.drop());
    EXPECT_FALSE(o.request.has_value());
    EXPECT_EQ(core.counters().oversize_drops, 1u);
    const std::vector<Request> issued = drain(core, 10, 10);
    ASSERT_EQ(issued.size(), 1u);
    EXPECT_EQ(issued[0].op_seq, 1u);
    EXPECT_EQ(core.counters().oversize_drops, 1u);
    EXPECT_EQ(core.counters().late_drops, 0u);
    EXPECT_EQ(core.counters().credit_stalls, 0u);  // it was never waiting for credit
    EXPECT_EQ(core.counters().issued_bytes, 4096u);
    EXPECT_EQ(core.credit(0), 8192u - 4096u);
}

TEST(HjsdCore, OversizeDropIgnoresEnableAndWindow) {
    Registers r = regs(2, 4096, 8192);
    r.enable = false;
    PrefetchSchedulerCore core(16, 1, r);
    core.step(cand(9, 0, 1 << 20));  // far outside the window, and the block is disabled
    EXPECT_FALSE(core.idle_until_input(Inputs{}));  // it drops at the next edge: not idle
    const Outputs o = core.step(Inputs{});
    EXPECT_TRUE(o.oversize_drop);
    EXPECT_EQ(core.queued(), 0u);
    EXPECT_EQ(core.counters().oversize_drops, 1u);
    EXPECT_EQ(core.counters().window_waits, 0u);
    EXPECT_TRUE(core.idle_until_input(Inputs{}));  // empty now
    // A partition with a zero limit holds nothing: every candidate for it is oversize.
    r.enable = true;
    r.credit_limit = {0, 0, 0, 0};
    core.set_registers(r);
    core.step(cand(0, 0, 1));
    EXPECT_TRUE(core.step(Inputs{}).oversize_drop);
    EXPECT_EQ(core.counters().oversize_drops, 2u);
}

TEST(HjsdCore, LateHasPriorityOverOversize) {
    PrefetchSchedulerCore core(16, 1, regs(5, 4096, 8192));
    core.step(start(7));
    core.step(cand(3, 0, 1 << 20));  // late and oversize: dropped as late
    const Outputs o = core.step(Inputs{});
    EXPECT_TRUE(o.late_drop);
    EXPECT_FALSE(o.oversize_drop);
    EXPECT_EQ(core.counters().late_drops, 1u);
    EXPECT_EQ(core.counters().oversize_drops, 0u);
}

TEST(HjsdCore, CandidateExactlyTheLimitIssues) {
    PrefetchSchedulerCore core(16, 1, regs(5, 4096, 8192));
    core.step(cand(0, 0, 8192));
    const auto issued = drain(core, 4, 10);
    ASSERT_EQ(issued.size(), 2u);
    EXPECT_EQ(core.counters().issued_bytes, 8192u);
    EXPECT_EQ(core.counters().oversize_drops, 0u);
    EXPECT_EQ(core.credit(0), 0u);
}

// The rule uses the limit as it stands: lowering it below a partly issued head drops the rest.
TEST(HjsdCore, LoweredLimitDropsAPartlyIssuedHead) {
    PrefetchSchedulerCore core(16, 1, regs(5, 4096, 16384));
    core.step(cand(0, 0, 16384));
    EXPECT_EQ(drain(core, 1, 5).size(), 1u);
    core.set_registers(regs(5, 4096, 8192));
    const Outputs o = core.step(Inputs{});
    EXPECT_TRUE(o.oversize_drop);
    EXPECT_FALSE(o.issued);
    EXPECT_EQ(core.queued(), 0u);
    EXPECT_EQ(core.counters().issued_bytes, 4096u);
    EXPECT_EQ(core.counters().oversize_drops, 1u);
}

// No candidate is ever prefetched into a partition that cannot hold it: even with credit
// returned at once (so credit never holds anything back), a candidate larger than the limit
// issues nothing, and one that fits issues all its bytes.
TEST(HjsdCore, OnlyCandidatesThatFitAreIssued) {
    const uint64_t limit = 20000;
    PrefetchSchedulerCore core(16, 2, regs(15, 1024, limit));
    std::map<uint64_t, uint64_t> issued;  // candidate (by address) -> bytes issued
    std::map<uint64_t, uint64_t> size;
    std::optional<std::pair<uint32_t, uint64_t>> give_back;
    uint64_t next = 0;
    for (int cycle = 0; cycle < 200000 && (next < 500 || core.queued() > 0); ++cycle) {
        Inputs in;
        const uint64_t addr = (next + 1) << 20;
        const uint64_t bytes = 1 + (next * 7919) % 30000;  // a third above the limit
        if (next < 500) in.candidate = Candidate{0, addr, bytes, static_cast<uint32_t>(next % 2)};
        in.credit_return = give_back;
        const Outputs o = core.step(in);
        if (in.candidate && o.cand_ready) {
            size[addr] = bytes;
            ++next;
        }
        give_back.reset();
        if (o.issued) {
            issued[o.request->addr >> 20 << 20] += o.request->bytes;
            give_back = std::make_pair(o.request->partition, o.request->bytes);
        }
    }
    ASSERT_EQ(core.queued(), 0u);
    ASSERT_EQ(size.size(), 500u);
    uint64_t oversize = 0;
    for (const auto& [addr, bytes] : size) {
        if (bytes > limit) {
            EXPECT_EQ(issued.count(addr), 0u)
                << "an oversize candidate was prefetched: " << bytes << " B";
            ++oversize;
        } else {
            EXPECT_EQ(issued[addr], bytes);
        }
    }
    EXPECT_GT(oversize, 100u);
    EXPECT_EQ(core.counters().oversize_drops, oversize);
    EXPECT_EQ(core.counters().credit_stalls, 0u);
    EXPECT_EQ(core.counters().late_drops, 0u);
}

TEST(HjsdCore, TierIsPassedThrough) {
    PrefetchSchedulerCore core(16, 2, regs(5, 4096));
    core.step(cand(0, 0x1800, 10000, 1, 3));
    std::vector<Request> issued;
    const Outputs first = core.step(cand(1, 0x8000, 4096, 0, 2));
    ASSERT_TRUE(first.issued);
    issued.push_back(*first.request);
    for (const Request& r : drain(core, 10, 20)) issued.push_back(r);
    ASSERT_EQ(issued.size(), 4u);
    for (int i = 0; i < 3; ++i) {
        EXPECT_EQ(issued[i].tier, 3u);
        EXPECT_EQ(issued[i].partition, 1u);
    }
    EXPECT_EQ(issued[3].tier, 2u);
    // Tier is part of what the scoreboard compares.
    Request a = issued[3], b = issued[3];
    b.tier = 0;
    EXPECT_FALSE(a == b);
    EXPECT_FALSE((Candidate{0, 0, 64, 0, 1} == Candidate{0, 0, 64, 0, 0}));
    EXPECT_TRUE((Candidate{0, 0, 64, 0, 1} == Candidate{0, 0, 64, 0, 1}));
    // Tiers are 2 bits.
    EXPECT_THROW(core.step(cand(2, 0, 64, 0, kMaxTiers)), std::invalid_argument);
}

TEST(HjsdCore, RegistersAreValidated) {
    EXPECT_FALSE(PrefetchSchedulerCore::validate(regs(kMaxDepth + 1), 1).empty());
    EXPECT_FALSE(PrefetchSchedulerCore::validate(regs(5, 3000), 1).empty());
    EXPECT_TRUE(PrefetchSchedulerCore::validate(regs(kMaxDepth), 1).empty());
    PrefetchSchedulerCore core(4, 1, regs(5));
    EXPECT_THROW(core.step(cand(0, 0, 64, 3)), std::invalid_argument);  // no partition 3
}

}  // namespace
}  // namespace asim::hjsd

// HjsdParams' defaults are the declared ones (hjsd_config.cpp): code that builds the H-JSD without
// YAML gets what a platform that leaves the keys out gets. Credits are the exception by design:
// they default to the partitions' sizes, which the struct cannot know.
TEST(HjsdParams, StructDefaultsAreTheDeclaredDefaults) {
    const asim::HjsdParams d;
    const asim::Config c = asim::Config::from_string("{}", "t.yaml");
    const asim::HjsdParams p = asim::parse_hjsd_params(c.root(), {{"weight", 20u << 20}});
    EXPECT_EQ(p.registers.enable, d.registers.enable);
    EXPECT_EQ(p.registers.prefetch_depth, d.registers.prefetch_depth);
    EXPECT_EQ(p.registers.chunk_bytes, d.registers.chunk_bytes);
    EXPECT_EQ(p.registers.horizon, d.registers.horizon);
    EXPECT_EQ(p.horizon_ps, d.horizon_ps);
    EXPECT_EQ(p.pool_sources_only, d.pool_sources_only);
    EXPECT_EQ(p.queue_depth, d.queue_depth);
    EXPECT_EQ(p.sdma_outstanding, d.sdma_outstanding);
    EXPECT_EQ(p.throttle_threshold, d.throttle_threshold);
    EXPECT_EQ(p.throttle_window_ps, d.throttle_window_ps);
    EXPECT_EQ(p.impl, d.impl);
}

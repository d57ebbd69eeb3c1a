// The JEDEC HBM timing core: one test per timing constraint (each set so that it, and nothing
// else, decides the gap measured), address mapping, scheduling, refresh and conservation.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <random>

#include "models/common/config.h"
#include "models/memory/hbm/address_mapping.h"
#include "models/memory/hbm/hbm_controller.h"
#include "models/memory/hbm_flat/hbm_flat.h"

namespace asim {
namespace {

// One channel, 4 bank groups x 4 banks; every timing distinct and small so each test can make
// one of them the binding one.
HbmDeviceParams device() {
    HbmDeviceParams d;
    d.org.stacks = 1;
    d.org.channels_per_stack = 1;
    d.org.rows = 1024;
    d.org.page_bytes = 2048;
    d.org.bus_width_bits = 128;
    d.org.burst_length = 4;
    auto& t = d.timing;
    t.tCK_ps = 1000;
    t.burst_cycles = 2;
    t.CL = 7, t.CWL = 3, t.tRCDRD = 9, t.tRCDWR = 6, t.tRP = 8, t.tRAS = 20, t.tRC = 30;
    t.tCCD_S = 1, t.tCCD_L = 2, t.tRRD_S = 2, t.tRRD_L = 3, t.tFAW = 12;
    t.tWR = 10, t.tWTR_S = 4, t.tWTR_L = 6, t.tRTP = 4, t.tRTRS = 1, t.tRFC = 50, t.tREFI = 1000;
    d.ctrl.mapping = "robgbaco";
    d.ctrl.refresh = RefreshMode::kNone;
    d.ctrl.write_drain_idle = 0;
    return d;
}

struct Req {
    uint64_t cycle;
    uint32_t bg, ba, row, col;
    bool write = false;
};

struct Replay {
    std::vector<HbmCommandRecord> log;
    std::map<uint64_t, uint64_t> done;  // tag -> completion cycle
    uint64_t duplicates = 0;
};

uint64_t address(const HbmDeviceParams& d, const Req& r) {
    DecodedAddress a;
    a.bank_group = r.bg;
    a.bank = r.ba;
    a.row = r.row;
    a.column = r.col;
    return AddressMapping(d.ctrl.mapping, d.org).encode(a);
}

// Replays `reqs` (in order, as many per cycle as accepted) until all completed.
Replay replay(const HbmDeviceParams& d, const std::vector<Req>& reqs, uint64_t limit = 100000) {
    HbmController c(d);
    Replay r;
    c.set_command_log(0, &r.log);
    std::vector<HbmCompletion> done;
    std::size_t next = 0;
    for (uint64_t now = 0; now < limit; ++now) {
        c.tick(now, done);
        while (next < reqs.size() && reqs[next].cycle <= now) {
            const uint64_t a = address(d, reqs[next]);
            if (!c.can_accept(a, reqs[next].write)) break;
            c.accept(now, a, reqs[next].write, next, done);
            ++next;
        }
        for (const auto& x : done) r.duplicates += !r.done.emplace(x.tag, x.cycle).second;
        done.clear();
        if (next == reqs.size() && r.done.size() == reqs.size() && c.idle()) break;
    }
    return r;
}

// The cycle of the n-th (0-based) command of kind `cmd` on `bank` (any bank when bank < 0).
uint64_t when(const Replay& r, HbmCmd cmd, int bank = -1, int n = 0) {
    for (const auto& x : r.log) {
        if (x.cmd == cmd && (bank < 0 || static_cast<int>(x.bank) == bank) && n-- == 0)
            return x.cycle;
    }
    ADD_FAILURE() << "command not found";
    return 0;
}

TEST(HbmTiming, ReadWaitsTRCDRDAfterActivate) {
    const auto d = device();
    const Replay r = replay(d, {{0, 0, 0, 5, 0}});
    EXPECT_EQ(when(r, HbmCmd::kRead) - when(r, HbmCmd::kAct), d.timing.tRCDRD);
}

TEST(HbmTiming, WriteWaitsTRCDWRAfterActivate) {
    const auto d = device();
    const Replay r = replay(d, {{0, 0, 0, 5, 0, true}});
    EXPECT_EQ(when(r, HbmCmd::kWrite) - when(r, HbmCmd::kAct), d.timing.tRCDWR);
}

TEST(HbmTiming, ReadDataReturnsCLPlusBurstAfterRead) {
    const auto d = device();
    const Replay r = replay(d, {{0, 0, 0, 5, 0}});
    EXPECT_EQ(r.done.at(0) - when(r, HbmCmd::kRead), d.timing.CL + d.timing.burst_cycles);
    // Unloaded from acceptance: 2 pipeline cycles + tRCD + CL + burst.
    EXPECT_EQ(r.done.at(0),
              kHbmPipelineCycles + d.timing.tRCDRD + d.timing.CL + d.timing.burst_cycles);
}

TEST(HbmTiming, PrechargeWaitsTRASAfterActivate) {
    auto d = device();
    d.timing.tRAS = 40, d.timing.tRC = 60;  // well beyond tRCD + tRTP
    const Replay r = replay(d, {{0, 0, 0, 5, 0}, {0, 0, 0, 6, 0}});
    EXPECT_EQ(when(r, HbmCmd::kPre) - when(r, HbmCmd::kAct), 40u);
}

TEST(HbmTiming, ActivateWaitsTRPAfterPrecharge) {
    auto d = device();
    d.timing.tRP = 15, d.timing.tRC = 20;  // tRAS + tRP = 35 > tRC: tRP binds
    const Replay r = replay(d, {{0, 0, 0, 5, 0}, {0, 0, 0, 6, 0}});
    EXPECT_EQ(when(r, HbmCmd::kAct, 0, 1) - when(r, HbmCmd::kPre), 15u);
}

TEST(HbmTiming, ActivatesToOneBankAreTRCApart) {
    auto d = device();
    d.timing.tRC = 70;  // above tRAS + tRP = 28
    const Replay r = replay(d, {{0, 0, 0, 5, 0}, {0, 0, 0, 6, 0}});
    EXPECT_EQ(when(r, HbmCmd::kAct, 0, 1) - when(r, HbmCmd::kAct, 0, 0), 70u);
}

TEST(HbmTiming, ReadToPrechargeWaitsTRTP) {
    auto d = device();
    d.timing.tRAS = 10, d.timing.tRTP = 25, d.timing.tRC = 20;
    const Replay r = replay(d, {{0, 0, 0, 5, 0}, {0, 0, 0, 6, 0}});
    EXPECT_EQ(when(r, HbmCmd::kPre) - when(r, HbmCmd::kRead), 25u);
}

TEST(HbmTiming, WriteRecoveryTWRBeforePrecharge) {
    auto d = device();
    d.timing.tRAS = 10;
    const Replay r = replay(d, {{0, 0, 0, 5, 0, true}, {0, 0, 0, 6, 0, true}});
    const auto& t = d.timing;
    EXPECT_EQ(when(r, HbmCmd::kPre) - when(r, HbmCmd::kWrite), t.CWL + t.burst_cycles + t.tWR);
}

TEST(HbmTiming, ReadsInDifferentBankGroupsAreTCCDSApart) {
    auto d = device();
    d.timing.burst_cycles = 1, d.timing.tCCD_S = 3, d.timing.tCCD_L = 7;
    const Replay r = replay(d, {{0, 0, 0, 5, 0}, {0, 1, 0, 5, 0}});
    EXPECT_EQ(when(r, HbmCmd::kRead, -1, 1) - when(r, HbmCmd::kRead, -1, 0), 3u);
}

TEST(HbmTiming, ReadsInOneBankGroupAreTCCDLApart) {
    auto d = device();
    d.timing.burst_cycles = 1, d.timing.tCCD_S = 3, d.timing.tCCD_L = 7;
    const Replay r = replay(d, {{0, 0, 0, 5, 0}, {0, 0, 0, 5, 1}});
    EXPECT_EQ(when(r, HbmCmd::kRead, -1, 1) - when(r, HbmCmd::kRead, -1, 0), 7u);
}

TEST(HbmTiming, BurstOccupiesTheDataBus) {
    auto d = device();
    d.timing.burst_cycles = 5, d.timing.tCCD_S = 1, d.timing.tCCD_L = 1;
    const Replay r = replay(d, {{0, 0, 0, 5, 0}, {0, 1, 0, 5, 0}});
    EXPECT_EQ(when(r, HbmCmd::kRead, -1, 1) - when(r, HbmCmd::kRead, -1, 0), 5u);
}

TEST(HbmTiming, ActivatesInDifferentBankGroupsAreTRRDSApart) {
    auto d = device();
    d.timing.tRRD_S = 5, d.timing.tRRD_L = 9;
    const Replay r = replay(d, {{0, 0, 0, 5, 0}, {0, 1, 0, 5, 0}});
    EXPECT_EQ(when(r, HbmCmd::kAct, -1, 1) - when(r, HbmCmd::kAct, -1, 0), 5u);
}

TEST(HbmTiming, ActivatesInOneBankGroupAreTRRDLApart) {
    auto d = device();
    d.timing.tRRD_S = 5, d.timing.tRRD_L = 9;
    const Replay r = replay(d, {{0, 0, 0, 5, 0}, {0, 0, 1, 5, 0}});
    EXPECT_EQ(when(r, HbmCmd::kAct, -1, 1) - when(r, HbmCmd::kAct, -1, 0), 9u);
}

TEST(HbmTiming, FifthActivateWaitsTFAW) {
    auto d = device();
    d.timing.tRRD_S = 2, d.timing.tFAW = 25;
    std::vector<Req> reqs;
    for (uint32_t i = 0; i < 5; ++i) reqs.push_back({0, i % 4, i / 4, 5, 0});
    const Replay r = replay(d, reqs);
    EXPECT_EQ(when(r, HbmCmd::kAct, -1, 4) - when(r, HbmCmd::kAct, -1, 0), 25u);
    EXPECT_EQ(when(r, HbmCmd::kAct, -1, 3) - when(r, HbmCmd::kAct, -1, 0), 6u);  // tRRD_S only
}

// A write, then a read of another bank: the read waits CWL + burst + tWTR after the write.
Replay write_then_read(const HbmDeviceParams& d, uint32_t read_bg) {
    return replay(d, {{0, 0, 0, 5, 0, true}, {1, read_bg, 1, 5, 0}});
}

TEST(HbmTiming, ReadAfterWriteInOtherBankGroupWaitsTWTRS) {
    auto d = device();
    d.timing.tWTR_S = 20, d.timing.tWTR_L = 30;
    const Replay r = write_then_read(d, 1);
    const auto& t = d.timing;
    EXPECT_EQ(when(r, HbmCmd::kRead) - when(r, HbmCmd::kWrite), t.CWL + t.burst_cycles + 20);
}

TEST(HbmTiming, ReadAfterWriteInSameBankGroupWaitsTWTRL) {
    auto d = device();
    d.timing.tWTR_S = 20, d.timing.tWTR_L = 30;
    const Replay r = write_then_read(d, 0);
    const auto& t = d.timing;
    EXPECT_EQ(when(r, HbmCmd::kRead) - when(r, HbmCmd::kWrite), t.CWL + t.burst_cycles + 30);
}

TEST(HbmTiming, WriteAfterReadWaitsForTheBusTurnaround) {
    auto d = device();
    d.timing.tRTRS = 6;
    const Replay r = replay(d, {{0, 0, 0, 5, 0}, {1, 1, 0, 5, 0, true}});
    const auto& t = d.timing;
    EXPECT_EQ(when(r, HbmCmd::kWrite) - when(r, HbmCmd::kRead), t.CL + t.burst_cycles + 6 - t.CWL);
}

TEST(HbmRefresh, AllBankRefreshEveryTREFIBlocksForTRFC) {
    auto d = device();
    d.ctrl.refresh = RefreshMode::kAllBank;
    d.timing.tREFI = 200, d.timing.tRFC = 60;
    // A request arriving just after the refresh falls due waits for it.
    const Replay r = replay(d, {{0, 0, 0, 5, 0}, {201, 2, 1, 9, 0}});
    const uint64_t ref = when(r, HbmCmd::kRef);
    EXPECT_GE(ref, 200u);
    EXPECT_LE(ref, 200u + d.timing.tRP + 1);        // the open bank is precharged first
    EXPECT_EQ(when(r, HbmCmd::kAct, 9), ref + 60);  // bank group 2, bank 1
    EXPECT_GT(r.done.at(1), ref + 60);
}

TEST(HbmRefresh, PerBankRefreshBlocksOnlyItsBank) {
    auto d = device();
    d.ctrl.refresh = RefreshMode::kPerBank;
    d.timing.tREFIsb = 100, d.timing.tRFCsb = 80;
    // At cycle 100 bank 0 refreshes until 180; bank 1 is free at 101, bank 0 waits.
    const Replay r = replay(d, {{101, 0, 0, 5, 0}, {101, 0, 1, 5, 0}});
    const uint64_t ref = when(r, HbmCmd::kRef, 0);
    EXPECT_EQ(ref, 100u);
    EXPECT_EQ(when(r, HbmCmd::kAct, 0), ref + 80);
    EXPECT_LT(when(r, HbmCmd::kAct, 1), ref + 10);
}

TEST(HbmRefresh, IdleFirstPerBankRefreshPassesOverABusyBank) {
    auto d = device();
    d.ctrl.refresh = RefreshMode::kPerBank;
    d.timing.tREFIsb = 100, d.timing.tRFCsb = 80;
    // Bank 0 (group 0) is in use when the first refresh falls due at 100: in turn, bank 0 is
    // refreshed and its next read waits 80 cycles; idle first, bank 1 is refreshed instead.
    std::vector<Req> reqs;
    for (uint64_t c = 90; c < 130; c += 4) reqs.push_back({c, 0, 0, 5, 0});
    const Replay in_turn = replay(d, reqs);
    EXPECT_EQ(when(in_turn, HbmCmd::kRef), when(in_turn, HbmCmd::kRef, 0)) << "not bank 0 first";
    d.ctrl.refresh_order = RefreshOrder::kIdleFirst;
    const Replay idle_first = replay(d, reqs);
    for (const auto& x : idle_first.log) {
        if (x.cmd == HbmCmd::kRef) {
            EXPECT_NE(x.bank, 0u) << "the busy bank was refreshed at " << x.cycle;
            EXPECT_EQ(x.cycle, 100u);
            break;
        }
    }
    EXPECT_LT(idle_first.done.rbegin()->second, in_turn.done.rbegin()->second);
}

TEST(HbmRefresh, IdleFirstStillRefreshesEveryBankOncePerRound) {
    auto d = device();
    d.ctrl.refresh = RefreshMode::kPerBank;
    d.ctrl.refresh_order = RefreshOrder::kIdleFirst;
    d.timing.tREFIsb = 100, d.timing.tRFCsb = 40;
    // Bank 0 busy all the time (a read arriving every cycle, more than it serves): it is
    // refreshed last in each round of 16 refreshes, but it is refreshed, once per round like
    // every other bank.
    std::vector<Req> reqs;
    for (uint64_t c = 0; c < 3250; ++c) reqs.push_back({c, 0, 0, 5, 0});
    const Replay r = replay(d, reqs);
    std::map<uint32_t, int> per_bank;
    for (const auto& x : r.log) {
        if (x.cmd == HbmCmd::kRef && x.cycle < 3200 + d.timing.tRFCsb) ++per_bank[x.bank];
    }
    EXPECT_EQ(per_bank.size(), 16u);
    for (const auto& [bank, n] : per_bank) EXPECT_EQ(n, 2) << "bank " << bank;
    EXPECT_GE(when(r, HbmCmd::kRef, 0), 1500u) << "the busy bank went first";
}

TEST(HbmRefresh, IdleRecentRefreshesTheIdleBankAStreamJustLeft) {
    auto d = device();
    d.ctrl.refresh = RefreshMode::kPerBank;
    d.ctrl.refresh_order = RefreshOrder::kIdleFirst;
    d.timing.tREFIsb = 100, d.timing.tRFCsb = 80;
    // Banks 0, 1 and 2 of bank group 0 are read in that order before the first refresh falls
    // due at 100, and all are idle by then: idle first takes bank 0 (first in turn), idle
    // recent bank 2 (its column command was the last). A read at 200 keeps the replay going.
    const std::vector<Req> reqs = {
        {0, 0, 0, 5, 0}, {20, 0, 1, 5, 0}, {40, 0, 2, 5, 0}, {200, 1, 0, 5, 0}};
    auto first_refreshed = [&] {
        const Replay r = replay(d, reqs);
        return r.log
            .at(static_cast<std::size_t>(
                std::find_if(r.log.begin(), r.log.end(),
                             [](const auto& x) { return x.cmd == HbmCmd::kRef; }) -
                r.log.begin()))
            .bank;
    };
    EXPECT_EQ(first_refreshed(), 0u);
    d.ctrl.refresh_order = RefreshOrder::kIdleRecent;
    EXPECT_EQ(first_refreshed(), 2u);
}

TEST(HbmRefresh, IdleChannelCatchesUpRefreshArithmetically) {
    auto d = device();
    d.ctrl.refresh = RefreshMode::kAllBank;
    d.timing.tREFI = 100, d.timing.tRFC = 40;
    HbmController c(d);
    std::vector<HbmCompletion> done;
    // Ticked only at 0 and at 1001: the ten refreshes in between are counted, the last (at 1000)
    // still blocks ACT until 1040.
    c.tick(0, done);
    c.tick(1001, done);
    EXPECT_EQ(c.totals().refreshes, 10u);
    std::vector<HbmCommandRecord> log;
    c.set_command_log(0, &log);
    c.accept(1001, address(d, {0, 0, 0, 5, 0}), false, 0, done);
    for (uint64_t t = 1002; t < 1100; ++t) c.tick(t, done);
    ASSERT_FALSE(log.empty());
    EXPECT_EQ(log.front().cmd, HbmCmd::kAct);
    EXPECT_EQ(log.front().cycle, 1040u);
}

TEST(HbmMapping, RoundTripsForEveryOrder) {
    HbmOrganisation o;
    o.stacks = 2, o.channels_per_stack = 4, o.pseudo_channels = 2,
    o.ranks = 3;  // 3: not a power of two
    o.rows = 24576, o.page_bytes = 1024, o.bus_width_bits = 32, o.burst_length = 8;
    std::mt19937_64 rng(7);
    for (const char* order :
         {"rorabgbachpcco", "copcchbabgraro", "rorabachbgpcco", "chpcrorabgbaco", "rorabacochpcbg",
          "rorabacochpcco3bg", "ro8raco2bachpcbgcoro", "rabacochpcbgro13ro"}) {
        const AddressMapping m(order, o);
        for (int i = 0; i < 20000; ++i) {
            const uint64_t a = rng() % o.capacity_bytes() / o.access_bytes() * o.access_bytes();
            const DecodedAddress d = m.decode(a);
            ASSERT_LT(d.channel, o.channels());
            ASSERT_LT(d.rank, o.ranks);
            ASSERT_LT(d.row, o.rows);
            ASSERT_EQ(m.encode(d), a) << order;
        }
    }
}

TEST(HbmMapping, DramSim3BitLayoutOfRorabgbachco) {
    HbmOrganisation o;  // the HBM2_8Gb_x128 organisation
    const AddressMapping m("rorabgbachco", o);
    // [10:6] column, [13:11] channel, [15:14] bank, [17:16] bank group, [32:18] row.
    const DecodedAddress d =
        m.decode((uint64_t{0x1234} << 18) | (2u << 16) | (3u << 14) | (5u << 11) | (17u << 6));
    EXPECT_EQ(d.row, 0x1234u);
    EXPECT_EQ(d.bank_group, 2u);
    EXPECT_EQ(d.bank, 3u);
    EXPECT_EQ(d.channel, 5u);
    EXPECT_EQ(d.column, 17u);
    EXPECT_EQ(m.channel_interleave_bytes(), 2048u);
}

// A split column: bank group lowest, 3 column bits, the channel, the other 3 column bits.
TEST(HbmMapping, SplitFieldHoldsItsBitsInAddressOrder) {
    HbmOrganisation o;  // 8 channels, 4 x 4 banks, 64 columns of 32 B
    o.burst_length = 2;
    const AddressMapping m("rorabacochco3bg", o);
    EXPECT_EQ(m.channel_interleave_bytes(), 4u * 8 * 32);  // bank groups x low column x access
    // [6:5] bank group, [9:7] low column, [12:10] channel, [15:13] high column.
    const DecodedAddress d = m.decode((5u << 13) | (6u << 10) | (3u << 7) | (2u << 5));
    EXPECT_EQ(d.bank_group, 2u);
    EXPECT_EQ(d.channel, 6u);
    EXPECT_EQ(d.column, 5u * 8 + 3);
    // Consecutive accesses alternate bank groups and stay in one row of one channel for 1 KiB.
    for (uint64_t a = 0; a < 1024; a += 32) {
        const DecodedAddress x = m.decode(a);
        EXPECT_EQ(x.bank_group, a / 32 % 4);
        EXPECT_EQ(x.channel, 0u);
        EXPECT_EQ(x.row, 0u);
    }
    EXPECT_EQ(m.decode(1024).channel, 1u);
    // A block of 2 accesses spans 2 banks, of 4 or more all 4 bank groups'; no more up to 64 KiB
    // (columns, channel, columns), then the 4 banks above multiply it.
    EXPECT_EQ(m.banks_in(32), 1u);
    EXPECT_EQ(m.banks_in(64), 2u);
    EXPECT_EQ(m.banks_in(512), 4u);
    EXPECT_EQ(m.banks_in(64u << 10), 4u);
    EXPECT_EQ(m.banks_in(256u << 10), 16u);
    // Columns lowest: one bank per 2 KiB row, then the bank digits above the channel's.
    HbmOrganisation wide;  // 64 B accesses, 2 KiB rows
    const AddressMapping rows_first("rorabgbachco", wide);
    EXPECT_EQ(rows_first.banks_in(2048), 1u);
    EXPECT_EQ(rows_first.banks_in(2048 * 8), 1u);      // 8 channels
    EXPECT_EQ(rows_first.banks_in(2048 * 8 * 2), 2u);  // then 2 of the 4 banks
    EXPECT_EQ(rows_first.banks_in(2048 * 8 * 16), 16u);
}

TEST(HbmMapping, BadStringsAreRejected) {
    const HbmOrganisation o;
    EXPECT_THROW(AddressMapping("rorabgbachc", o), std::invalid_argument);   // odd length
    EXPECT_THROW(AddressMapping("rorabgbachxx", o), std::invalid_argument);  // unknown field
    EXPECT_THROW(AddressMapping("robgbachcoro", o),
                 std::invalid_argument);  // repeated without widths
    EXPECT_THROW(AddressMapping("rorabgbaco", o), std::invalid_argument);     // channel missing
    EXPECT_THROW(AddressMapping("rorabgbachco0", o), std::invalid_argument);  // zero width
    EXPECT_THROW(AddressMapping("rorabgbachco3co4", o),
                 std::invalid_argument);  // 7 bits > 32 columns
    EXPECT_THROW(AddressMapping("rorabgbachco2co2", o),
                 std::invalid_argument);                                      // 4 bits < 32 columns
    EXPECT_THROW(AddressMapping("rora3bgbachco", o), std::invalid_argument);  // 1 rank has no bits
    EXPECT_NO_THROW(AddressMapping("rorabgbachco2co3", o));
}

TEST(HbmScheduler, FrFcfsServesRowHitsFirstButBoundsTheWait) {
    auto d = device();
    d.ctrl.scheduler_params.set("row_hit_cap", int64_t{4});
    d.ctrl.command_queue_depth = 16;
    // Row 5 opens; then a conflict (row 6) arrives before a stream of hits to row 5.
    std::vector<Req> reqs = {{0, 0, 0, 5, 0}, {1, 0, 0, 6, 0}};
    for (uint32_t c = 1; c < 12; ++c) reqs.push_back({1, 0, 0, 5, c});
    const Replay r = replay(d, reqs);
    // Hits overtake the older conflict ...
    EXPECT_LT(r.done.at(2), r.done.at(1));
    // ... but only row_hit_cap of them in total before it may precharge.
    uint32_t reads_before_pre = 0;
    const uint64_t pre = when(r, HbmCmd::kPre);
    for (const auto& x : r.log) reads_before_pre += x.cmd == HbmCmd::kRead && x.cycle < pre;
    EXPECT_EQ(reads_before_pre, 4u);
    auto fcfs = d;
    fcfs.ctrl.scheduler = "fcfs";
    const Replay f = replay(fcfs, reqs);
    EXPECT_LT(f.done.at(1), f.done.at(2));  // strict age order per bank
}

// Between banks, frfcfs serves the ready hits round-robin from the bank served last;
// frfcfs_oldest the oldest request's first. Every bank's row is open; then one hit per bank
// arrives per cycle in a scrambled bank order, faster than the bus takes them (a burst is 2
// cycles): oldest first serves them in arrival order, round-robin in bank order.
TEST(HbmScheduler, OldestFirstServesReadyHitsInArrivalOrderAcrossBanks) {
    const std::vector<uint32_t> order = {9, 2, 14, 7, 0, 11, 4, 13, 6, 1, 15, 8, 3, 10, 5, 12};
    std::vector<Req> reqs;
    for (uint32_t b = 0; b < 16; ++b) reqs.push_back({0, b / 4, b % 4, 5, 0});
    for (uint32_t i = 0; i < order.size(); ++i)
        reqs.push_back({500 + i, order[i] / 4, order[i] % 4, 5, 1});
    auto served = [&](const std::string& scheduler) {
        auto d = device();
        d.ctrl.scheduler = scheduler;
        const Replay r = replay(d, reqs);
        std::vector<uint32_t> banks;
        for (const auto& x : r.log)
            if (x.cmd == HbmCmd::kRead && x.cycle >= 500) banks.push_back(x.bank);
        return banks;
    };
    EXPECT_EQ(served("frfcfs_oldest"), order);
    const std::vector<uint32_t> round_robin = served("frfcfs");
    ASSERT_EQ(round_robin.size(), order.size());
    EXPECT_NE(round_robin, order);
}

TEST(HbmController, ClosedPagePrechargesAfterEachAccess) {
    auto d = device();
    d.ctrl.page_policy = "closed";
    const Replay r = replay(d, {{0, 0, 0, 5, 0}, {0, 0, 0, 5, 1}});
    uint32_t acts = 0, pres = 0;
    for (const auto& x : r.log) acts += x.cmd == HbmCmd::kAct, pres += x.cmd == HbmCmd::kPre;
    EXPECT_EQ(acts, 2u);
    EXPECT_EQ(pres, 2u);
}

TEST(HbmController, ReadsHitTheWriteBufferAndWritesArePosted) {
    auto d = device();
    d.ctrl.write_drain_idle = 8;  // keep the write buffered
    const Replay r = replay(d, {{0, 0, 0, 5, 3, true}, {2, 0, 0, 5, 3}});
    EXPECT_EQ(r.done.at(0), 1u);  // posted
    EXPECT_EQ(r.done.at(1), 3u);  // served from the write buffer
}

TEST(HbmController, EveryAcceptedRequestCompletesExactlyOnce) {
    auto d = device();
    d.ctrl.refresh = RefreshMode::kAllBank;
    d.ctrl.read_queue_depth = 8;
    d.ctrl.write_buffer_depth = 8;
    d.ctrl.write_drain_high = 6;
    d.ctrl.write_drain_low = 2;
    std::mt19937_64 rng(3);
    std::vector<Req> reqs;
    uint64_t cycle = 0;
    for (int i = 0; i < 20000; ++i) {
        cycle += rng() % 3;
        reqs.push_back({cycle, static_cast<uint32_t>(rng() % 4), static_cast<uint32_t>(rng() % 4),
                        static_cast<uint32_t>(rng() % 8), static_cast<uint32_t>(rng() % 32),
                        rng() % 3 == 0});
    }
    for (const char* sched : {"frfcfs", "fcfs"}) {
        d.ctrl.scheduler = sched;
        const Replay r = replay(d, reqs, 10'000'000);
        EXPECT_EQ(r.done.size(), reqs.size()) << sched;
        EXPECT_EQ(r.duplicates, 0u) << sched;
    }
}

TEST(HbmDevice, ImpossibleTimingIsReported) {
    auto d = device();
    d.timing.tRAS = 5;  // < tRCD
    d.timing.tCK_ps = 0;
    const auto problems = d.validate();
    auto has = [&](const std::string& key) {
        for (const auto& p : problems) {
            if (p.first == key) return true;
        }
        return false;
    };
    EXPECT_TRUE(has("timing.tRAS"));
    EXPECT_TRUE(has("timing.tCK"));
    EXPECT_FALSE(has("timing.tRC"));
    EXPECT_TRUE(device().validate().empty());
}

// JEDEC relations between timing values, each alone: the key named is the one broken.
TEST(HbmDevice, TimingThatBreaksAJedecRelationNamesTheKey) {
    auto only = [](const std::function<void(HbmDeviceParams&)>& change) {
        HbmDeviceParams d = device();
        change(d);
        std::vector<std::string> keys;
        for (const auto& p : d.validate()) keys.push_back(p.first);
        return keys;
    };
    using V = std::vector<std::string>;
    // tRC = tRAS + tRP: 20 + 8 = 28 is allowed, 27 is not.
    EXPECT_EQ(only([](HbmDeviceParams& d) { d.timing.tRC = 28; }), V{});
    EXPECT_EQ(only([](HbmDeviceParams& d) { d.timing.tRC = 27; }), V{"timing.tRC"});
    EXPECT_EQ(only([](HbmDeviceParams& d) { d.timing.tRAS = 8; }), V{"timing.tRAS"});  // < tRCDRD 9
    EXPECT_EQ(only([](HbmDeviceParams& d) { d.timing.tCCD_L = 0; }), V{"timing.tCCD_L"});
    EXPECT_EQ(only([](HbmDeviceParams& d) { d.timing.tRRD_L = 1; }),
              V{"timing.tRRD_L"});  // < tRRD_S 2
    EXPECT_EQ(only([](HbmDeviceParams& d) { d.timing.tWTR_L = 3; }),
              V{"timing.tWTR_L"});                                                     // < tWTR_S 4
    EXPECT_EQ(only([](HbmDeviceParams& d) { d.timing.tFAW = 1; }), V{"timing.tFAW"});  // < tRRD_S 2
    // BL4 cannot take 3 clocks at a whole number of beats per clock.
    EXPECT_EQ(only([](HbmDeviceParams& d) { d.timing.burst_cycles = 3; }),
              V{"timing.burst_cycles"});
    EXPECT_EQ(only([](HbmDeviceParams& d) {
                  d.ctrl.refresh = RefreshMode::kAllBank;
                  d.timing.tREFI = d.timing.tRFC;
              }),
              V{"timing.tREFI"});
}

// The bus turnaround the flat model charges per drained batch of writes is the controller's:
// on saturating mixed traffic, the shortest idle gaps of the data bus where it turns from read
// data to write data and back add up to HbmDeviceParams::write_turnaround_cycles(), with one
// rank (the read waits tWTR_S, then CL) and with two (a read of the other rank goes at once).
TEST(HbmDevice, FlatWriteTurnaroundIsTheControllersShortestBusGap) {
    for (const uint32_t ranks : {1u, 2u}) {
        auto d = device();
        d.org.ranks = ranks;
        d.ctrl.mapping = "rorabgbaco";
        d.ctrl.write_drain_high = 8;
        d.ctrl.write_drain_low = 0;
        HbmController c(d);
        std::vector<HbmCommandRecord> log;
        c.set_command_log(0, &log);
        const AddressMapping map(d.ctrl.mapping, d.org);
        std::vector<std::pair<uint64_t, bool>> reqs;  // every third a write, all to open rows
        for (uint32_t i = 0; i < 600; ++i) {
            DecodedAddress a;
            a.rank = i % ranks;
            a.bank_group = (i / ranks) % 4;
            a.column = (i / (4 * ranks)) % 64;
            reqs.emplace_back(map.encode(a), i % 3 == 2);
        }
        std::vector<HbmCompletion> done;
        std::size_t next = 0;
        for (uint64_t now = 0; now < 100000 && (next < reqs.size() || !c.idle()); ++now) {
            c.tick(now, done);
            while (next < reqs.size() && c.can_accept(reqs[next].first, reqs[next].second)) {
                c.accept(now, reqs[next].first, reqs[next].second, next, done);
                ++next;
            }
            done.clear();
        }
        ASSERT_EQ(next, reqs.size());
        const auto& t = d.timing;
        struct Beat {
            uint64_t start, end;
            bool write;
        };
        std::vector<Beat> bus;
        for (const auto& r : log) {
            if (r.cmd != HbmCmd::kRead && r.cmd != HbmCmd::kWrite) continue;
            const bool w = r.cmd == HbmCmd::kWrite;
            const uint64_t start = r.cycle + (w ? t.CWL : t.CL);
            bus.push_back({start, start + t.burst_cycles, w});
        }
        std::sort(bus.begin(), bus.end(),
                  [](const Beat& a, const Beat& b) { return a.start < b.start; });
        uint64_t to_write = kHbmNever, to_read = kHbmNever;
        for (std::size_t i = 1; i < bus.size(); ++i) {
            if (bus[i].write == bus[i - 1].write) continue;
            ASSERT_GE(bus[i].start, bus[i - 1].end);
            uint64_t& gap = bus[i].write ? to_write : to_read;
            gap = std::min(gap, bus[i].start - bus[i - 1].end);
        }
        ASSERT_NE(to_write, kHbmNever);
        ASSERT_NE(to_read, kHbmNever);
        EXPECT_EQ(to_write, t.tRTRS) << ranks << " rank(s)";
        EXPECT_EQ(to_write + to_read, d.write_turnaround_cycles()) << ranks << " rank(s)";
    }
    auto d = device();  // the values: tRTRS 1 + tWTR_S 4 + CL 7; with two ranks 1 + (1 + 7 - 5)
    EXPECT_EQ(d.write_turnaround_cycles(), 12u);
    d.org.ranks = 2;
    EXPECT_EQ(d.write_turnaround_cycles(), 4u);
}

TEST(HbmDevice, FlatModelDerivesFromTheDescription) {
    HbmParams p;  // defaults: the HBM2 x128 device's organisation and timing
    p.device.org = HbmOrganisation{};
    EXPECT_DOUBLE_EQ(p.bandwidth_bytes_per_s(), 256e9);  // 8 x 64 B / 2 ns
    EXPECT_EQ(p.unloaded_latency_ps(), 46'000);  // 2 + tRP + tRCD + CL + burst cycles of 1 ns
    // The flat model streams at the pin peak less the refresh duty (all-bank: tRFC 260 of tREFI
    // 3900), with occupancy in ps so no rounding to tCK takes more.
    const HbmFlatParams f = p.flat_params();
    EXPECT_DOUBLE_EQ(f.bandwidth_bytes_per_s, 256e9 * (1.0 - 260.0 / 3900.0));
    EXPECT_EQ(f.clock_hz, 1'000'000'000'000u);
    EXPECT_EQ(f.channels(), 8u);
    // A read meeting a refresh waits half of it on average: all-bank, with probability the duty,
    // whatever its size (one entry per power of two up to the 2 KiB interleave).
    ASSERT_EQ(f.refresh_wait_ps.size(), 12u);
    for (const int64_t w : f.refresh_wait_ps) EXPECT_EQ(w, 8667);  // 260/3900 x 260 ns / 2
    p.device.ctrl.refresh = RefreshMode::kPerBank;  // tRFCsb 160 of tREFIsb 244 x 16 banks
    EXPECT_DOUBLE_EQ(p.flat_params().bandwidth_bytes_per_s, 256e9 * (1.0 - 160.0 / (244.0 * 16)));
    // Per-bank: a piece within one bank (columns lowest) meets its bank's refresh only.
    EXPECT_EQ(p.flat_params().refresh_wait_ps.back(), 3279);  // 160/3904 x 160 ns / 2
    p.device.ctrl.mapping = "rorabachcobg";  // bank group lowest: 256 B span four banks
    const double duty = 160.0 / (244.0 * 16);
    EXPECT_EQ(p.flat_params().refresh_wait_ps[8],
              static_cast<int64_t>((1 - std::pow(1 - duty, 4)) * 80'000 + 0.5));
    p.device.ctrl.mapping = "rorabgbachco";
    p.device.ctrl.refresh = RefreshMode::kNone;
    EXPECT_DOUBLE_EQ(p.flat_params().bandwidth_bytes_per_s, 256e9);
    // Writes drain in batches of write_drain_high - write_drain_low accesses (32 x 64 B), each
    // batch turning the bus around once; a read that arrived within the time the channel moves a
    // full read queue and write buffer (64 x 64 B at 32 GB/s = 128 ns) still waits at its end.
    EXPECT_EQ(f.write_batch_bytes, 32u * 64u);
    EXPECT_EQ(f.write_turnaround_ps, int64_t{p.device.write_turnaround_cycles()} * 1000);
    EXPECT_NEAR(static_cast<double>(p.flat_params().turnaround_window_ps), 128'000.0, 1.0);
}

// HbmParams' defaults are the declared ones (hbm_config.cpp): code that builds the device without
// YAML (tests, benches) gets what a platform that leaves the keys out gets. The keys without a
// default (the organisation, most timings, the mapping and the queue depths) are given the
// struct's own values; every field read from a key with a default is compared. The scheduler's
// own keys are the exception by design: the struct leaves them empty and the registry fills in
// their declared defaults when it builds the scheduler (Registry::make).
TEST(HbmParams, StructDefaultsAreTheDeclaredDefaults) {
    const HbmParams d;
    const Config c = Config::from_string(R"(organisation:
  stacks: 1
  channels_per_stack: 8
  pseudo_channels: 1
  ranks: 1
  bank_groups: 4
  banks_per_group: 4
  rows: 32768
  page: 2KiB
  bus_width_bits: 128
  burst_length: 4
timing: {tCK: 1ns, burst_cycles: 2, CL: 14, CWL: 4, tRCDRD: 14, tRCDWR: 14, tRP: 14, tRAS: 34,
         tRC: 48, tCCD_S: 1, tCCD_L: 2, tRRD_S: 4, tRRD_L: 6, tFAW: 30, tWR: 16, tWTR_S: 6,
         tWTR_L: 8, tRTP: 5, tRFC: 260, tREFI: 3900}
controller: {mapping: rorabgbachco, command_queue_depth: 8, read_queue_depth: 32,
             write_buffer_depth: 32}
)",
                                         "t.yaml");
    const HbmParams p = parse_hbm_params(c.root());
    EXPECT_EQ(p.fidelity, d.fidelity);
    EXPECT_EQ(p.network_latency_ps, d.network_latency_ps);
    const HbmTiming &t = p.device.timing, &dt = d.device.timing;
    EXPECT_EQ(t.tRTRS, dt.tRTRS);
    EXPECT_EQ(t.tRFCsb, dt.tRFCsb);
    EXPECT_EQ(t.tREFIsb, dt.tREFIsb);
    const HbmControllerParams &ct = p.device.ctrl, &dc = d.device.ctrl;
    EXPECT_EQ(ct.scheduler, dc.scheduler);
    EXPECT_EQ(ct.page_policy, dc.page_policy);
    EXPECT_EQ(ct.transaction_bytes, dc.transaction_bytes);
    EXPECT_EQ(ct.queue_structure, dc.queue_structure);
    EXPECT_EQ(ct.demand_entries, dc.demand_entries);
    ASSERT_EQ(ct.write_buffer_depth, dc.write_buffer_depth);
    EXPECT_EQ(ct.write_drain_high, dc.write_drain_high);  // declared: the write buffer's depth
    EXPECT_EQ(ct.write_drain_low, dc.write_drain_low);
    EXPECT_EQ(ct.write_drain_idle, dc.write_drain_idle);
    EXPECT_EQ(ct.dual_issue, dc.dual_issue);
    EXPECT_EQ(ct.refresh, dc.refresh);
    EXPECT_EQ(ct.refresh_order, dc.refresh_order);
}

}  // namespace
}  // namespace asim

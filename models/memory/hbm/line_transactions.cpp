#include "models/memory/hbm/line_transactions.h"

#include <algorithm>
#include <optional>
#include <stdexcept>

#include "models/memory/hbm/address_mapping.h"

namespace asim {

namespace {

uint32_t ceil_div(uint64_t a, uint64_t b) { return static_cast<uint32_t>((a + b - 1) / b); }

// Where the bursts of the block at `base` go, against the shape: every burst in one channel,
// rank, bank and row; burst i in bank group (i mod groups) at column c0 + i / groups, c0 a
// multiple of the columns per bank. "" when they do.
std::string check_block(const AddressMapping& map, uint64_t base, uint64_t access, uint32_t bursts,
                        uint32_t groups) {
    const DecodedAddress first = map.decode(base);
    const uint32_t columns = bursts / groups;
    if (first.bank_group != 0 || first.column % columns != 0)
        return "a block does not start at bank group 0 and a multiple of its columns";
    for (uint32_t i = 1; i < bursts; ++i) {
        const DecodedAddress d = map.decode(base + i * access);
        if (d.channel != first.channel || d.rank != first.rank || d.bank != first.bank ||
            d.row != first.row)
            return "a block's bursts leave one channel, rank, bank and row";
        if (d.bank_group != i % groups || d.column != first.column + i / groups)
            return "a block's bursts do not take the bank groups in turn at consecutive columns";
    }
    return "";
}

}  // namespace

std::string line_transaction_problem(const HbmDeviceParams& p) {
    const uint64_t access = p.org.access_bytes();
    const uint64_t block = p.ctrl.transaction_bytes;
    if (block == 0 || block == access) return "";
    if (access == 0 || block % access != 0 || ((block / access) & (block / access - 1)) != 0)
        return "must be 0B (one access) or a power-of-two multiple of the access (" +
               std::to_string(access) + " B)";
    const uint64_t bursts = block / access;
    const uint32_t groups = p.org.bank_groups;
    if (bursts % groups != 0 || bursts / groups > p.org.columns())
        return "a block of " + std::to_string(block) + " B must be whole columns of every bank " +
               "group (" + std::to_string(groups) + " x " + std::to_string(access) +
               " B) within one row";
    std::optional<AddressMapping> map;
    try {
        map.emplace(p.ctrl.mapping, p.org);
    } catch (const std::invalid_argument&) {
        return "";  // controller.mapping reports it
    }
    const uint64_t capacity = p.org.capacity_bytes();
    for (const uint64_t base :
         {uint64_t{0}, block, capacity / 2 / block * block, capacity / block * block - block}) {
        const std::string why =
            check_block(*map, base, access, static_cast<uint32_t>(bursts), groups);
        if (!why.empty())
            return why + " under mapping " + p.ctrl.mapping +
                   " (line transactions need the bank group in the lowest bits, then columns)";
    }
    return "";
}

HbmLineShape line_shape(const HbmDeviceParams& p) {
    const auto& t = p.timing;
    HbmLineShape s;
    s.bank_groups = p.org.bank_groups;
    s.columns =
        static_cast<uint32_t>(p.ctrl.transaction_bytes / p.org.access_bytes()) / s.bank_groups;
    // Bursts to other bank groups go tCCD_S apart (no closer than a burst); the bursts one
    // bank group gets, every bank_groups-th, must also be tCCD_L apart.
    s.pitch = std::max({t.burst_cycles, t.tCCD_S, ceil_div(t.tCCD_L, s.bank_groups)});
    return s;
}

HbmDeviceParams line_transaction_device(const HbmDeviceParams& p) {
    const HbmLineShape shape = line_shape(p);
    const uint32_t s = shape.bank_groups, k = shape.columns, n = shape.bursts();
    const uint32_t pitch = shape.pitch;
    const HbmTiming& t = p.timing;
    HbmDeviceParams v = p;

    // A bank set is one bank of a single bank group: its row is the groups' rows side by side,
    // its access the block.
    v.org.bank_groups = 1;
    v.org.page_bytes = p.org.page_bytes * s;
    v.org.burst_length = p.org.burst_length * n;

    // The block's bursts at now + i x pitch, i = 0 .. n-1, burst i to bank group i mod s; its
    // ACTs at a + j x tRRD_S to bank group j; its PREs on consecutive cycles.
    HbmTiming& w = v.timing;
    const uint32_t last = (n - 1) * pitch;  // the last burst, after the first
    const uint32_t rrd = t.tRRD_S;
    w.burst_cycles = last + t.burst_cycles;  // the bus from the first burst to the last data
    // The next block (any bank set: all are in the one group) after the last burst on the bus,
    // and its first burst tCCD_L after this block's last to bank group 0.
    w.tCCD_S = last + std::max(t.burst_cycles, t.tCCD_S);
    w.tCCD_L = std::max(w.tCCD_S, (n - s) * pitch + t.tCCD_L);
    // Burst j (bank group j) waits tRCD after ACT j: the stream starts when the latest allows.
    const uint32_t act_lag = (s - 1) * (rrd > pitch ? rrd - pitch : 0);
    w.tRCDRD = t.tRCDRD + act_lag;
    w.tRCDWR = t.tRCDWR + act_lag;
    // The last PRE (one cycle apart) tRAS after the last ACT (tRRD_S apart).
    w.tRAS = t.tRAS + (s - 1) * (rrd - 1);
    w.tRC = std::max(t.tRC, w.tRAS + t.tRP);
    w.tRTP = last + t.tRTP;  // from the last read burst
    // The next set's ACTs: its ACT j after this set's ACT j (tRRD_L) and after its last (tRRD_S);
    // four ACTs per tFAW: with four or more bank groups a set is a window by itself.
    w.tRRD_S = std::max(s * rrd, t.tRRD_L);
    if (s >= 4) w.tRRD_S = std::max(w.tRRD_S, ceil_div(uint64_t{s} * t.tFAW, 4));
    w.tRRD_L = w.tRRD_S;
    w.tFAW = s * t.tFAW;
    // A read after a write: to bank group j after that group's last write (tWTR_L), and after the
    // block's last write to another group (tWTR_S); the write data end is the last burst's.
    const int64_t wtr_same = int64_t{t.tWTR_L} - int64_t{s - 1} * pitch;
    w.tWTR_S = static_cast<uint32_t>(std::max<int64_t>(t.tWTR_S, wtr_same));
    w.tWTR_L = w.tWTR_S;
    // Per-bank refresh: the set's banks together (their REFpb tRRD_S apart, an estimate: no
    // per-bank refresh spacing is modelled), each set once per s x tREFIsb so that every bank
    // is refreshed as often as before.
    w.tRFCsb = t.tRFCsb + (s - 1) * rrd;
    w.tREFIsb = t.tREFIsb * s;

    // Queues hold as many bytes as before: a block is n accesses, a bank set s banks' queues.
    auto& c = v.ctrl;
    const auto& pc = p.ctrl;
    c.command_queue_depth = c.queue_structure == QueueStructure::kPerBank
                                ? ceil_div(pc.command_queue_depth, k)
                                : ceil_div(pc.command_queue_depth, n);
    c.read_queue_depth = ceil_div(pc.read_queue_depth, n);
    c.write_buffer_depth = ceil_div(pc.write_buffer_depth, n);
    c.demand_entries = std::min(ceil_div(pc.demand_entries, n),
                                std::min(c.read_queue_depth, c.write_buffer_depth) - 1);
    c.write_drain_high = std::clamp(ceil_div(pc.write_drain_high, n), 1u, c.write_buffer_depth);
    c.write_drain_low = std::min(pc.write_drain_low / n, c.write_drain_high - 1);
    c.write_drain_idle = pc.write_drain_idle / n;
    // The row-hit cap counts column commands per bank: k of them per block.
    if (c.scheduler_params.has("row_hit_cap")) {
        const auto cap = static_cast<uint64_t>(c.scheduler_params.integer("row_hit_cap"));
        c.scheduler_params.set("row_hit_cap", static_cast<int64_t>(ceil_div(cap, k)));
    }
    return v;
}

HbmChannelStats burst_equivalent(const HbmChannelStats& lines, const HbmLineShape& shape,
                                 RefreshMode refresh) {
    const uint64_t n = shape.bursts(), s = shape.bank_groups;
    HbmChannelStats b;
    b.activates = lines.activates * s;
    b.precharges = lines.precharges * s;
    b.refreshes = refresh == RefreshMode::kPerBank ? lines.refreshes * s : lines.refreshes;
    b.reads = lines.reads * n;
    b.writes = lines.writes * n;
    // A block after its set's ACT: the first burst to each bank misses, the rest hit.
    b.read_row_hits = lines.read_row_hits * n + (lines.reads - lines.read_row_hits) * (n - s);
    b.write_row_hits = lines.write_row_hits * n + (lines.writes - lines.write_row_hits) * (n - s);
    b.write_buffer_read_hits = lines.write_buffer_read_hits * n;
    return b;
}

}  // namespace asim

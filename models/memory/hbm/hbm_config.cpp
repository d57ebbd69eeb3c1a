#include "models/common/config.h"
#include "models/common/params.h"
#include "models/memory/hbm/hbm_device.h"
#include "models/memory/hbm/hbm_policies.h"

namespace asim {

namespace {

// The choices' names, written once (declaration and reading).
const ChoiceNames<HbmFidelity> kFidelities{{"flat", HbmFidelity::kFlat},
                                           {"jedec", HbmFidelity::kJedec}};
const ChoiceNames<QueueStructure> kQueueStructures{{"per_bank", QueueStructure::kPerBank},
                                                   {"shared", QueueStructure::kShared}};
const ChoiceNames<RefreshMode> kRefreshModes{{"all_bank", RefreshMode::kAllBank},
                                             {"per_bank", RefreshMode::kPerBank},
                                             {"none", RefreshMode::kNone}};
const ChoiceNames<RefreshOrder> kRefreshOrders{{"round_robin", RefreshOrder::kRoundRobin},
                                               {"idle_first", RefreshOrder::kIdleFirst},
                                               {"idle_recent", RefreshOrder::kIdleRecent}};

const ParamTable kHbm(
    {"die.hbm"}, "HBM",
    {Param::choice("fidelity", kFidelities,
                   "flat: bandwidth servers derived from this description; jedec: the "
                   "JEDEC-timed controller")
         .dflt("flat"),
     Param::time("network_latency",
                 "on-die path from the L2 to the controller and PHY, "
                 "outside the DRAM timing")
         .dflt("0ns")});

// Counts of the organisation: name, maximum, description.
Param count(const char* key, double max, const char* description) {
    return Param::integer(key, "", description).range(1, max);
}

const ParamTable kOrganisation({"die.hbm.organisation"}, "HBM organisation",
                               {count("stacks", 64, "HBM stacks"),
                                count("channels_per_stack", 256, "channels per stack"),
                                count("pseudo_channels", 8, "pseudo-channels per channel"),
                                count("ranks", 255, "ranks (stack IDs) per pseudo-channel"),
                                count("bank_groups", 255, "bank groups per rank"),
                                count("banks_per_group", 256, "banks per bank group"),
                                count("rows", 1 << 24, "rows per bank"),
                                Param::size("page", "row (page) size per pseudo-channel"),
                                count("bus_width_bits", 1024, "data pins per pseudo-channel"),
                                count("burst_length", 64, "beats per access")});

Param cycles(const char* key, const char* description) {
    return Param::integer(key, "tCK", description).range(0, 1e7);
}

const ParamTable kTiming(
    {"die.hbm.timing"}, "HBM timing (cycles of tCK)",
    {Param::time("tCK", "clock period"),
     cycles("burst_cycles", "data-bus cycles per burst"),
     cycles("CL", "read latency: RD to first data"),
     cycles("CWL", "write latency: WR to first data"),
     cycles("tRCDRD", "ACT to RD"),
     cycles("tRCDWR", "ACT to WR"),
     cycles("tRP", "PRE to ACT"),
     cycles("tRAS", "ACT to PRE"),
     cycles("tRC", "ACT to ACT of one bank"),
     cycles("tCCD_S", "column to column, other bank group"),
     cycles("tCCD_L", "column to column, same bank group"),
     cycles("tRRD_S", "ACT to ACT, other bank group"),
     cycles("tRRD_L", "ACT to ACT, same bank group"),
     cycles("tFAW", "window of four ACTs"),
     cycles("tWR", "write recovery: end of write data to PRE"),
     cycles("tWTR_S", "write to read, other bank group"),
     cycles("tWTR_L", "write to read, same bank group"),
     cycles("tRTP", "RD to PRE"),
     Param::integer("tRTRS", "tCK", "rank-to-rank and read-to-write bus turnaround")
         .dflt("1")
         .range(0, 1e4),
     cycles("tRFC", "all-bank refresh cycle time"),
     cycles("tREFI", "all-bank refresh interval"),
     cycles("tRFCsb", "per-bank refresh cycle time").dflt("160"),
     cycles("tREFIsb", "per-bank refresh interval (one bank each)").dflt("244")});

const ParamTable kController(
    {"die.hbm.controller"}, "HBM controller",
    {Param::string("mapping",
                   "address mapping, MSB to LSB: fields ro ra bg ba ch pc co, each with an "
                   "optional bit count (rorabgbachco)"),
     Param::implementation("scheduler", hbm_scheduler_registry(), "command scheduler")
         .dflt("frfcfs"),
     Param::implementation("page_policy", hbm_page_policy_registry(), "row buffer policy")
         .dflt("open"),
     Param::size("transaction",
                 "bytes one transaction covers: 0B, one access (each burst scheduled on its own); "
                 "a block over every bank group at the same columns (512B, an L2 line under "
                 "rorabacochpcco3bg), one decision for its ACTs and one for its bursts "
                 "(models/memory/hbm/README.md, line transactions)")
         .dflt("0B")
         .zero_allowed(),
     Param::choice("queue_structure", kQueueStructures,
                   "a command queue per bank, or one per channel")
         .dflt("per_bank"),
     Param::integer("command_queue_depth", "entries",
                    "command queue depth, per bank or per channel")
         .range(1, 4096),
     Param::integer("read_queue_depth", "entries", "read transaction queue per channel")
         .range(1, 4096),
     Param::integer("write_buffer_depth", "entries", "posted writes per channel").range(1, 4096),
     Param::integer("demand_entries", "entries",
                    "of the read queue and of the write buffer, kept for demand accesses (H-JSD "
                    "prefetches and staging copies use the rest, and enter after waiting demand)")
         .dflt("0")
         .range(0, 4095),
     Param::integer("write_drain_high", "entries", "start draining writes at this occupancy")
         .dflt_from("write_buffer_depth")
         .range(0, 4096),
     Param::integer("write_drain_low", "entries", "stop draining at this occupancy")
         .dflt("0")
         .range(0, 4096),
     Param::integer("write_drain_idle", "entries",
                    "also drain above this occupancy when no command is queued")
         .dflt("0")
         .range(0, 4096),
     Param::boolean("dual_issue", "one row and one column command per cycle (HBM's separate buses)")
         .dflt("true"),
     Param::choice("refresh", kRefreshModes, "refresh mode").dflt("all_bank"),
     Param::choice("refresh_order", kRefreshOrders,
                   "per-bank refresh: the banks in turn; idle_first, first a bank with nothing "
                   "queued that still owes a refresh in this round (every bank once per tREFIsb x "
                   "banks); idle_recent, of those the one that served a column command last")
         .dflt("round_robin")});

}  // namespace

HbmParams parse_hbm_params(const ConfigNode& node) {
    HbmParams p;
    p.fidelity = kHbm.choice(node, "fidelity", kFidelities);
    p.network_latency_ps = kHbm.time_ps(node, "network_latency");

    const ConfigNode o = node.child("organisation");
    auto& org = p.device.org;
    auto count_of = [&](const char* key) {
        return static_cast<uint32_t>(kOrganisation.integer(o, key));
    };
    org.stacks = count_of("stacks");
    org.channels_per_stack = count_of("channels_per_stack");
    org.pseudo_channels = count_of("pseudo_channels");
    org.ranks = count_of("ranks");
    org.bank_groups = count_of("bank_groups");
    org.banks_per_group = count_of("banks_per_group");
    org.rows = count_of("rows");
    org.page_bytes = kOrganisation.size(o, "page");
    org.bus_width_bits = count_of("bus_width_bits");
    org.burst_length = count_of("burst_length");

    const ConfigNode t = node.child("timing");
    auto& tm = p.device.timing;
    auto cycles_of = [&](const char* key) {
        return static_cast<uint32_t>(kTiming.integer(t, key));
    };
    tm.tCK_ps = kTiming.time_ps(t, "tCK");
    tm.burst_cycles = cycles_of("burst_cycles");
    tm.CL = cycles_of("CL");
    tm.CWL = cycles_of("CWL");
    tm.tRCDRD = cycles_of("tRCDRD");
    tm.tRCDWR = cycles_of("tRCDWR");
    tm.tRP = cycles_of("tRP");
    tm.tRAS = cycles_of("tRAS");
    tm.tRC = cycles_of("tRC");
    tm.tCCD_S = cycles_of("tCCD_S");
    tm.tCCD_L = cycles_of("tCCD_L");
    tm.tRRD_S = cycles_of("tRRD_S");
    tm.tRRD_L = cycles_of("tRRD_L");
    tm.tFAW = cycles_of("tFAW");
    tm.tWR = cycles_of("tWR");
    tm.tWTR_S = cycles_of("tWTR_S");
    tm.tWTR_L = cycles_of("tWTR_L");
    tm.tRTP = cycles_of("tRTP");
    tm.tRTRS = cycles_of("tRTRS");
    tm.tRFC = cycles_of("tRFC");
    tm.tREFI = cycles_of("tREFI");
    tm.tRFCsb = cycles_of("tRFCsb");
    tm.tREFIsb = cycles_of("tREFIsb");

    const ConfigNode c = node.child("controller");
    auto& ct = p.device.ctrl;
    auto entries_of = [&](const char* key) {
        return static_cast<uint32_t>(kController.integer(c, key));
    };
    ct.mapping = kController.string(c, "mapping");
    ct.scheduler = kController.string(c, "scheduler");
    ct.scheduler_params = hbm_scheduler_registry().read_params(c, ct.scheduler);
    ct.page_policy = kController.string(c, "page_policy");
    ct.transaction_bytes = kController.size(c, "transaction");
    ct.queue_structure = kController.choice(c, "queue_structure", kQueueStructures);
    ct.command_queue_depth = entries_of("command_queue_depth");
    ct.read_queue_depth = entries_of("read_queue_depth");
    ct.write_buffer_depth = entries_of("write_buffer_depth");
    ct.demand_entries = entries_of("demand_entries");
    ct.write_drain_high =
        static_cast<uint32_t>(kController.integer(c, "write_drain_high", ct.write_buffer_depth));
    ct.write_drain_low = entries_of("write_drain_low");
    ct.write_drain_idle = entries_of("write_drain_idle");
    ct.dual_issue = kController.boolean(c, "dual_issue");
    ct.refresh = kController.choice(c, "refresh", kRefreshModes);
    ct.refresh_order = kController.choice(c, "refresh_order", kRefreshOrders);

    // Checks across keys only when every key read well (stand-ins would only add noise).
    if (!node.problems_reported()) {
        for (const auto& [key, message] : p.device.validate()) {
            const auto dot = key.find('.');
            const std::string section = key.substr(0, dot), leaf = key.substr(dot + 1);
            node.child(section).report(leaf, message);
        }
    }
    return p;
}

}  // namespace asim

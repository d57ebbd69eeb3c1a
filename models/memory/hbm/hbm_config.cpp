#include "models/common/config.h"
#include "models/memory/hbm/hbm_device.h"

namespace asim {

namespace {
uint32_t cycles(const ConfigNode& n, const char* key) {
    return static_cast<uint32_t>(n.integer(key, Range{0, 1e7}));
}
uint32_t count(const ConfigNode& n, const char* key, double max) {
    return static_cast<uint32_t>(n.integer(key, Range{1, max}));
}
}  // namespace

HbmParams parse_hbm_params(const ConfigNode& node) {
    HbmParams p;
    p.fidelity = node.choice("fidelity", {"flat", "jedec"}, "flat") == "jedec" ? HbmFidelity::kJedec
                                                                              : HbmFidelity::kFlat;
    p.network_latency_ps = node.time_ps("network_latency", 0);

    const ConfigNode o = node.child("organisation");
    auto& org = p.device.org;
    org.stacks = count(o, "stacks", 64);
    org.channels_per_stack = count(o, "channels_per_stack", 256);
    org.pseudo_channels = count(o, "pseudo_channels", 8);
    org.ranks = count(o, "ranks", 255);
    org.bank_groups = count(o, "bank_groups", 255);
    org.banks_per_group = count(o, "banks_per_group", 256);
    org.rows = count(o, "rows", 1 << 24);
    org.page_bytes = o.size_bytes("page");
    org.bus_width_bits = count(o, "bus_width_bits", 1024);
    org.burst_length = count(o, "burst_length", 64);

    const ConfigNode t = node.child("timing");  // cycles of tCK
    auto& tm = p.device.timing;
    tm.tCK_ps = t.time_ps("tCK");
    tm.burst_cycles = cycles(t, "burst_cycles");
    tm.CL = cycles(t, "CL");
    tm.CWL = cycles(t, "CWL");
    tm.tRCDRD = cycles(t, "tRCDRD");
    tm.tRCDWR = cycles(t, "tRCDWR");
    tm.tRP = cycles(t, "tRP");
    tm.tRAS = cycles(t, "tRAS");
    tm.tRC = cycles(t, "tRC");
    tm.tCCD_S = cycles(t, "tCCD_S");
    tm.tCCD_L = cycles(t, "tCCD_L");
    tm.tRRD_S = cycles(t, "tRRD_S");
    tm.tRRD_L = cycles(t, "tRRD_L");
    tm.tFAW = cycles(t, "tFAW");
    tm.tWR = cycles(t, "tWR");
    tm.tWTR_S = cycles(t, "tWTR_S");
    tm.tWTR_L = cycles(t, "tWTR_L");
    tm.tRTP = cycles(t, "tRTP");
    tm.tRTRS = static_cast<uint32_t>(t.integer("tRTRS", 1, Range{0, 1e4}));
    tm.tRFC = cycles(t, "tRFC");
    tm.tREFI = cycles(t, "tREFI");
    tm.tRFCsb = static_cast<uint32_t>(t.integer("tRFCsb", tm.tRFCsb, Range{0, 1e7}));
    tm.tREFIsb = static_cast<uint32_t>(t.integer("tREFIsb", tm.tREFIsb, Range{0, 1e7}));

    const ConfigNode c = node.child("controller");
    auto& ct = p.device.ctrl;
    ct.mapping = c.string("mapping");
    ct.scheduler = c.string("scheduler", ct.scheduler);
    ct.page_policy = c.string("page_policy", ct.page_policy);
    ct.queue_structure = c.choice("queue_structure", {"per_bank", "shared"}, "per_bank") == "shared"
                             ? QueueStructure::kShared
                             : QueueStructure::kPerBank;
    ct.command_queue_depth = count(c, "command_queue_depth", 4096);
    ct.read_queue_depth = count(c, "read_queue_depth", 4096);
    ct.write_buffer_depth = count(c, "write_buffer_depth", 4096);
    ct.write_drain_high = static_cast<uint32_t>(c.integer("write_drain_high", ct.write_buffer_depth, Range{0, 4096}));
    ct.write_drain_low = static_cast<uint32_t>(c.integer("write_drain_low", 0, Range{0, 4096}));
    ct.write_drain_idle = static_cast<uint32_t>(c.integer("write_drain_idle", 0, Range{0, 4096}));
    ct.row_hit_cap = static_cast<uint32_t>(c.integer("row_hit_cap", ct.row_hit_cap, Range{0, 1e6}));
    ct.dual_issue = c.boolean("dual_issue", ct.dual_issue);
    const std::string r = c.choice("refresh", {"all_bank", "per_bank", "none"}, "all_bank");
    ct.refresh = r == "per_bank" ? RefreshMode::kPerBank : r == "none" ? RefreshMode::kNone : RefreshMode::kAllBank;

    for (const auto& [key, message] : p.device.validate()) {
        const auto dot = key.find('.');
        const std::string section = key.substr(0, dot), leaf = key.substr(dot + 1);
        node.child(section).fail(leaf, message);
    }
    return p;
}

}  // namespace asim

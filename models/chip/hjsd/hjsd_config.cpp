#include "models/chip/hjsd/hjsd.h"
#include "models/common/config.h"
#include "models/common/params.h"
#include "models/common/units.h"

namespace asim {

namespace {

const ParamTable kHjsd(
    {"die.hjsd"}, "H-JSD (hardware joint data-flow scheduler)",
    {Param::boolean("enable", "prefetch weights of upcoming ops into the L2").dflt("true"),
     Param::integer("prefetch_depth", "ops", "how many ops ahead candidates are eligible")
         .dflt("5")
         .range(0, 1 << 20)
         .source("design card default (DESIGN section 4)"),
     Param::size("chunk", "bytes per prefetch request")
         .dflt("64KiB")
         .source("estimate: a large SDMA burst"),
     Param::time("horizon",
                 "time horizon: a candidate is eligible only if its op is estimated to start at "
                 "most this long after the current op (estimates: each op's roofline time on "
                 "this die); 0 = no bound")
         .dflt("0ns")
         .zero_allowed()
         .source("DESIGN section 5 (optional horizon register)"),
     Param::choice("sources", {"all", "pool"},
                   "which weights the chip offers as candidates: all, or only those in a pool "
                   "tier (remote_hbm, host_ddr, pmem), so that local weights, which stream from "
                   "HBM on demand, never hold a pool prefetch behind them in the in-order queue")
         .dflt("all")
         .source("estimate: a chip-side filter in front of the block (rtl/README.md refinement "
                 "11)"),
     Param::integer("queue_depth", "entries", "candidate queue").dflt("16").range(1, 1024),
     Param::integer("sdma_outstanding", "requests",
                    "prefetch requests in flight before the port stalls")
         .dflt("8")
         .range(1, 1024),
     Param::implementation("impl", hjsd::engine_registry(), "decision engine").dflt("tlm")});

const ParamTable kThrottle(
    {"die.hjsd.throttle"}, "H-JSD throttle",
    {Param::real("threshold", "", "HBM utilisation above which prefetch is held back")
         .dflt("0.85")
         .range(1e-6, 1e6),
     Param::time("window", "averaging window of the HBM utilisation").dflt("1us")});

const ParamTable kCredits({"die.hjsd.credits"}, "H-JSD credit limits",
                          {Param::size("<partition>",
                                       "prefetch credit of an L2 partition (weight, activation, "
                                       "general, ...); at most its size")
                               .dflt_from("the partition's size")
                               .zero_allowed()});

}  // namespace

HjsdParams parse_hjsd_params(const ConfigNode& node,
                             const std::vector<std::pair<std::string, uint64_t>>& partitions) {
    HjsdParams p;
    p.registers.enable = kHjsd.boolean(node, "enable");
    p.registers.prefetch_depth = static_cast<uint32_t>(kHjsd.integer(node, "prefetch_depth"));
    p.registers.chunk_bytes = kHjsd.size(node, "chunk");
    p.horizon_ps = kHjsd.time_ps(node, "horizon");
    p.pool_sources_only = kHjsd.string(node, "sources") == "pool";
    p.queue_depth = static_cast<uint32_t>(kHjsd.integer(node, "queue_depth"));
    p.sdma_outstanding = static_cast<uint32_t>(kHjsd.integer(node, "sdma_outstanding"));
    p.impl = kHjsd.string(node, "impl");
    p.engine_params = hjsd::engine_registry().read_params(node, p.impl);
    if (const auto throttle = node.optional_child("throttle")) {
        p.throttle_threshold = kThrottle.real(*throttle, "threshold");
        p.throttle_window_ps = kThrottle.time_ps(*throttle, "window");
    }
    // One key per partition, named after it: read here, declared in kCredits.
    const auto credits = node.optional_child("credits");
    for (std::size_t i = 0; i < partitions.size() && i < hjsd::kMaxPartitions; ++i) {
        const auto& [name, bytes] = partitions[i];
        uint64_t credit = bytes;
        if (credits) credit = credits->size_bytes_or_zero(name, bytes);
        if (credit > bytes) {
            credits->report(name, "credit " + units::format_bytes(credit) +
                                      " is larger than the L2 " + name + " partition (" +
                                      units::format_bytes(bytes) + ")");
        }
        p.registers.credit_limit[i] = credit;
    }
    if (!node.problems_reported()) {
        for (const auto& [key, message] : p.validate()) node.report(key, message);
    }
    return p;
}

}  // namespace asim

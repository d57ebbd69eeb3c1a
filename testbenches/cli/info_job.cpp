#include "testbenches/cli/info_job.h"

#include <fmt/format.h>

#include "models/common/units.h"
#include "platforms/platform.h"

namespace asim {

namespace {

// One link class: lanes x rate, the payload bandwidth per direction for writes and reads, the
// packet size and the latency a hop adds.
std::string link_line(const char* what, const LinkParams& l) {
    return fmt::format(
        "  {:<28}{} x {}: {} write, {} read payload; {} B packets + {} B; {} per hop\n", what,
        l.lanes, fmt::format("{:g} Gbps", l.lane_rate_bps * 1e-9),
        units::format_byte_rate(l.payload_bytes_per_s(LinkOp::write)),
        units::format_byte_rate(l.payload_bytes_per_s(LinkOp::read)), l.mtu_bytes, l.header_bytes,
        units::format_time_ps(l.propagation_ps + l.switch_latency_ps));
}

// The `network:` section of supernode presets: the topology, its links and the collectives.
std::string network_info(const NetworkParams& n) {
    const TopologyParams& t = n.topology;
    std::string out = fmt::format("\nnetwork\n");
    std::string node = to_string(t.node_topology);
    if (t.node_topology == NodeTopology::ring)
        node += t.bidirectional ? " (bidirectional)" : " (unidirectional)";
    if (!t.dims.empty()) {
        std::string dims;
        for (uint32_t d : t.dims) dims += (dims.empty() ? "" : "x") + std::to_string(d);
        node += " " + dims;
    }
    if (t.node_topology == NodeTopology::switched) node += fmt::format(", {} planes", t.planes);
    out += fmt::format("  {:<28}{} ({} node{} of {}), {} in a node\n", "dies", t.dies, t.nodes(),
                       t.nodes() == 1 ? "" : "s", t.dies_per_node, node);
    if (t.scale_out != ScaleOutTopology::none) {
        out += fmt::format(
            "  {:<28}{}{}\n", "between nodes", to_string(t.scale_out),
            t.scale_out == ScaleOutTopology::clos
                ? fmt::format(", {} L2 switches per plane", t.l2_per_plane)
                : fmt::format(", {} dies per leaf, {} spines", t.dies_per_leaf, t.spines));
    }
    out += link_line("die link", t.die_link);
    if (t.scale_out == ScaleOutTopology::fat_tree) out += link_line("NIC link", t.nic_link);
    if (t.scale_out != ScaleOutTopology::none) out += link_line("uplink", t.uplink);
    if (t.has_fallback) {
        out += link_line("fallback (host star)", t.fallback_link);
        out += fmt::format("  {:<28}{}\n", "host forwarding copy",
                           units::format_byte_rate(t.host_copy_bytes_per_s));
    }
    out += fmt::format("  {:<28}{}\n", "paths per transfer", n.max_paths);
    out += fmt::format("  {:<28}{} issue, {} remote read, {} remote write\n", "endpoint",
                       units::format_time_ps(n.endpoint.issue_overhead_ps),
                       units::format_time_ps(n.endpoint.memory_read_ps),
                       units::format_time_ps(n.endpoint.memory_write_ps));
    const CollectiveParams& c = n.collectives;
    out += fmt::format(
        "  {:<28}all-reduce {}, {} pieces, reduction {}, launch {}{}\n", "collectives",
        to_string(c.allreduce_algo), units::format_bytes(c.chunk_bytes),
        c.reduce_bytes_per_s > 0 ? units::format_byte_rate(c.reduce_bytes_per_s)
                                 : std::string("free"),
        units::format_time_ps(c.launch_overhead_ps),
        t.has_fallback ? fmt::format(", broken ring: {}", to_string(c.ring_break)) : "");
    std::string aiv;
    for (CollectiveOp op : c.aiv_direct)
        aiv += std::string(aiv.empty() ? "" : ", ") + to_string(op);
    out += fmt::format(
        "  {:<28}SDMA start {} per message; AIV-direct {} ({} per message); ready flags {}\n",
        "collective costs", units::format_time_ps(c.sdma_start_ps), aiv.empty() ? "none" : aiv,
        units::format_time_ps(c.aiv_start_ps),
        c.notify_bytes > 0 ? fmt::format("{} after {}", units::format_bytes(c.notify_bytes),
                                         units::format_time_ps(c.notify_overhead_ps))
                           : std::string("none"));
    if (!n.faults.empty()) out += fmt::format("  {:<28}{} links down\n", "faults", n.faults.size());
    return out;
}

}  // namespace

std::string info_job(const std::string& platform_name, const std::vector<std::string>& overrides) {
    const Platform p = load_platform(platform_name, overrides);
    const DieParams& d = p.die;
    const double clock = static_cast<double>(d.clock_hz);
    std::string out;
    out += fmt::format("platform {}{}\n\n", p.name, p.description.empty() ? "" : " (" + p.description + ")");
    out += fmt::format("compute\n");
    out += fmt::format("  {:<28}{}\n", "AI cores", fmt::format("{} (1 Cube + {} vector cores each) at {}",
                                                          d.ai_cores, d.core.vector_cores,
                                                          units::format_hertz(clock)));
    if (d.core.matrix_engine.kind == "systolic") {
        const SystolicParams& s = d.core.matrix_engine.systolic;
        out += fmt::format("  {:<28}systolic {}x{}, {} dataflow\n", "Matrix engine", s.rows, s.cols,
                           to_string(s.dataflow));
        out += fmt::format("  {:<28}{:>10}  {}\n", "Matrix peak per dtype", "TFLOPS", "MACs per cell");
        for (const auto& [dtype, macs] : s.macs_per_cell) {
            out += fmt::format("    {:<26}{:>10.1f}  {}\n", to_string(dtype), d.peak_flops(dtype) * 1e-12, macs);
        }
    } else {
        out += fmt::format("  {:<28}{:>10}  {}\n", "Cube peak per dtype", "TFLOPS", "fractal [m,k,n]");
        for (const auto& [dtype, f] : d.core.cube_fractals) {
            out += fmt::format("    {:<26}{:>10.1f}  [{},{},{}]\n", to_string(dtype), d.peak_flops(dtype) * 1e-12,
                               f.m, f.k, f.n);
        }
    }
    out += fmt::format("  {:<28}{:>10.1f} TFLOPS (fp16/bf16, FMA = 2), {:.1f} (fp32)\n", "Vector peak",
                       2 * d.vector_peak_ops(2) * 1e-12, 2 * d.vector_peak_ops(4) * 1e-12);
    out += fmt::format("  {:<28}{}\n", "Matmul scheduler", d.core.matmul_scheduler);
    out += fmt::format("\nbandwidth\n");
    out += fmt::format("  {:<28}{}\n", "HBM", units::format_byte_rate(d.hbm.bandwidth_bytes_per_s()));
    out += fmt::format("  {:<28}{}\n", "L2 (all slices)",
                       units::format_byte_rate(d.l2.slice_bandwidth_bytes_per_s * d.l2.slices));
    out += fmt::format("  {:<28}{} read, {} write (per core)\n", "AIC <-> GM",
                       units::format_byte_rate(d.core.aic_gm_read * clock),
                       units::format_byte_rate(d.core.aic_gm_write * clock));
    out += fmt::format("  {:<28}{} read, {} write (per vector core)\n", "AIV <-> GM",
                       units::format_byte_rate(d.core.aiv_gm_read * clock),
                       units::format_byte_rate(d.core.aiv_gm_write * clock));
    out += fmt::format("  {:<28}{} (all AIC ports)\n", "Cores -> L2 read, total",
                       units::format_byte_rate(d.core.aic_gm_read * clock * d.ai_cores));
    out += fmt::format("  {:<28}{} L0C -> UB, {} UB -> L1 (per core, fused attention)\n", "Cube <-> Vector direct",
                       units::format_byte_rate(d.core.l0c_to_ub * clock), units::format_byte_rate(d.core.ub_to_l1 * clock));
    out += fmt::format("\ncapacity\n");
    out += fmt::format("  {:<28}{}\n", "HBM", units::format_bytes(d.hbm.capacity_bytes()));
    out += fmt::format("  {:<28}{} ({} B lines, {} ways, {} slices)\n", "L2", units::format_bytes(d.l2.size_bytes),
                       d.l2.line_bytes, d.l2.ways, d.l2.slices);
    out += fmt::format("  {:<28}L1 {}, L0A {}, L0B {}, L0C {}, UB {} per vector core\n", "per AI core",
                       units::format_bytes(d.core.l1_bytes), units::format_bytes(d.core.l0a_bytes),
                       units::format_bytes(d.core.l0b_bytes), units::format_bytes(d.core.l0c_bytes),
                       units::format_bytes(d.core.ub_bytes));
    if (d.dsm.enabled()) {
        // The memory pool (DESIGN §5b) as one die sees it.
        out += fmt::format("\nmemory pool (dsm)\n");
        out += fmt::format("  {:<28}{} in, {} out\n", "die port",
                           units::format_byte_rate(d.dsm.port.read_bytes_per_s),
                           units::format_byte_rate(d.dsm.port.write_bytes_per_s));
        for (const TierParams& t : d.dsm.tiers) {
            const bool remote = t.tier == Tier::kRemoteHbm;
            out += fmt::format("  {:<28}{}{} from {} TiB; latency {} read, {} write; device {}\n", to_string(t.tier),
                               units::format_bytes(t.capacity), remote ? fmt::format(" x {} owners", d.dsm.owners) : "",
                               t.base >> 40, units::format_time_ps(t.read_latency_ps),
                               units::format_time_ps(t.write_latency_ps),
                               remote ? std::string("the owner's HBM (a stand-in on a single die)")
                                      : units::format_byte_rate(t.read_bytes_per_s) + " read, " +
                                            units::format_byte_rate(t.write_bytes_per_s) + " write");
        }
        out += fmt::format("  {:<28}{}\n", "H-JSD staging region",
                           d.dsm.staging.capacity ? units::format_bytes(d.dsm.staging.capacity) : std::string("off"));
        out += fmt::format("  {:<28}{}\n", "hardware tiering",
                           d.dsm.tiering.enable ? units::format_bytes(d.dsm.tiering.capacity) + " of local HBM, " +
                                                      units::format_byte_rate(d.dsm.tiering.migration_bytes_per_s) +
                                                      " migration budget"
                                                : std::string("off"));
    }
    if (p.network) out += network_info(*p.network);
    out += fmt::format("\nbalance\n");
    const double bf16 = d.peak_flops(DType::kBf16);
    out += fmt::format("  {:<28}{:.0f} FLOP/B (bf16 peak / HBM bandwidth)\n", "ridge point",
                       bf16 / d.hbm.bandwidth_bytes_per_s());
    return out;
}

}  // namespace asim

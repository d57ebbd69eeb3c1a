#include "testbenches/cli/info_job.h"

#include <variant>

#include <fmt/format.h>

#include "models/common/registry.h"
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
    out +=
        fmt::format("  {:<28}{} ({} node{} of {}), {} in a node\n", "dies", t.dies, t.nodes(),
                    t.nodes() == 1 ? "" : "s", t.dies_per_node, make_node_topology(t)->summary());
    const auto scale_out = t.scale_out.empty() ? nullptr : make_scale_out(t);
    if (scale_out) out += fmt::format("  {:<28}{}\n", "between nodes", scale_out->summary());
    out += link_line("die link", t.die_link);
    if (scale_out && scale_out->has_nic()) out += link_line("NIC link", t.nic_link);
    if (scale_out) out += link_line("uplink", t.uplink);
    if (t.has_fallback) {
        out += link_line("fallback (host star)", t.fallback_link);
        out += fmt::format("  {:<28}{}\n", "host forwarding copy",
                           units::format_byte_rate(t.host_copy_bytes_per_s));
    }
    out += fmt::format("  {:<28}{}\n", "routing", n.routing);
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
    out += fmt::format("platform {}{}\n\n", p.name,
                       p.description.empty() ? "" : " (" + p.description + ")");
    out += fmt::format("compute\n");
    out += fmt::format("  {:<28}{}\n", "AI cores",
                       fmt::format("{} (1 Cube + {} vector cores each) at {}", d.ai_cores,
                                   d.core.vector_cores, units::format_hertz(clock)));
    if (d.core.matrix_engine.kind == "systolic") {
        const SystolicParams& s = d.core.matrix_engine.systolic;
        out += fmt::format("  {:<28}systolic {}x{}, {} dataflow\n", "Matrix engine", s.rows, s.cols,
                           to_string(s.dataflow));
        out +=
            fmt::format("  {:<28}{:>10}  {}\n", "Matrix peak per dtype", "TFLOPS", "MACs per cell");
        for (const auto& [dtype, macs] : s.macs_per_cell) {
            out += fmt::format("    {:<26}{:>10.1f}  {}\n", to_string(dtype),
                               d.peak_flops(dtype) * 1e-12, macs);
        }
    } else {
        out +=
            fmt::format("  {:<28}{:>10}  {}\n", "Cube peak per dtype", "TFLOPS", "fractal [m,k,n]");
        for (const auto& [dtype, f] : d.core.cube_fractals) {
            out += fmt::format("    {:<26}{:>10.1f}  [{},{},{}]\n", to_string(dtype),
                               d.peak_flops(dtype) * 1e-12, f.m, f.k, f.n);
        }
    }
    out +=
        fmt::format("  {:<28}{:>10.1f} TFLOPS (fp16/bf16, FMA = 2), {:.1f} (fp32)\n", "Vector peak",
                    2 * d.vector_peak_ops(2) * 1e-12, 2 * d.vector_peak_ops(4) * 1e-12);
    out += fmt::format("  {:<28}{}\n", "Matmul scheduler", d.core.matmul_scheduler);
    out += fmt::format("\nbandwidth\n");
    out +=
        fmt::format("  {:<28}{}\n", "HBM", units::format_byte_rate(d.hbm.bandwidth_bytes_per_s()));
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
    out += fmt::format("  {:<28}{} L0C -> UB, {} UB -> L1 (per core, fused attention)\n",
                       "Cube <-> Vector direct", units::format_byte_rate(d.core.l0c_to_ub * clock),
                       units::format_byte_rate(d.core.ub_to_l1 * clock));
    out += fmt::format("\ncapacity\n");
    out += fmt::format("  {:<28}{}\n", "HBM", units::format_bytes(d.hbm.capacity_bytes()));
    out +=
        fmt::format("  {:<28}{} ({} B lines, {} ways, {} slices)\n", "L2",
                    units::format_bytes(d.l2.size_bytes), d.l2.line_bytes, d.l2.ways, d.l2.slices);
    out += fmt::format("  {:<28}L1 {}, L0A {}, L0B {}, L0C {}, UB {} per vector core\n",
                       "per AI core", units::format_bytes(d.core.l1_bytes),
                       units::format_bytes(d.core.l0a_bytes), units::format_bytes(d.core.l0b_bytes),
                       units::format_bytes(d.core.l0c_bytes), units::format_bytes(d.core.ub_bytes));
    if (d.dsm.enabled()) {
        // The memory pool (DESIGN §5b) as one die sees it.
        out += fmt::format("\nmemory pool (dsm)\n");
        out += fmt::format("  {:<28}{} in, {} out\n", "die port",
                           units::format_byte_rate(d.dsm.port.read_bytes_per_s),
                           units::format_byte_rate(d.dsm.port.write_bytes_per_s));
        for (const TierParams& t : d.dsm.tiers) {
            const bool remote = t.kind.per_owner();
            out += fmt::format(
                "  {:<28}{}{} from {} TiB; latency {} read, {} write; device {}\n",
                to_string(t.tier), units::format_bytes(t.capacity),
                remote ? fmt::format(" x {} owners", d.dsm.owners) : "", t.base >> 40,
                units::format_time_ps(t.read_latency_ps), units::format_time_ps(t.write_latency_ps),
                remote ? std::string("the owner's HBM (a stand-in on a single die)")
                       : units::format_byte_rate(t.read_bytes_per_s) + " read, " +
                             units::format_byte_rate(t.write_bytes_per_s) + " write");
        }
        out += fmt::format("  {:<28}{}\n", "H-JSD staging region",
                           d.dsm.staging.capacity ? units::format_bytes(d.dsm.staging.capacity)
                                                  : std::string("off"));
        out += fmt::format("  {:<28}{}\n", "hardware tiering",
                           d.dsm.tiering.enable
                               ? units::format_bytes(d.dsm.tiering.capacity) + " of local HBM, " +
                                     units::format_byte_rate(d.dsm.tiering.migration_bytes_per_s) +
                                     " migration budget"
                               : std::string("off"));
        out +=
            fmt::format("  {:<28}{}\n", "node tiering",
                        d.dsm.warm.enable
                            ? to_string(d.dsm.warm.from) + " -> " + to_string(d.dsm.warm.into) +
                                  ", " + units::format_bytes(d.dsm.warm.capacity) + " per node, " +
                                  units::format_byte_rate(d.dsm.warm.migration_bytes_per_s) +
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

namespace {

nlohmann::json link_json(const LinkParams& l) {
    return {{"lanes", l.lanes},
            {"lane_rate_bps", l.lane_rate_bps},
            {"write_payload_bytes_per_s", l.payload_bytes_per_s(LinkOp::write)},
            {"read_payload_bytes_per_s", l.payload_bytes_per_s(LinkOp::read)},
            {"mtu_bytes", l.mtu_bytes},
            {"header_bytes", l.header_bytes},
            {"hop_latency_ps", l.propagation_ps + l.switch_latency_ps}};
}

nlohmann::json network_json(const NetworkParams& n) {
    const TopologyParams& t = n.topology;
    nlohmann::json j = {{"dies", t.dies},
                        {"nodes", t.nodes()},
                        {"dies_per_node", t.dies_per_node},
                        {"node_topology", t.node_topology},
                        {"scale_out", t.scale_out.empty() ? "none" : t.scale_out},
                        {"die_link", link_json(t.die_link)},
                        {"routing", n.routing},
                        {"paths_per_transfer", n.max_paths},
                        {"endpoint",
                         {{"issue_overhead_ps", n.endpoint.issue_overhead_ps},
                          {"memory_read_ps", n.endpoint.memory_read_ps},
                          {"memory_write_ps", n.endpoint.memory_write_ps}}},
                        {"faults", n.faults.size()}};
    // Each part's own keys, as it declares them (ring: bidirectional, torus: dims, ...).
    for (const ParamValues* values : {&t.node_params, &t.scale_out_params}) {
        for (const auto& [key, value] : values->all())
            std::visit([&, k = key](const auto& v) { j[k] = v; }, value);
    }
    if (!t.scale_out.empty() && make_scale_out(t)->has_nic()) j["nic_link"] = link_json(t.nic_link);
    if (!t.scale_out.empty()) j["uplink"] = link_json(t.uplink);
    if (t.has_fallback) {
        j["fallback_link"] = link_json(t.fallback_link);
        j["host_copy_bytes_per_s"] = t.host_copy_bytes_per_s;
    }
    const CollectiveParams& c = n.collectives;
    std::vector<std::string> aiv;
    for (CollectiveOp op : c.aiv_direct) aiv.emplace_back(to_string(op));
    j["collectives"] = {{"allreduce_algorithm", to_string(c.allreduce_algo)},
                        {"chunk_bytes", c.chunk_bytes},
                        {"reduce_bytes_per_s", c.reduce_bytes_per_s},
                        {"launch_overhead_ps", c.launch_overhead_ps},
                        {"ring_break", to_string(c.ring_break)},
                        {"sdma_start_ps", c.sdma_start_ps},
                        {"aiv_direct", aiv},
                        {"aiv_start_ps", c.aiv_start_ps},
                        {"notify_bytes", c.notify_bytes},
                        {"notify_overhead_ps", c.notify_overhead_ps}};
    return j;
}

}  // namespace

nlohmann::json info_json(const std::string& platform_name,
                         const std::vector<std::string>& overrides) {
    const Platform p = load_platform(platform_name, overrides);
    const DieParams& d = p.die;
    const double clock = static_cast<double>(d.clock_hz);
    nlohmann::json peak = nlohmann::json::object();
    if (d.core.matrix_engine.kind == "systolic") {
        for (const auto& [dtype, macs] : d.core.matrix_engine.systolic.macs_per_cell) {
            peak[to_string(dtype)] = d.peak_flops(dtype);
        }
    } else {
        for (const auto& [dtype, f] : d.core.cube_fractals)
            peak[to_string(dtype)] = d.peak_flops(dtype);
    }
    nlohmann::json engine = {{"kind", d.core.matrix_engine.kind}};
    if (d.core.matrix_engine.kind == "systolic") {
        const SystolicParams& s = d.core.matrix_engine.systolic;
        engine["rows"] = s.rows;
        engine["cols"] = s.cols;
        engine["dataflow"] = to_string(s.dataflow);
    }
    nlohmann::json j = {
        {"platform", {{"name", p.name}, {"description", p.description}}},
        {"compute",
         {{"ai_cores", d.ai_cores},
          {"vector_cores_per_ai_core", d.core.vector_cores},
          {"clock_hz", clock},
          {"matrix_engine", engine},
          {"matrix_peak_flops", peak},
          {"vector_peak_flops",
           {{"fp16", 2 * d.vector_peak_ops(2)}, {"fp32", 2 * d.vector_peak_ops(4)}}},
          {"matmul_scheduler", d.core.matmul_scheduler}}},
        {"bandwidth_bytes_per_s",
         {{"hbm", d.hbm.bandwidth_bytes_per_s()},
          {"l2", d.l2.slice_bandwidth_bytes_per_s * d.l2.slices},
          {"aic_gm_read_per_core", d.core.aic_gm_read * clock},
          {"aic_gm_write_per_core", d.core.aic_gm_write * clock},
          {"aiv_gm_read_per_vector_core", d.core.aiv_gm_read * clock},
          {"aiv_gm_write_per_vector_core", d.core.aiv_gm_write * clock},
          {"cores_to_l2_read_total", d.core.aic_gm_read * clock * d.ai_cores},
          {"l0c_to_ub_per_core", d.core.l0c_to_ub * clock},
          {"ub_to_l1_per_core", d.core.ub_to_l1 * clock}}},
        {"capacity_bytes",
         {{"hbm", d.hbm.capacity_bytes()},
          {"l2", d.l2.size_bytes},
          {"l2_line", d.l2.line_bytes},
          {"l2_ways", d.l2.ways},
          {"l2_slices", d.l2.slices},
          {"l1", d.core.l1_bytes},
          {"l0a", d.core.l0a_bytes},
          {"l0b", d.core.l0b_bytes},
          {"l0c", d.core.l0c_bytes},
          {"ub", d.core.ub_bytes}}},
        {"balance",
         {{"ridge_flop_per_byte", d.peak_flops(DType::kBf16) / d.hbm.bandwidth_bytes_per_s()}}}};
    if (d.dsm.enabled()) {
        nlohmann::json tiers = nlohmann::json::array();
        for (const TierParams& t : d.dsm.tiers) {
            tiers.push_back({{"tier", to_string(t.tier)},
                             {"base", t.base},
                             {"capacity_bytes", t.capacity},
                             {"read_latency_ps", t.read_latency_ps},
                             {"write_latency_ps", t.write_latency_ps},
                             {"read_bytes_per_s", t.read_bytes_per_s},
                             {"write_bytes_per_s", t.write_bytes_per_s}});
        }
        j["dsm"] = {{"port_read_bytes_per_s", d.dsm.port.read_bytes_per_s},
                    {"port_write_bytes_per_s", d.dsm.port.write_bytes_per_s},
                    {"owners", d.dsm.owners},
                    {"tiers", tiers},
                    {"staging_bytes", d.dsm.staging.capacity},
                    {"tiering", d.dsm.tiering.enable},
                    {"tiering_bytes", d.dsm.tiering.capacity},
                    {"migration_bytes_per_s", d.dsm.tiering.migration_bytes_per_s}};
    }
    if (p.network) j["network"] = network_json(*p.network);
    nlohmann::json registered = nlohmann::json::object();
    for (const RegistryBase* r : registries()) registered[r->kind()] = r->names();
    j["implementations"] = registered;
    return j;
}

}  // namespace asim

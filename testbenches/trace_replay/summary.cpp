#include "testbenches/trace_replay/summary.h"

#include <fmt/format.h>

#include "models/chip/die/die.h"
#include "models/common/atomic_output.h"
#include "models/common/params.h"
#include "models/common/stats.h"
#include "models/common/units.h"
#include "platforms/platform.h"
#include "testbenches/command/provenance.h"

namespace asim {

namespace {
constexpr std::array<trace::OpKind, 9> kKinds = {
    trace::OpKind::kMatmul,     trace::OpKind::kFusedAttention, trace::OpKind::kElementwise,
    trace::OpKind::kActivation, trace::OpKind::kNorm,           trace::OpKind::kSoftmax,
    trace::OpKind::kReduce,     trace::OpKind::kMemcpy,         trace::OpKind::kCollective};

double ratio(double a, double b) { return b > 0 ? a / b : 0.0; }
}  // namespace

nlohmann::json make_summary(const Die& die, double wall_s) {
    const OpDispatcher& d = die.dispatcher();
    const DieParams& p = die.params();
    const double sim_s = static_cast<double>(d.end_time_ps()) * 1e-12;

    // The peak the run is measured against: that of the dtype carrying most Cube FLOPs (BF16
    // when the trace has no Cube work).
    DType peak_dtype = DType::kBf16;
    double most = -1;
    for (const auto& [dtype, flops] : d.cube_flops_by_dtype()) {
        if (flops > most) {
            most = flops;
            peak_dtype = dtype;
        }
    }
    const double peak = p.peak_flops(peak_dtype);
    const double sim_cycles = static_cast<double>(die.clock().ps_to_cycles_ceil(d.end_time_ps()));
    // Busy cycles of the matrix engines (a cycle issuing fractals_per_cycle fractals counts once).
    const double cube_capacity = sim_cycles * p.ai_cores;

    const uint64_t hbm_rd = die.hbm().read_bytes(), hbm_wr = die.hbm().write_bytes();
    const uint64_t hits = die.l2().hits(), misses = die.l2().misses();

    nlohmann::json l2_partitions = nlohmann::json::object();
    uint64_t prefetch_useful = 0, prefetch_late = 0, prefetch_unused = 0;
    for (std::size_t i = 0; i < die.l2().partition_count(); ++i) {
        const L2PartitionStats& ps = die.l2().partition_stats(i);
        const double h = static_cast<double>(ps.hits.value()),
                     m = static_cast<double>(ps.misses.value());
        l2_partitions[die.l2().partition_name(i)] = {{"hits", ps.hits.value()},
                                                     {"misses", ps.misses.value()},
                                                     {"hit_rate", ratio(h, h + m)}};
        prefetch_useful += ps.prefetch_useful.value();
        prefetch_late += ps.prefetch_late.value();
        prefetch_unused += ps.prefetch_unused.value();
    }

    double weight_hit_rate = 0.0;
    {
        const L2PartitionStats& ws =
            die.l2().partition_stats(die.l2().partition_of(StreamClass::kWeight));
        const double h = static_cast<double>(ws.hits.value()),
                     m = static_cast<double>(ws.misses.value());
        weight_hit_rate = ratio(h, h + m);
    }

    nlohmann::json by_class = nlohmann::json::object();
    for (trace::OpKind kind : kKinds) {
        const OpClassStats& cs = d.class_stats(kind);
        if (cs.count.value() == 0) continue;
        const double t = static_cast<double>(cs.time_ps.value()) * 1e-12;
        by_class[std::string(trace::to_string(kind))] = {
            {"ops", cs.count.value()},
            {"time_ns", t * 1e9},
            {"share", ratio(t, sim_s)},
            {"flops", cs.flops.value()},
            {"achieved_tflops", ratio(static_cast<double>(cs.flops.value()), t) * 1e-12}};
    }

    const BusyWindows::Summary util =
        die.cube_windows().summarize(static_cast<Picoseconds>(d.end_time_ps()), p.ai_cores);
    nlohmann::json summary = {
        {"sim_time_ns", sim_s * 1e9},
        {"wall_s", wall_s},
        {"ops", d.ops_completed()},
        {"flops", d.flops()},
        {"achieved_tflops", ratio(d.flops(), sim_s) * 1e-12},
        {"peak_tflops", peak * 1e-12},
        {"peak_dtype", std::string(to_string(peak_dtype))},
        {"cube_utilization", ratio(static_cast<double>(die.cube_busy_cycles()), cube_capacity)},
        {"hbm_read_bytes", hbm_rd},
        {"hbm_write_bytes", hbm_wr},
        {"hbm_bw_gbps", ratio(static_cast<double>(hbm_rd + hbm_wr), sim_s) * 1e-9},
        {"hbm_peak_gbps", p.hbm.bandwidth_bytes_per_s() * 1e-9},
        {"l2_hit_rate", ratio(static_cast<double>(hits), static_cast<double>(hits + misses))},
        {"l2_partitions", l2_partitions},
        // Issued chunks and dropped candidates are the H-JSD's; useful, late (demanded while the
        // fill was in flight) and unused (evicted first) are what the L2 saw of prefetched lines.
        {"prefetch",
         {{"issued", die.hjsd().counters().issued_chunks},
          {"issued_bytes", die.hjsd().counters().issued_bytes},
          {"useful", prefetch_useful},
          {"late", prefetch_late},
          {"unused", prefetch_unused},
          {"dropped_late_candidates", die.hjsd().counters().late_drops},
          {"dropped_oversize_candidates", die.hjsd().counters().oversize_drops}}},
        {"hbm_prefetch_bytes", die.l2().hbm_fetch_bytes_prefetch()},
        {"hbm_demand_bytes", die.l2().hbm_fetch_bytes_demand()},
        {"l2_weight_hit_rate", weight_hit_rate},
        {"time_by_op_class", by_class},
        // The utilisation curve (`run --util-window`): Cube busy per window over all cores.
        {"cube_utilization_windows",
         {{"window_us", static_cast<double>(die.cube_windows().window()) * 1e-6},
          {"windows", util.windows},
          {"mean", util.mean},
          {"std", util.std},
          {"min", util.min},
          {"max", util.max}}},
    };
    if (const TierRouter* tiers = die.tiers()) {
        // The memory pool (DESIGN §5b): traffic per tier, and what local copies served.
        nlohmann::json t = nlohmann::json::object();
        for (const TierParams& tp : p.dsm.tiers) {
            const TierRouter::TierTotals& tot = tiers->totals(tp.tier);
            nlohmann::json one = {{"read_bytes", tot.read_bytes},
                                  {"write_bytes", tot.write_bytes},
                                  {"hits", tot.copy_hits},
                                  {"migrations_in", tot.migrations_in},
                                  {"migrations_out", tot.migrations_out}};
            if (p.dsm.warm.enable && tp.tier == p.dsm.warm.from) one["warm_hits"] = tot.warm_hits;
            if (tp.kind.endurance_block) one["max_block_writes"] = tot.max_block_writes;
            t[to_string(tp.tier)] = std::move(one);
        }
        summary["tiers"] = std::move(t);
    }
    return summary;
}

std::string format_summary(const nlohmann::json& s, const std::string& platform_line,
                           const std::string& trace_line, uint64_t kernel_deltas) {
    const double sim_ns = s["sim_time_ns"].get<double>();
    const double wall = s["wall_s"].get<double>();
    std::string out;
    out += fmt::format("platform   {}\n", platform_line);
    out += fmt::format("trace      {}\n\n", trace_line);
    out += fmt::format("  {:<22}{}\n", "simulated time",
                       units::format_time_ps(static_cast<int64_t>(sim_ns * 1000)));
    out += fmt::format("  {:<22}{}\n", "ops", s["ops"].get<uint64_t>());
    out += fmt::format(
        "  {:<22}{:.1f} TFLOPS of {:.1f} peak ({}): {:.1f} %\n", "achieved",
        s["achieved_tflops"].get<double>(), s["peak_tflops"].get<double>(),
        s["peak_dtype"].get<std::string>(),
        100.0 * ratio(s["achieved_tflops"].get<double>(), s["peak_tflops"].get<double>()));
    out += fmt::format("  {:<22}{:.1f} %\n", "Cube utilisation",
                       100.0 * s["cube_utilization"].get<double>());
    if (const auto& w = s["cube_utilization_windows"]; w["windows"].get<uint64_t>() > 1) {
        out += fmt::format(
            "  {:<22}mean {:.1f} %, std {:.1f}, min {:.1f} % over {} windows of {:g} us\n",
            "  per window", 100.0 * w["mean"].get<double>(), 100.0 * w["std"].get<double>(),
            100.0 * w["min"].get<double>(), w["windows"].get<uint64_t>(),
            w["window_us"].get<double>());
    }
    out += fmt::format("  {:<22}{} read, {} written\n", "HBM traffic",
                       units::format_bytes(s["hbm_read_bytes"].get<uint64_t>()),
                       units::format_bytes(s["hbm_write_bytes"].get<uint64_t>()));
    out +=
        fmt::format("  {:<22}{:.1f} GB/s ({:.1f} % of {:.0f} GB/s)\n", "HBM bandwidth",
                    s["hbm_bw_gbps"].get<double>(),
                    100.0 * ratio(s["hbm_bw_gbps"].get<double>(), s["hbm_peak_gbps"].get<double>()),
                    s["hbm_peak_gbps"].get<double>());
    out += fmt::format("  {:<22}{:.1f} %\n", "L2 hit rate", 100.0 * s["l2_hit_rate"].get<double>());
    if (s.contains("tiers")) {
        for (const auto& [tier, v] : s["tiers"].items()) {
            if (v["read_bytes"].get<uint64_t>() == 0 && v["write_bytes"].get<uint64_t>() == 0)
                continue;
            const std::string warm =
                v.contains("warm_hits")
                    ? fmt::format(", {} by the node's warm copies", v["warm_hits"].get<uint64_t>())
                    : "";
            out += fmt::format("  {:<22}{} read, {} written, {} served from local copies{}\n",
                               "pool " + tier, units::format_bytes(v["read_bytes"].get<uint64_t>()),
                               units::format_bytes(v["write_bytes"].get<uint64_t>()),
                               v["hits"].get<uint64_t>(), warm);
        }
    }
    out += "\n";
    out += fmt::format("  {:<18}{:>5}{:>14}{:>9}{:>10}\n", "time by op class", "ops", "time",
                       "share", "TFLOPS");
    for (const auto& [cls, v] : s["time_by_op_class"].items()) {
        out += fmt::format(
            "  {:<18}{:>5}{:>14}{:>8.1f}%{:>10.1f}\n", cls, v["ops"].get<uint64_t>(),
            units::format_time_ps(static_cast<int64_t>(v["time_ns"].get<double>() * 1000)),
            100.0 * v["share"].get<double>(), v["achieved_tflops"].get<double>());
    }
    out += fmt::format(
        "\n  wall time {:.2f} s; {:.0f} simulated ns per wall second; {:.0f} kernel "
        "delta cycles per second\n",
        wall, ratio(sim_ns, wall), ratio(static_cast<double>(kernel_deltas), wall));
    return out;
}

void write_run_outputs(AtomicOutputDir& out, const Platform& platform, const std::string& trace,
                       const nlohmann::json& summary, const StatsRegistry& stats, double wall_s,
                       const std::string& text) {
    nlohmann::json doc = {
        {"schema", "ascend-sim/stats/1"},
        {"meta",
         {{"platform", platform.name},
          {"trace", trace},
          {"seed", 0},  // nothing in the model draws random numbers yet
          {"version", ASIM_VERSION},
          {"sim_events", sc_core::sc_delta_count()},
          {"sim_events_kind", "SystemC delta cycles"},
          {"wall_s", wall_s}}},
        {"summary", summary},
        {"stats", stats.to_json()},
    };
    const std::string config = effective_yaml(platform.config);  // hashed into meta, written below
    doc["meta"].update(provenance_json(config));
    out.write("stats.json", doc.dump(2) + "\n");
    out.write("stats.csv", stats.to_csv());
    out.write("summary.txt", text);
    out.write(
        "config.yaml",
        "# Effective configuration of this run (presets merged, --set applied, every declared key "
        "left out written in at its default).\n" +
            config + "\n");
}

}  // namespace asim

#include "testbenches/mem_replay/mem_replay_job.h"

#include <algorithm>
#include <chrono>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <optional>

#include "models/common/atomic_output.h"
#include "models/common/clock_domain.h"
#include "models/common/errors.h"
#include "models/common/params.h"
#include "models/common/units.h"
#include "platforms/platform.h"
#include "testbenches/command/provenance.h"
#include "testbenches/mem_replay/l2_replay_bench.h"
#include "testbenches/mem_replay/replay_engine.h"

namespace asim {

namespace {

// `--target l2`: the trace enters the die's L2, built as the die builds it, HBM behind it.
std::string l2_replay_job(const MemReplayOptions& o) {
    const auto wall_start = std::chrono::steady_clock::now();
    set_kernel_time_resolution();
    Platform platform = load_platform(o.platform, o.overrides);
    uint64_t size = 64;
    if (!o.request_size.empty()) {
        try {
            size = units::bytes(o.request_size);
        } catch (const units::UnitError& e) {
            throw InputError(std::string("--request-size: ") + e.what());
        }
        if (size == 0 || size > (1ULL << 20)) {
            throw InputError("--request-size " + o.request_size + ": expected 1 B to 1 MiB");
        }
    }
    const auto stream = stream_class_from_string(o.stream);
    if (!stream || *stream == StreamClass::kPrefetch) {
        throw InputError("--stream: expected weight, activation or general, got '" + o.stream +
                         "'");
    }
    MemTraceReader reader(o.trace);
    std::optional<AtomicOutputDir> out;  // checked before the replay
    if (!o.out_dir.empty()) out.emplace(o.out_dir);
    L2ReplayPhase phase;
    phase.next = [&reader](MemRecord& rec, std::string& error) { return reader.read(rec, error); };
    phase.where = [&reader] { return reader.path() + ":" + std::to_string(reader.line()); };
    phase.issue_cap = o.issue_cap;
    phase.request_bytes = size;
    phase.stream = *stream;

    StatsRegistry stats;
    L2ReplayBench bench("die", platform.die, stats, {phase});
    bench.run();
    const L2PhaseResult& r = bench.results().front();
    if (r.requests == 0) throw InputError(o.trace + ": the trace holds no request");
    bench.finalize_stats();
    const double wall_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();

    const L2Params& l2 = platform.die.l2;
    const double slices = l2.slice_bandwidth_bytes_per_s * l2.slices;
    const double core_side =
        o.issue_cap ? static_cast<double>(o.issue_cap * size * l2.clock_hz) : slices;
    nlohmann::json summary = l2_replay_summary(r, l2.clock_hz, std::min(slices, core_side));
    summary["stream"] = o.stream;
    nlohmann::json partitions = nlohmann::json::object();
    for (std::size_t p = 0; p < bench.l2().partition_count(); ++p) {
        const L2PartitionStats& ps = bench.l2().partition_stats(p);
        partitions[bench.l2().partition_name(p)] = {{"hits", ps.hits.value()},
                                                    {"misses", ps.misses.value()},
                                                    {"evictions", ps.evictions.value()},
                                                    {"writebacks", ps.writebacks.value()}};
    }
    summary["l2_partitions"] = partitions;
    summary["wall_s"] = wall_s;
    summary["requests_per_wall_s"] = static_cast<double>(r.requests) / wall_s;
    const std::string line = fmt::format(
        "{} into the L2 of {} (cap {}, {} B {}): {} requests in {} L2 cycles, {:.1f} GB/s (steady "
        "{:.1f}, at most "
        "{:.1f}), read latency mean {:.1f} / p50 {} / p99 {} cycles (from accept {:.1f}), L2 hit "
        "rate {:.3f}, "
        "HBM {} B read {} B written",
        o.trace, platform.name, o.issue_cap, size, o.stream, r.requests, r.total_cycles,
        summary["bandwidth_gbps"].get<double>(), summary["steady_bandwidth_gbps"].get<double>(),
        summary["peak_bandwidth_gbps"].get<double>(),
        summary["read_latency_mean_cycles"].get<double>(),
        summary["read_latency_p50_cycles"].get<uint64_t>(),
        summary["read_latency_p99_cycles"].get<uint64_t>(),
        summary["read_latency_from_accept_mean_cycles"].get<double>(),
        summary["l2_hit_rate"].get<double>(), r.hbm_read_bytes, r.hbm_write_bytes);

    if (!o.out_dir.empty()) {
        nlohmann::json doc;
        doc["schema"] = "ascend-sim/stats/1";
        doc["meta"] = {
            {"job", "mem-replay"},      {"platform", platform.name}, {"trace", o.trace},
            {"issue_cap", o.issue_cap}, {"target", o.target},        {"request_bytes", size},
            {"stream", o.stream},       {"cycle_unit", "L2 clock"},  {"seed", 0},
            {"version", ASIM_VERSION},  {"sim_events", r.requests},  {"wall_s", wall_s}};
        // Hashed into meta, written below.
        const std::string config = effective_yaml(platform.config);
        doc["meta"].update(provenance_json(config));
        doc["summary"] = summary;
        doc["stats"] = stats.to_json();
        out->write("stats.json", doc.dump(2) + "\n");
        out->write("config.yaml", config);
        out->commit();
    }
    return line;
}

}  // namespace

std::string mem_replay_job(const MemReplayOptions& o) {
    if (o.target == "l2") return l2_replay_job(o);
    if (o.target != "hbm") throw InputError("--target: expected hbm or l2, got '" + o.target + "'");
    const auto wall_start = std::chrono::steady_clock::now();
    Platform platform = load_platform(o.platform, o.overrides);
    const HbmDeviceParams& device = platform.die.hbm.device;
    if (!o.request_size.empty()) {
        uint64_t size = 0;
        try {
            size = units::bytes(o.request_size);
        } catch (const units::UnitError& e) {
            throw InputError(std::string("--request-size: ") + e.what());
        }
        if (size != device.transaction_size()) {
            throw InputError(
                fmt::format("--request-size {}: unsupported request size; the device ({} bit x "
                            "BL{}, transaction {} B) serves {} B per request",
                            o.request_size, device.org.bus_width_bits, device.org.burst_length,
                            device.ctrl.transaction_bytes, device.transaction_size()));
        }
    }
    MemTraceReader reader(o.trace);
    std::optional<AtomicOutputDir> out;  // checked before the replay
    if (!o.out_dir.empty()) out.emplace(o.out_dir);
    const ReplayResult r = run_replay(
        device, [&reader](MemRecord& rec) { return reader.next(rec); }, o.issue_cap,
        [&reader] { return reader.path() + ":" + std::to_string(reader.line()); });
    if (r.requests == 0) throw InputError(o.trace + ": the trace holds no request");
    const double wall_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();

    nlohmann::json summary = replay_summary(r, device);
    summary["wall_s"] = wall_s;
    summary["requests_per_wall_s"] = static_cast<double>(r.requests) / wall_s;
    const std::string line = fmt::format(
        "{} on {} (cap {}): {} requests in {} cycles, {:.1f} GB/s ({:.1f} % of {:.1f}), steady "
        "{:.1f} GB/s, "
        "read latency mean {:.1f} / p50 {} / p99 {} cycles (from accept {:.1f}), row hits {:.3f} "
        "read / {:.3f} write, "
        "{} ACT {} PRE {} REF",
        o.trace, platform.name, o.issue_cap, r.requests, r.total_cycles,
        summary["bandwidth_gbps"].get<double>(),
        100.0 * summary["bandwidth_gbps"].get<double>() /
            summary["peak_bandwidth_gbps"].get<double>(),
        summary["peak_bandwidth_gbps"].get<double>(),
        summary["steady_bandwidth_gbps"].get<double>(),
        summary["read_latency_mean_cycles"].get<double>(),
        summary["read_latency_p50_cycles"].get<uint64_t>(),
        summary["read_latency_p99_cycles"].get<uint64_t>(),
        summary["read_latency_from_accept_mean_cycles"].get<double>(),
        summary["read_row_hit_rate"].get<double>(), summary["write_row_hit_rate"].get<double>(),
        r.counters.activates, r.counters.precharges, r.counters.refreshes);

    if (!o.out_dir.empty()) {
        nlohmann::json doc;
        doc["schema"] = "ascend-sim/stats/1";
        doc["meta"] = {{"job", "mem-replay"},      {"platform", platform.name}, {"trace", o.trace},
                       {"issue_cap", o.issue_cap}, {"target", o.target},        {"seed", 0},
                       {"version", ASIM_VERSION},  {"sim_events", r.requests},  {"wall_s", wall_s}};
        // Hashed into meta, written below.
        const std::string config = effective_yaml(platform.config);
        doc["meta"].update(provenance_json(config));
        doc["summary"] = summary;
        doc["stats"] = {{"hbm",
                         {{"read_latency_from_trace_cycles", {{"mean", r.read_from_trace.mean()}}},
                          {"activates", r.counters.activates},
                          {"precharges", r.counters.precharges},
                          {"refreshes", r.counters.refreshes},
                          {"read_commands", r.counters.reads},
                          {"write_commands", r.counters.writes},
                          {"read_row_hits", r.counters.read_row_hits},
                          {"write_row_hits", r.counters.write_row_hits},
                          {"reads_from_write_buffer", r.counters.write_buffer_read_hits}}}};
        out->write("stats.json", doc.dump(2) + "\n");
        out->write("config.yaml", config);
        out->commit();
    }
    return line;
}

}  // namespace asim

#include "testbenches/supernode/supernode_job.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <systemc>

#include "models/chip/die/die.h"
#include "models/chip/die/fast_die.h"
#include "models/common/atomic_output.h"
#include "models/common/clock_domain.h"
#include "models/common/errors.h"
#include "models/common/failure_sink.h"
#include "models/common/kernel.h"
#include "models/common/stats.h"
#include "models/common/trace.h"
#include "models/common/trace_set_index.h"
#include "models/common/units.h"
#include "platforms/platform.h"
#include "platforms/supernode.h"
#include "testbenches/command/progress.h"
#include "testbenches/supernode/collective_agreement.h"
#include "testbenches/supernode/op_time_table.h"
#include "testbenches/trace_replay/op_table.h"
#include "testbenches/trace_replay/op_timeline.h"
#include "testbenches/trace_replay/summary.h"

namespace asim {

namespace fs = std::filesystem;

namespace {

fs::path index_path(const std::string& trace) {
    const fs::path p(trace);
    return fs::is_directory(p) ? p / "index.json" : p;
}

// "DIE:KEY=VALUE" -> die, "KEY=VALUE".
std::pair<uint32_t, std::string> split_die_override(const std::string& text) {
    const auto colon = text.find(':');
    const auto eq = text.find('=');
    if (colon == std::string::npos || colon == 0 || eq == std::string::npos || eq < colon) {
        throw InputError("--die-set: expected DIE:KEY=VALUE (e.g. 3:die.clock=1.2GHz), got '" +
                         text + "'");
    }
    try {
        std::size_t used = 0;
        const unsigned long die = std::stoul(text.substr(0, colon), &used);
        if (used != colon) throw std::invalid_argument("die");
        return {static_cast<uint32_t>(die), text.substr(colon + 1)};
    } catch (const std::exception&) {
        throw InputError("--die-set: '" + text.substr(0, colon) + "' is not a die number in '" +
                         text + "'");
    }
}

}  // namespace

LinkFault parse_fault_option(const std::string& option) {
    LinkFault f;
    const std::size_t at = option.rfind('@');
    f.link = option.substr(0, at);
    f.where = "--fault " + option;
    if (at != std::string::npos) {
        try {
            f.at_ps = units::picoseconds(option.substr(at + 1));
        } catch (const units::UnitError& e) {
            throw InputError("--fault " + option + ": " + e.what() +
                             " (expected LINK@TIME, e.g. die3->die4@10us)");
        }
        if (f.at_ps < 0) throw InputError("--fault " + option + ": the time must not be negative");
    }
    if (f.link.empty())
        throw InputError("--fault " + option +
                         ": no link named (expected LINK@TIME, e.g. die3->die4@10us)");
    return f;
}

bool is_trace_set(const std::string& trace) {
    if (trace.rfind("builtin:", 0) == 0) return false;
    const fs::path p(trace);
    return (fs::is_directory(p) && fs::exists(p / "index.json")) || p.filename() == "index.json";
}

std::vector<std::string> check_trace_set(const std::string& trace) {
    const fs::path index = index_path(trace);
    const TraceSet set = read_trace_set_index(index);
    std::vector<std::string> files = {index.string()};
    for (const auto& [die, file] : set.files) {
        trace::TraceReader reader(file.string());
        trace::Op op;
        while (reader.next(op)) {
        }
        files.push_back(file.string());
    }
    return files;
}

namespace {

// Member `i`'s line of summary.per_die: the die's own summary (make_summary for a detailed die)
// and its communication figures from its dispatcher's stats and ledger.
nlohmann::json member_summary(const Supernode& node, std::size_t i, const StatsRegistry& stats,
                              double wall_s) {
    nlohmann::json s;
    if (const Die* d = node.detailed(i)) {
        s = make_summary(*d, wall_s);
        s["fidelity"] = "detailed";
    } else {
        const FastDie& f = *node.fast(i);
        const double time_ns = static_cast<double>(f.end_time_ps()) * 1e-3;
        s = {{"fidelity", "fast"},
             {"sim_time_ns", time_ns},
             {"ops", f.ops_completed()},
             {"flops", f.flops()},
             {"achieved_tflops", time_ns > 0 ? f.flops() / (time_ns * 1e-9) * 1e-12 : 0.0}};
    }
    const std::string base = "die" + std::to_string(node.die_of(i)) + ".dispatcher.";
    const auto counter = [&](const std::string& key) {
        const auto* c = dynamic_cast<const Counter*>(stats.find(base + key));
        return c ? static_cast<double>(c->value()) : 0.0;
    };
    s["die"] = node.die_of(i);
    s["comm_time_ns"] = counter("comm_busy_ps") * 1e-3;
    s["comm_exposed_ns"] = counter("comm_exposed_ps") * 1e-3;
    s["comm_overlap_ns"] = counter("comm_overlap_ps") * 1e-3;
    // The collectives' share of the die's memory and vector cores (collective_work.h): bytes
    // requested from the L2, the HBM bytes that caused (the ledger's attribution to the
    // collective ops), and how long the die took to do its share.
    s["comm_memory_bytes"] = counter("comm_memory_bytes");
    s["comm_die_work_ns"] = counter("comm_die_work_ps") * 1e-3;
    uint64_t comm_hbm = 0;
    for (const OpRecord& r : node.ledger(i).records())
        if (r.kind == trace::OpKind::kCollective) comm_hbm += r.hbm_read_bytes + r.hbm_write_bytes;
    s["comm_hbm_bytes"] = comm_hbm;
    return s;
}

// The pool's traffic over every detailed die, per tier (summary.tiers): sums, and the largest
// per-block write count.
nlohmann::json pool_tiers(const nlohmann::json& per_die_summary) {
    nlohmann::json tiers = nlohmann::json::object();
    for (const auto& s : per_die_summary) {
        if (!s.contains("tiers")) continue;
        for (const auto& [tier, v] : s["tiers"].items()) {
            for (const auto& [key, value] : v.items()) {
                const uint64_t before =
                    tiers[tier].contains(key) ? tiers[tier][key].get<uint64_t>() : 0;
                tiers[tier][key] = key == "max_block_writes"
                                       ? std::max(before, value.get<uint64_t>())
                                       : before + value.get<uint64_t>();
            }
        }
    }
    return tiers;
}

// summary.txt: the platform, the set, the step, faults, fast-die calibration and a line per die.
std::string summary_text(const Platform& platform, const TraceSet& set, const NetworkParams& net,
                         const OpTimeTable& table, const Supernode& node,
                         const nlohmann::json& per_die_summary, double step_ns, double wall_s) {
    const uint64_t deltas = sc_core::sc_delta_count();
    std::string text = fmt::format(
        "  platform   {} ({})\n  trace set  {} ({} dies)\n\n  step time  {}\n  collectives {}\n\n",
        platform.name, platform.description, set.name, set.files.size(),
        units::format_time_ps(static_cast<int64_t>(step_ns * 1e3)),
        node.bridge().collectives_started());
    for (const LinkFault& f : net.faults) {
        text +=
            fmt::format("  fault      {} down from {}\n", f.link, units::format_time_ps(f.at_ps));
    }
    if (!net.faults.empty()) text += "\n";
    if (table.size() != 0) {
        text +=
            fmt::format("  fast dies: {} distinct ops measured on the detailed die in {:.1f} s\n\n",
                        table.size(), table.calibration_wall_s());
    }
    text += "  die   time        TFLOPS   comm        exposed     overlapped\n";
    for (const auto& s : per_die_summary) {
        text += fmt::format(
            "  {:<4}  {:<10}  {:7.1f}  {:<10}  {:<10}  {:<10}\n", s["die"].get<uint32_t>(),
            units::format_time_ps(static_cast<int64_t>(s["sim_time_ns"].get<double>() * 1e3)),
            s["achieved_tflops"].get<double>(),
            units::format_time_ps(static_cast<int64_t>(s["comm_time_ns"].get<double>() * 1e3)),
            units::format_time_ps(static_cast<int64_t>(s["comm_exposed_ns"].get<double>() * 1e3)),
            units::format_time_ps(static_cast<int64_t>(s["comm_overlap_ns"].get<double>() * 1e3)));
    }
    text += fmt::format("\n  wall time {:.2f} s; {} kernel delta cycles, {} network events\n",
                        wall_s, deltas, node.network().stats().events);
    return text;
}

// The set's members as the run needs them: each die's parameters and overrides (with its
// --die-set keys), a reader for a detailed die or the ops of a fast one, and the counts the
// progress lines show.
struct Members {
    std::vector<std::unique_ptr<trace::TraceReader>> readers;  // detailed dies
    std::vector<std::vector<SetOp>> fast_ops;                  // fast dies
    std::vector<DieParams> die_params;
    std::vector<std::vector<std::string>> die_overrides;
    uint64_t total_ops = 0;        // for the progress line
    std::size_t measurements = 0;  // distinct fast ops the table has not measured
};

Members read_members(const SupernodeOptions& options, const Platform& platform, const TraceSet& set,
                     OpTimeTable& table, ProgressLine::Mode progress_mode) {
    std::map<uint32_t, std::vector<std::string>> per_die;
    for (const std::string& o : options.die_overrides) {
        const auto [die, kv] = split_die_override(o);
        if (die >= set.dies)
            throw InputError(fmt::format("--die-set {}: the set has dies 0..{}", o, set.dies - 1));
        per_die[die].push_back(kv);
    }
    if (options.fidelity != "detailed" && options.fidelity != "fast") {
        throw InputError("--fidelity: expected detailed or fast, got '" + options.fidelity + "'");
    }
    for (uint32_t d : options.detailed_dies) {
        if (d >= set.dies)
            throw InputError(fmt::format("--detailed-dies: die {} is outside the set's dies 0..{}",
                                         d, set.dies - 1));
    }
    auto is_fast = [&](uint32_t die) {
        return options.fidelity == "fast" &&
               std::find(options.detailed_dies.begin(), options.detailed_dies.end(), die) ==
                   options.detailed_dies.end();
    };
    Members m;
    m.readers.resize(set.files.size());
    m.fast_ops.resize(set.files.size());
    m.die_overrides.resize(set.files.size());
    std::set<std::string> to_measure;
    for (std::size_t i = 0; i < set.files.size(); ++i) {
        const auto& [die, path] = set.files[i];
        if (die >= set.dies)
            throw InputError(fmt::format("{}: die {} is outside the set's {} dies", path.string(),
                                         die, set.dies));
        m.die_overrides[i] = options.overrides;
        if (per_die.count(die))
            m.die_overrides[i].insert(m.die_overrides[i].end(), per_die[die].begin(),
                                      per_die[die].end());
        m.die_params.push_back(per_die.count(die)
                                   ? load_platform(options.platform, m.die_overrides[i]).die
                                   : platform.die);
        if (is_fast(die)) {
            m.fast_ops[i] = load_set_ops(path.string());
            m.measurements += table.count_unmeasured(m.fast_ops[i], m.die_overrides[i], to_measure);
            m.total_ops += m.fast_ops[i].size();
        } else {
            m.readers[i] = std::make_unique<trace::TraceReader>(path.string());
            if (progress_mode != ProgressLine::Mode::kOff)
                m.total_ops += trace::estimate_op_count(path.string());
        }
    }
    return m;
}

// Measures the fast dies' distinct ops on the detailed die (child processes, before anything is
// elaborated here), with a scratch directory removed afterwards, also on error.
void calibrate_fast_dies(const Members& m, const SupernodeOptions& options, OpTimeTable& table,
                         ProgressLine::Mode progress_mode) {
    if (m.measurements == 0) return;
    ProgressLine progress("calibrating fast dies", "distinct ops", m.measurements, progress_mode);
    const fs::path scratch =
        fs::temp_directory_path() / ("asim-calibration-" + std::to_string(::getpid()));
    try {
        for (std::size_t i = 0; i < m.fast_ops.size(); ++i) {
            if (!m.fast_ops[i].empty()) {
                table.calibrate(m.fast_ops[i], options.platform, m.die_overrides[i],
                                scratch.string(), &progress);
            }
        }
    } catch (...) {
        fs::remove_all(scratch);
        throw;
    }
    fs::remove_all(scratch);
    progress.finish(table.measured());
}

// The run's timeline: a group per die and one for the network, whose links' traffic the
// network reports as it flows.
std::unique_ptr<Timeline> make_timeline(const SupernodeOptions& options, const TraceSet& set,
                                        Supernode& node) {
    TimelineOptions o = options.timeline_options;
    o.all_cores_by_default = false;  // 8 to 15,488 dies: ops per die; pipes on request
    auto timeline = std::make_unique<Timeline>(o);
    for (const auto& [die, path] : set.files) timeline->declare_group("die" + std::to_string(die));
    timeline->declare_group("network");
    const Topology& topo = node.topology();
    auto tracks =
        std::make_shared<std::vector<Timeline::TrackId>>(topo.links().size(), Timeline::kNoTrack);
    node.network().set_traffic_observer(
        [t = timeline.get(), tracks, &topo](uint32_t link, int64_t from, int64_t to, double bytes) {
            Timeline::TrackId& track = (*tracks)[link];
            if (track == Timeline::kNoTrack)
                track = t->counter_track("network", topo.link_name(link));
            t->add_bytes_over(track, from, to, bytes);
        });
    return timeline;
}

// After the kernel stopped: a failure is rethrown; work left undone is the time limit's or a
// deadlock's, reported with what each die waits for.
void check_finished(Supernode& node, const FailureSink& failures, const SupernodeOptions& options,
                    Picoseconds max_sim_time_ps) {
    failures.rethrow_if_failed();
    const std::string unfinished = node.unfinished();
    if (unfinished.empty()) return;
    if (stopped_by_limit(max_sim_time_ps)) {
        throw SimulationError("watchdog: simulated time limit " +
                              units::format_time_ps(options.max_sim_time_ps) +
                              " reached:" + unfinished + node.bridge().waiting_report());
    }
    throw SimulationError(
        "deadlock: the dies stopped with work pending (a collective some members never "
        "reach?):" +
        unfinished + node.bridge().waiting_report());
}

// summary.json's "summary": the step (the slowest die), per-die summaries, pool tiers, the
// network's totals and the fast-op table's.
nlohmann::json run_summary(Supernode& node, StatsRegistry& stats, const OpTimeTable& table,
                           std::size_t dies, double wall_s) {
    nlohmann::json per_die_summary = nlohmann::json::array();
    double step_ns = 0, flops = 0;
    for (std::size_t i = 0; i < node.members(); ++i) {
        nlohmann::json s = member_summary(node, i, stats, wall_s);
        step_ns = std::max(step_ns, s["sim_time_ns"].get<double>());
        flops += s["flops"].get<double>();
        per_die_summary.push_back(s);
    }
    nlohmann::json tiers = pool_tiers(per_die_summary);
    // Payload bytes the links carried: a byte that crosses three links counts three times.
    double network_link_bytes = 0;
    for (double b : node.network().link_bytes()) network_link_bytes += b;
    nlohmann::json summary = {
        {"sim_time_ns", step_ns},
        {"wall_s", wall_s},
        {"dies", dies},
        {"fast_op_table",
         {{"distinct_ops", table.size()}, {"calibration_wall_s", table.calibration_wall_s()}}},
        {"flops", flops},
        {"collectives", node.bridge().collectives_started()},
        {"network_events", node.network().stats().events},
        {"network_link_bytes", network_link_bytes},
        {"per_die", per_die_summary},
    };
    if (!tiers.empty()) summary["tiers"] = std::move(tiers);
    return summary;
}

}  // namespace

std::string run_supernode_job(const SupernodeOptions& options) {
    const auto wall_start = std::chrono::steady_clock::now();
    set_kernel_time_resolution();

    // Everything that can be wrong with the input is found before the simulation starts.
    const Platform platform = load_platform(options.platform, options.overrides);
    if (!platform.network) {
        throw InputError(
            "platform " + platform.name +
            " has no network: section; a trace set for several dies needs a "
            "supernode platform (supernode8_ring, cloudmatrix384, atlas950_8192, ...)");
    }
    NetworkParams net = *platform.network;
    for (const std::string& f : options.faults) net.faults.push_back(parse_fault_option(f));
    const TraceSet set = read_trace_set_index(index_path(options.index));
    check_collectives_agree(set);  // a size the members disagree on: exit 2 now, not mid-run
    AtomicOutputDir out(options.out_dir);  // an unusable --out is found before anything runs
    auto topology = std::make_unique<const Topology>(net.topology);
    if (set.dies > topology->dies()) {
        throw InputError(fmt::format("trace set '{}' spans {} dies; platform {} has {}", set.name,
                                     set.dies, platform.name, topology->dies()));
    }
    const ProgressLine::Mode progress_mode =
        options.progress ? ProgressLine::mode_from_environment() : ProgressLine::Mode::kOff;
    OpTimeTable table;
    Members members = read_members(options, platform, set, table, progress_mode);
    calibrate_fast_dies(members, options, table, progress_mode);

    StatsRegistry stats;
    FailureSink failures;
    Supernode node(platform, net, std::move(topology), stats, failures);
    std::unique_ptr<Timeline> timeline =
        options.timeline ? make_timeline(options, set, node) : nullptr;
    for (std::size_t i = 0; i < set.files.size(); ++i) {
        const uint32_t die = set.files[i].first;
        if (members.readers[i]) {
            node.add_detailed(die, members.die_params[i], *members.readers[i],
                              options.util_window_ps, timeline.get());
        } else {
            std::vector<FastOp> ops;
            for (const SetOp& s : members.fast_ops[i])
                ops.push_back(table.fast_op(s, members.die_overrides[i]));
            members.fast_ops[i].clear();
            node.add_fast(die, std::move(ops), timeline != nullptr);
        }
    }
    // Every die reports its own count of ops done; the line shows their sum.
    ProgressLine progress(options.progress_what, "ops", members.total_ops, progress_mode);
    uint64_t ops_done = 0;
    std::vector<uint64_t> die_ops_done(set.files.size(), 0);
    if (progress.enabled()) {
        node.set_progress([&](std::size_t member, uint64_t ops) {
            ops_done += ops - die_ops_done[member];
            die_ops_done[member] = ops;
            progress.update_with(ops_done, simulated_time_detail);
        });
    }
    const auto max_sim_time_ps =
        static_cast<Picoseconds>(std::max<int64_t>(0, options.max_sim_time_ps));
    run_kernel(max_sim_time_ps);
    progress.finish(ops_done);
    check_finished(node, failures, options, max_sim_time_ps);
    node.finalize_stats();

    const double wall_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
    const nlohmann::json summary = run_summary(node, stats, table, set.files.size(), wall_s);
    const std::string text = summary_text(platform, set, net, table, node, summary["per_die"],
                                          summary["sim_time_ns"].get<double>(), wall_s);
    write_run_outputs(out, platform, options.index, summary, stats, wall_s, text);
    std::string ops = ops_csv_header();
    for (std::size_t i = 0; i < set.files.size(); ++i) {
        // A fast die's traffic per op is that of its calibration run (op_time_table.h).
        append_ops_csv(ops, node.ledger(i), set.files[i].first, members.die_params[i]);
    }
    out.write("ops.csv", ops);
    if (timeline) {
        for (std::size_t i = 0; i < set.files.size(); ++i) {
            const std::string group = "die" + std::to_string(set.files[i].first);
            record_op_tracks(*timeline, group, node.ledger(i), members.die_params[i]);
            if (const Die* d = node.detailed(i)) record_cube_utilisation(*timeline, group, *d);
        }
        write_timeline(out, *timeline, options.timeline_gzip);
    }
    out.commit();
    return text;
}

}  // namespace asim

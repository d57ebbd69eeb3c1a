#include "testbenches/trace_replay/run_job.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <sstream>

#include <fmt/format.h>
#include <systemc>

#include "models/chip/die/die.h"
#include "models/common/kernel.h"
#include "models/common/atomic_output.h"
#include "models/common/clock_domain.h"
#include "models/common/errors.h"
#include "models/common/failure_sink.h"
#include "models/common/stats.h"
#include "models/common/trace.h"
#include "models/common/units.h"
#include "platforms/platform.h"
#include "testbenches/trace_replay/builtin_traces.h"
#include "testbenches/trace_replay/functional_check.h"
#include "testbenches/trace_replay/op_table.h"
#include "testbenches/trace_replay/op_timeline.h"
#include "testbenches/trace_replay/summary.h"

namespace asim {

namespace {

std::unique_ptr<trace::TraceReader> open_trace(const std::string& name, std::string& description) {
    if (name.rfind("builtin:", 0) == 0) {
        BuiltinTrace t = builtin_trace(name);
        description = t.description + " [" + t.name + "]";
        return std::make_unique<trace::TraceReader>(std::make_unique<std::istringstream>(t.text), t.name);
    }
    auto reader = std::make_unique<trace::TraceReader>(name);
    description = name + (reader->header().name.empty() ? "" : " (" + reader->header().name + ")");
    return reader;
}

// A progress line on stderr, at most ten times a second, for interactive runs.
class ProgressLine {
public:
    explicit ProgressLine(bool enabled) : m_enabled(enabled) {}
    ~ProgressLine() {
        if (m_shown) std::fprintf(stderr, "\r\033[K");
    }
    void update(uint64_t ops) {
        if (!m_enabled) return;
        const auto now = std::chrono::steady_clock::now();
        if (now - m_last < std::chrono::milliseconds(100)) return;
        m_last = now;
        m_shown = true;
        std::fprintf(stderr, "\r\033[K[ascend-sim] %llu ops done, simulated %s",
                     static_cast<unsigned long long>(ops),
                     units::format_time_ps(static_cast<int64_t>(sc_core::sc_time_stamp().value())).c_str());
        std::fflush(stderr);
    }

private:
    bool m_enabled;
    bool m_shown = false;
    std::chrono::steady_clock::time_point m_last{};
};

}  // namespace

std::string run_job(const RunOptions& options) {
    const auto wall_start = std::chrono::steady_clock::now();
    set_kernel_time_resolution();

    // Everything that can be wrong with the input is found before the simulation starts.
    Platform platform = load_platform(options.platform, options.overrides);
    std::string trace_description;
    std::unique_ptr<trace::TraceReader> reader = open_trace(options.trace, trace_description);
    AtomicOutputDir out(options.out_dir);

    StatsRegistry stats;
    FailureSink failures;
    Die die("die", platform.die, stats, failures);
    die.set_util_window(options.util_window_ps);
    die.dispatcher().set_trace(reader.get());
    ProgressLine progress(options.progress);
    die.dispatcher().set_progress([&progress](uint64_t ops) { progress.update(ops); });
    FunctionalMemory functional_memory;
    FunctionalCheck functional_check(functional_memory);
    if (options.functional) {
        die.set_functional_memory(&functional_memory);
        die.dispatcher().set_observer(&functional_check);
    }
    std::unique_ptr<Timeline> timeline;
    if (options.timeline) {
        timeline = std::make_unique<Timeline>(options.timeline_options);
        timeline->declare_group("die");  // the op tracks, shown first
        die.record_to(timeline.get());
        die.dispatcher().ledger().keep_deps(true);
    }

    run_kernel(static_cast<Picoseconds>(std::max<int64_t>(0, options.max_sim_time_ps)));
    failures.rethrow_if_failed();
    if (!die.dispatcher().finished()) {
        const std::string done = std::to_string(die.dispatcher().ops_completed()) + " ops completed";
        if (stopped_by_limit(static_cast<Picoseconds>(std::max<int64_t>(0, options.max_sim_time_ps)))) {
            throw SimulationError("watchdog: simulated time limit " +
                                  units::format_time_ps(options.max_sim_time_ps) + " reached; " + done);
        }
        throw SimulationError("deadlock: the simulation ran out of events with work pending; " + done);
    }
    die.finalize_stats();

    const double wall_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
    nlohmann::json summary = make_summary(die, wall_s);
    if (options.functional) {
        if (functional_check.mismatches() != 0) {
            throw SimulationError("functional check failed: " + std::to_string(functional_check.mismatches()) +
                                  " elements differ from the reference; first: " + functional_check.first_mismatch());
        }
        summary["functional"] = functional_check.summary();
    }
    const uint64_t deltas = sc_core::sc_delta_count();
    std::string text = format_summary(
        summary, platform.name + (platform.description.empty() ? "" : " (" + platform.description + ")"),
        trace_description, deltas);
    if (options.functional) {
        const auto& f = summary["functional"];
        text += fmt::format("\n  functional check      {} matmuls, {} elements, all within tolerance (max error {:.3g} "
                            "of sum |a b|, tolerance {:.3g})\n",
                            f["matmuls_checked"].get<uint64_t>(), f["elements"].get<uint64_t>(),
                            f["max_error_relative_to_sum_abs_products"].get<double>(), f["tolerance"].get<double>());
    }
    write_run_outputs(out, platform, options.trace, summary, stats, wall_s, text);
    std::string ops = ops_csv_header();
    append_ops_csv(ops, die.dispatcher().ledger(), 0, platform.die);
    out.write("ops.csv", ops);
    if (timeline) {
        record_op_tracks(*timeline, "die", die.dispatcher().ledger(), platform.die);
        write_timeline(out, *timeline, options.timeline_gzip);
    }
    out.commit();
    return text;
}

}  // namespace asim

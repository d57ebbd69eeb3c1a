#include "testbenches/trace_replay/run_job.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <sstream>
#include <systemc>

#include "models/chip/die/die.h"
#include "models/common/atomic_output.h"
#include "models/common/clock_domain.h"
#include "models/common/errors.h"
#include "models/common/failure_sink.h"
#include "models/common/kernel.h"
#include "models/common/stats.h"
#include "models/common/trace.h"
#include "models/common/units.h"
#include "platforms/platform.h"
#include "testbenches/command/progress.h"
#include "testbenches/trace_replay/builtin_traces.h"
#include "testbenches/trace_replay/functional_check.h"
#include "testbenches/trace_replay/op_table.h"
#include "testbenches/trace_replay/op_timeline.h"
#include "testbenches/trace_replay/summary.h"

namespace asim {

namespace {

// With `count_ops`, `ops` is set to about how many ops the trace holds (0: unknown), for the
// progress line (a read of the file: done only when a progress line is shown).
std::unique_ptr<trace::TraceReader> open_trace(const std::string& name, std::string& description,
                                               bool count_ops, uint64_t& ops) {
    if (name.rfind("builtin:", 0) == 0) {
        BuiltinTrace t = builtin_trace(name);
        description = t.description + " [" + t.name + "]";
        if (count_ops) ops = trace::estimate_op_count_of_text(t.text);
        return std::make_unique<trace::TraceReader>(std::make_unique<std::istringstream>(t.text),
                                                    t.name);
    }
    if (count_ops) ops = trace::estimate_op_count(name);
    auto reader = std::make_unique<trace::TraceReader>(name);
    description = name + (reader->header().name.empty() ? "" : " (" + reader->header().name + ")");
    return reader;
}

}  // namespace

std::string run_job(const RunOptions& options) {
    const auto wall_start = std::chrono::steady_clock::now();
    set_kernel_time_resolution();

    // Everything that can be wrong with the input is found before the simulation starts.
    Platform platform = load_platform(options.platform, options.overrides);
    std::string trace_description;
    const ProgressLine::Mode progress_mode =
        options.progress ? ProgressLine::mode_from_environment() : ProgressLine::Mode::kOff;
    uint64_t trace_ops = 0;
    std::unique_ptr<trace::TraceReader> reader = open_trace(
        options.trace, trace_description, progress_mode != ProgressLine::Mode::kOff, trace_ops);
    AtomicOutputDir out(options.out_dir);

    StatsRegistry stats;
    FailureSink failures;
    Die die("die", platform.die, stats, failures);
    die.set_util_window(options.util_window_ps);
    die.dispatcher().set_trace(reader.get());
    ProgressLine progress(options.progress_what, "ops", trace_ops, progress_mode);
    if (progress.enabled()) {
        die.dispatcher().set_progress(
            [&progress](uint64_t ops) { progress.update_with(ops, simulated_time_detail); });
    }
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
        const std::string done =
            std::to_string(die.dispatcher().ops_completed()) + " ops completed";
        if (stopped_by_limit(
                static_cast<Picoseconds>(std::max<int64_t>(0, options.max_sim_time_ps)))) {
            throw SimulationError("watchdog: simulated time limit " +
                                  units::format_time_ps(options.max_sim_time_ps) + " reached; " +
                                  done);
        }
        throw SimulationError("deadlock: the simulation ran out of events with work pending; " +
                              done);
    }
    progress.finish(die.dispatcher().ops_completed());
    die.finalize_stats();

    const double wall_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
    nlohmann::json summary = make_summary(die, wall_s);
    if (options.functional) {
        if (functional_check.mismatches() != 0) {
            throw SimulationError(
                "functional check failed: " + std::to_string(functional_check.mismatches()) +
                " elements differ from the reference; first: " + functional_check.first_mismatch());
        }
        summary["functional"] = functional_check.summary();
    }
    const uint64_t deltas = sc_core::sc_delta_count();
    std::string text = format_summary(
        summary,
        platform.name + (platform.description.empty() ? "" : " (" + platform.description + ")"),
        trace_description, deltas);
    if (options.functional) {
        const auto& f = summary["functional"];
        text += fmt::format(
            "\n  functional check      {} matmuls, {} elements, all within tolerance (max error "
            "{:.3g} "
            "of sum |a b|, tolerance {:.3g})\n",
            f["matmuls_checked"].get<uint64_t>(), f["elements"].get<uint64_t>(),
            f["max_error_relative_to_sum_abs_products"].get<double>(),
            f["tolerance"].get<double>());
    }
    write_run_outputs(out, platform, options.trace, summary, stats, wall_s, text);
    std::string ops = ops_csv_header();
    append_ops_csv(ops, die.dispatcher().ledger(), 0, platform.die);
    out.write("ops.csv", ops);
    if (timeline) {
        record_op_tracks(*timeline, "die", die.dispatcher().ledger(), platform.die);
        record_cube_utilisation(*timeline, "die", die);
        write_timeline(out, *timeline, options.timeline_gzip);
    }
    out.commit();
    return text;
}

}  // namespace asim

// `ascend-sim cosim`: the prefetch-scheduler RTL against the C++ reference (DESIGN §5).
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <memory>

#include "models/common/errors.h"
#include "testbenches/command/command.h"
#include "testbenches/prefetch_scheduler/cosim_bench.h"

namespace asim {

static Command add_cosim_command(CLI::App& app) {
    struct State {
        cosim::CosimOptions options;
        bool inject_bug = false;
        bool no_scoreboard = false;
        bool no_assertions = false;
        int64_t seed = 1;  // signed, so that a negative seed is refused instead of wrapping
    };
    auto s = std::make_shared<State>();
    CLI::App* cmd = app.add_subcommand(
        "cosim",
        "co-simulate the Verilated H-JSD prefetch scheduler RTL against the C++ reference with a "
        "scoreboard and functional coverage; exit 1 on a mismatch");
    cmd->add_option("--seed", s->seed, "random seed")
        ->capture_default_str()
        ->check(CLI::Range(int64_t{0}, INT64_MAX));
    cmd->add_option("--cycles", s->options.cycles,
                    "cycles to run (constrained random), or at most (with --trace)")
        ->capture_default_str()
        ->check(CLI::Range(uint64_t{1}, uint64_t{1} << 40));
    cmd->add_option("--trace", s->options.trace,
                    "derive the stimulus from an op trace (file or builtin:NAME) instead of "
                    "constrained random");
    cmd->add_option("--waves", s->options.waves, "write the RTL's waveforms to this VCD file");
    cmd->add_flag(
        "--inject-bug", s->inject_bug,
        "run the RTL variant built with a known bug (an off-by-one in the eligibility window): the "
        "scoreboard must catch it");
    cmd->add_flag(
        "--no-scoreboard", s->no_scoreboard,
        "judge the RTL by the assertions of its bound checker alone (the reference still runs, for "
        "coverage)");
    cmd->add_flag("--no-assertions", s->no_assertions,
                  "switch the bound checker's assertions off: the scoreboard alone judges the RTL");
    return {cmd, [s] {
                s->options.seed = static_cast<uint64_t>(s->seed);
                if (s->inject_bug) s->options.variant = rtl::RtlVariant::kInjectedBug;
                s->options.scoreboard = !s->no_scoreboard;
                s->options.assertions = !s->no_assertions;
                const cosim::CosimResult r = cosim::run_cosim(s->options);
                std::cout << "stimulus: " << r.stimulus
                          << (s->inject_bug ? " (RTL with the injected bug)" : "")
                          << (s->no_scoreboard ? " (no scoreboard: the RTL's assertions only)" : "")
                          << (s->no_assertions ? " (assertions off: the scoreboard only)" : "")
                          << "\n";
                if (!r.passed) std::cout << r.mismatch;
                char line[256];
                std::snprintf(line, sizeof line,
                              "%s: %llu cycles, %llu requests (%llu bytes), %llu late drops, %llu "
                              "oversize drops; "
                              "issue-cycle tolerance %llu\n",
                              r.passed ? "PASS" : "FAIL", static_cast<unsigned long long>(r.cycles),
                              static_cast<unsigned long long>(r.issued),
                              static_cast<unsigned long long>(r.reference.issued_bytes),
                              static_cast<unsigned long long>(r.reference.late_drops),
                              static_cast<unsigned long long>(r.reference.oversize_drops),
                              static_cast<unsigned long long>(cosim::kIssueCycleTolerance));
                std::cout << line << r.coverage.report();
                std::snprintf(line, sizeof line, "speed: %.0f cycles/s (%.2f s wall)\n",
                              r.cycles_per_s(), r.wall_s);
                std::cout << line;
                if (!s->options.waves.empty())
                    std::cout << "waveforms: " << s->options.waves << "\n";
                return r.passed ? kExitOk : kExitSimulationFailure;
            }};
}

ASIM_REGISTER_COMMAND("cosim", add_cosim_command);

}  // namespace asim

// ascend-sim: the command line. One binary, a subcommand per job (DESIGN §8); each job registers
// its own subcommand (testbenches/command/command.h).
// Exit codes: 0 success, 2 bad usage / configuration / trace, 1 simulation failure.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <systemc>

#include "models/common/config.h"
#include "models/common/errors.h"
#include "models/common/log.h"
#include "testbenches/command/command.h"
#include "testbenches/command/provenance.h"

namespace {

// CLI11 2.1 reads an unsigned option with strtoull, which takes "-1" as 2^64-1, and a real option
// with strtod, which takes "nan" and "inf". Every option bound to such a type gets a check that
// refuses them before conversion, so no job ever sees a wrapped count or a NaN.
const CLI::Validator kNotNegative(
    [](std::string& value) -> std::string {
        const auto first = value.find_first_not_of(" \t");
        if (first != std::string::npos && value[first] == '-')
            return "must not be negative, got '" + value + "'";
        return "";
    },
    "", "not negative");

const CLI::Validator kFinite(
    [](std::string& value) -> std::string {
        char* end = nullptr;
        const double v = std::strtod(value.c_str(), &end);
        if (end != value.c_str() && !std::isfinite(v))
            return "must be a finite number, got '" + value + "'";
        return "";
    },
    "", "finite");

void check_numbers(CLI::App* app) {
    for (CLI::Option* option : app->get_options()) {
        const std::string type = option->get_type_name();
        if (type == "UINT") option->check(kNotNegative);
        if (type == "FLOAT") option->check(kFinite);
    }
    for (CLI::App* sub : app->get_subcommands([](CLI::App*) { return true; })) check_numbers(sub);
}

std::string command_path(const CLI::App* app) {
    std::string path;
    for (const CLI::App* a = app; a != nullptr; a = a->get_parent()) {
        path = (a->get_parent() ? a->get_name() : std::string("ascend-sim")) +
               (path.empty() ? "" : " " + path);
    }
    return path;
}

// CLI11 says "A subcommand is required" (or lists the word as unexpected) when the word is not a
// subcommand it knows; name it, with what was meant. Returns "" when that is not the case.
std::string unknown_subcommand(CLI::App* app) {
    // The deepest subcommand that was recognised.
    CLI::App* current = app;
    for (;;) {
        const auto parsed = current->get_subcommands();
        if (parsed.empty()) break;
        current = parsed.front();
    }
    const auto subs = current->get_subcommands([](CLI::App*) { return true; });
    if (subs.empty()) return "";
    const auto rest = current->remaining();
    if (rest.empty() || rest.front().empty() || rest.front()[0] == '-') return "";
    std::vector<std::string> names;
    for (const CLI::App* s : subs) names.push_back(s->get_name());
    std::string list;
    for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
    const std::string close = asim::closest_match(rest.front(), names);
    return "unknown subcommand '" + rest.front() + "' of " + command_path(current) +
           (close.empty() ? "" : "; did you mean '" + close + "'?") + " (one of " + list + ")";
}

}  // namespace

// SystemC prints its banner before it calls sc_main, so the switch that silences it has to be
// set in main, which then hands over to the kernel as the library's own main would.
int main(int argc, char* argv[]) {
    setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
    return sc_core::sc_elab_and_sim(argc, argv);
}

int sc_main(int argc, char* argv[]) {
    asim::record_command_line(argc, argv);  // stats.json's meta.command_line
    // The kernel's informational reports (e.g. "simulation stopped by user" when a run is
    // stopped on an error) would only repeat what our own error message says.
    sc_core::sc_report_handler::set_actions(sc_core::SC_INFO, sc_core::SC_DO_NOTHING);

    CLI::App app{
        "ascend-sim: cycle-approximate SystemC/TLM-2.0 model of an Ascend-960-class AI chip"};
    app.set_version_flag("--version", std::string("ascend-sim ") + ASIM_VERSION);
    app.require_subcommand(1);
    std::string log_spec;
    app.add_option("--log", log_spec,
                   "log levels: LEVEL or PATH=LEVEL[,PATH=LEVEL...] with LEVEL one of error, warn, "
                   "info, debug, trace (default warn)");
    // Every job registered itself (testbenches/command/command.h); --help lists them by name.
    auto entries = asim::command_registry();
    std::sort(entries.begin(), entries.end(),
              [](const auto& a, const auto& b) { return a.name < b.name; });
    std::vector<asim::Command> commands;
    for (const auto& entry : entries) {
        commands.push_back(entry.add(app));
        if (commands.back().subcommand->get_name() != entry.name) {
            std::cerr << "ascend-sim: internal error: command registered as '" << entry.name
                      << "' adds '" << commands.back().subcommand->get_name() << "'\n";
            return asim::kExitSimulationFailure;
        }
    }

    check_numbers(&app);

    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForVersion& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        // Every error of the command line reads like every other error: one line, prefixed.
        const std::string unknown = unknown_subcommand(&app);
        std::cerr << "ascend-sim: error: " << (unknown.empty() ? std::string(e.what()) : unknown)
                  << " (see ascend-sim --help)\n";
        return asim::kExitBadInput;
    }

    try {
        if (!log_spec.empty()) asim::configure_logging(log_spec);
        for (const auto& c : commands) {
            if (c.subcommand->parsed()) return c.action();
        }
    } catch (const asim::InputError& e) {
        std::cerr << "ascend-sim: error: " << e.what() << "\n";
        return asim::kExitBadInput;
    } catch (const asim::SimulationError& e) {
        std::cerr << "ascend-sim: error: simulation failed: " << e.what() << "\n";
        return asim::kExitSimulationFailure;
    } catch (const std::exception& e) {
        std::cerr << "ascend-sim: error: " << e.what() << "\n";
        return asim::kExitSimulationFailure;
    }
    return asim::kExitBadInput;  // unreachable: CLI11 requires one subcommand
}

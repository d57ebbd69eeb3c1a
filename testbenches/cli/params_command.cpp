// `ascend-sim params`: every platform key the components declare (models/common/params.h), with
// its type, unit, default, value on a platform, range or choices and description; as a table,
// as JSON, or as the Markdown table a component README carries.
#include <iostream>
#include <memory>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "models/common/errors.h"
#include "models/common/params.h"
#include "platforms/platform.h"
#include "testbenches/command/command.h"

namespace asim {

namespace {

nlohmann::json rows_json(const std::vector<ParamRow>& rows) {
    auto out = nlohmann::json::array();
    for (const ParamRow& row : rows) {
        const Param& p = *row.param;
        nlohmann::json o = {
            {"key", row.key},
            {"type", to_string(p.type())},
            {"unit", p.unit()},
            {"default",
             p.default_text() ? nlohmann::json(*p.default_text()) : nlohmann::json(nullptr)},
            {"value", row.value ? nlohmann::json(*row.value) : nlohmann::json(nullptr)},
            {"choices", p.type() == ParamType::kChoice ? nlohmann::json(p.choices())
                                                       : nlohmann::json::array()},
            {"range", p.value_range()
                          ? nlohmann::json::array({p.value_range()->min, p.value_range()->max})
                          : nlohmann::json(nullptr)},
            {"required", p.required()},
            {"description", p.description()},
            {"source", p.source_text()},
            {"implementation", row.implementation},
            {"component", row.title}};
        if (!p.default_from().empty()) o["default_from"] = p.default_from();
        out.push_back(std::move(o));
    }
    return out;
}

std::string rows_text(const std::vector<ParamRow>& rows, const std::string& platform) {
    std::string out;
    std::string title;
    for (const ParamRow& row : rows) {
        const Param& p = *row.param;
        if (row.title != title) {
            title = row.title;
            out += (out.empty() ? "" : "\n") + title + "\n";
        }
        std::string key = row.key;
        if (!row.implementation.empty()) key += " (" + row.implementation + ")";
        std::string unit = p.unit().empty() ? "" : " [" + p.unit() + "]";
        out += fmt::format("  {:<44} {}{}", key, to_string(p.type()), unit);
        out += fmt::format("  default {}", p.default_display());
        if (row.value) out += fmt::format("  {} {}", platform, *row.value);
        if (const std::string range = p.range_text(); !range.empty()) {
            out +=
                fmt::format("  {} {}", p.type() == ParamType::kChoice ? "choices" : "range", range);
        }
        out += "\n      " + p.description();
        if (!p.source_text().empty()) out += " (" + p.source_text() + ")";
        out += "\n";
    }
    return out;
}

}  // namespace

static Command add_params_command(CLI::App& app) {
    struct State {
        std::string platform = kDefaultPlatform;
        std::vector<std::string> overrides;
        bool json = false;
        std::string markdown;
        std::string prefix;
    };
    auto s = std::make_shared<State>();
    CLI::App* cmd = app.add_subcommand(
        "params",
        "list every platform key the components declare: type, unit, default, the value on a "
        "platform, range or choices, description and source (implementations' own keys included)");
    cmd->add_option("--platform,-p", s->platform, platform_help() + "; its values are shown")
        ->capture_default_str();
    cmd->add_option("--set", s->overrides, "override a config key: KEY=VALUE (repeatable)");
    cmd->add_option("--prefix", s->prefix, "only the keys under this dotted path, e.g. die.l2");
    auto* json = cmd->add_flag(
        "--json", s->json,
        "a JSON list of objects: key, type, unit, default, value, choices, range, required, "
        "description, source, implementation, component");
    cmd->add_option(
           "--markdown", s->markdown,
           "the Markdown table of the keys under this dotted path, as in the component READMEs "
           "(declarations only, no platform)")
        ->excludes(json);
    return {cmd, [s] {
                if (!s->markdown.empty()) {
                    const std::string md = param_markdown(s->markdown);
                    if (md.find("\n| `") == std::string::npos) {
                        throw InputError("--markdown " + s->markdown +
                                         ": no declared key under this path");
                    }
                    std::cout << md;
                    return kExitOk;
                }
                const Platform platform = load_platform(s->platform, s->overrides);
                std::vector<ParamRow> rows;
                for (ParamRow& row : param_rows(&platform.config)) {
                    if (key_under(row.key, s->prefix)) rows.push_back(std::move(row));
                }
                if (rows.empty())
                    throw InputError("--prefix " + s->prefix + ": no declared key under this path");
                if (s->json) {
                    std::cout << rows_json(rows).dump(2) << "\n";
                } else {
                    std::cout << rows_text(rows, platform.name);
                }
                return kExitOk;
            }};
}

ASIM_REGISTER_COMMAND("params", add_params_command);

}  // namespace asim

#include "models/common/log.h"

#include <cstdio>
#include <map>
#include <sstream>

#include <systemc>

#include "models/common/errors.h"

namespace asim {

namespace {
struct LogTable {
    LogLevel default_level = LogLevel::kWarn;
    std::map<std::string, LogLevel, std::less<>> by_prefix;
};

LogTable& table() {
    static LogTable t;
    return t;
}

LogLevel parse_level(std::string_view text) {
    if (text == "error") return LogLevel::kError;
    if (text == "warn") return LogLevel::kWarn;
    if (text == "info") return LogLevel::kInfo;
    if (text == "debug") return LogLevel::kDebug;
    if (text == "trace") return LogLevel::kTrace;
    throw InputError("--log: unknown level '" + std::string(text) +
                     "' (use error, warn, info, debug or trace)");
}

const char* level_name(LogLevel l) {
    switch (l) {
        case LogLevel::kError:
            return "error";
        case LogLevel::kWarn:
            return "warn";
        case LogLevel::kInfo:
            return "info";
        case LogLevel::kDebug:
            return "debug";
        case LogLevel::kTrace:
            return "trace";
    }
    return "?";
}
}  // namespace

void configure_logging(std::string_view spec) {
    LogTable fresh;
    std::string item;
    std::istringstream in{std::string(spec)};
    while (std::getline(in, item, ',')) {
        if (item.empty()) throw InputError("--log: empty item in '" + std::string(spec) + "'");
        const auto eq = item.find('=');
        if (eq == std::string::npos) {
            fresh.default_level = parse_level(item);
        } else {
            if (eq == 0) throw InputError("--log: missing module path in '" + item + "'");
            fresh.by_prefix[item.substr(0, eq)] = parse_level(item.substr(eq + 1));
        }
    }
    table() = std::move(fresh);
}

void reset_logging() { table() = LogTable{}; }

LogLevel log_level_for(std::string_view path) {
    const LogTable& t = table();
    if (t.by_prefix.empty()) return t.default_level;
    // Longest prefix that ends at a path-component boundary.
    std::string_view p = path;
    while (true) {
        auto it = t.by_prefix.find(p);
        if (it != t.by_prefix.end()) return it->second;
        const auto dot = p.rfind('.');
        if (dot == std::string_view::npos) return t.default_level;
        p = p.substr(0, dot);
    }
}

Logger::Logger(std::string path) : m_path(std::move(path)) {}

void Logger::write(LogLevel level, const std::string& message) const {
    const std::string when = sc_core::sc_is_running() || sc_core::sc_time_stamp().value() != 0
                                 ? sc_core::sc_time_stamp().to_string() + " "
                                 : std::string();
    std::fprintf(stderr, "%s%s [%s] %s\n", when.c_str(), level_name(level), m_path.c_str(),
                 message.c_str());
}

}  // namespace asim

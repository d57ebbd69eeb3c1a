// Logging with a level per module path. A component logs through a Logger named by its
// hierarchical path ("die.core3.mte2"); the level in force is the one set for the longest
// matching path prefix ("die.core3" covers "die.core3.mte2"), else the default level.
//
// The level table is process-wide on purpose: it is how this process is observed, not model
// state, and it is set once by the command line ("--log debug", "--log die.l2=trace,die=info").
// Messages go to stderr, prefixed with the simulated time when a simulation is running.
#pragma once

#include <string>
#include <string_view>

#include <fmt/format.h>

namespace asim {

enum class LogLevel { kError = 0, kWarn = 1, kInfo = 2, kDebug = 3, kTrace = 4 };

// Parses "LEVEL" or "path=LEVEL[,path=LEVEL...]" (a bare LEVEL sets the default).
// Throws InputError on an unknown level or malformed text.
void configure_logging(std::string_view spec);
// Back to the default: warn for everything.
void reset_logging();
LogLevel log_level_for(std::string_view path);

class Logger {
public:
    explicit Logger(std::string path);
    const std::string& path() const { return m_path; }
    bool enabled(LogLevel level) const { return level <= log_level_for(m_path); }

    template <typename... Args>
    void log(LogLevel level, fmt::format_string<Args...> f, Args&&... args) const {
        if (enabled(level)) write(level, fmt::format(f, std::forward<Args>(args)...));
    }
    template <typename... Args>
    void warn(fmt::format_string<Args...> f, Args&&... args) const {
        log(LogLevel::kWarn, f, std::forward<Args>(args)...);
    }
    template <typename... Args>
    void info(fmt::format_string<Args...> f, Args&&... args) const {
        log(LogLevel::kInfo, f, std::forward<Args>(args)...);
    }
    template <typename... Args>
    void debug(fmt::format_string<Args...> f, Args&&... args) const {
        log(LogLevel::kDebug, f, std::forward<Args>(args)...);
    }

private:
    void write(LogLevel level, const std::string& message) const;
    std::string m_path;
};

}  // namespace asim

#include "testbenches/command/progress.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <systemc>

#include "models/common/units.h"

namespace asim {

namespace {

constexpr auto kRedrawEvery = std::chrono::milliseconds(100);
constexpr auto kLineEvery = std::chrono::seconds(5);

}  // namespace

std::string simulated_time_detail() {
    return "simulated " +
           units::format_time_ps(static_cast<int64_t>(sc_core::sc_time_stamp().value()));
}

std::string format_duration(double seconds) {
    const auto s = static_cast<long long>(seconds + 0.5);
    if (s >= 3600) return fmt::format("{}h{:02}m", s / 3600, (s / 60) % 60);
    if (s >= 60) return fmt::format("{}m{:02}s", s / 60, s % 60);
    return fmt::format("{:.1f}s", seconds);
}

ProgressLine::Mode ProgressLine::mode_from_environment() {
    const char* env = std::getenv("ASCEND_SIM_PROGRESS");
    if (env != nullptr && *env != '\0') {
        if (std::strcmp(env, "0") == 0 || std::strcmp(env, "off") == 0) return Mode::kOff;
        if (std::strcmp(env, "lines") == 0) return Mode::kLines;
        if (std::strcmp(env, "tty") == 0) return Mode::kRedraw;
    }
    return ::isatty(STDERR_FILENO) != 0 ? Mode::kRedraw : Mode::kOff;
}

ProgressLine::ProgressLine(std::string what, std::string unit, uint64_t total, Mode mode)
    : m_what(std::move(what)),
      m_unit(std::move(unit)),
      m_total(total),
      m_mode(mode),
      m_start(std::chrono::steady_clock::now()) {}

ProgressLine::~ProgressLine() {
    // A command that fails half-way leaves no half-drawn line in front of its error.
    if (m_mode == Mode::kRedraw && m_shown) std::fprintf(stderr, "\r\033[K");
}

bool ProgressLine::due() {
    if (m_mode == Mode::kOff || m_finished) return false;
    const auto now = std::chrono::steady_clock::now();
    if (m_shown && now - m_last < (m_mode == Mode::kRedraw
                                       ? std::chrono::steady_clock::duration(kRedrawEvery)
                                       : std::chrono::steady_clock::duration(kLineEvery))) {
        return false;
    }
    m_last = now;
    return true;
}

void ProgressLine::update(uint64_t done, const std::string& detail) {
    if (due()) show(done, detail, false);
}

void ProgressLine::finish(uint64_t done) {
    if (m_finished) return;
    if (m_mode == Mode::kLines) show(done, "", true);
    if (m_mode == Mode::kRedraw && m_shown) std::fprintf(stderr, "\r\033[K");
    m_shown = false;
    m_finished = true;
    std::fflush(stderr);
}

void ProgressLine::show(uint64_t done, const std::string& detail, bool last) {
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - m_start).count();
    const double percent = m_total == 0 ? 0.0
                                        : 100.0 * static_cast<double>(std::min(done, m_total)) /
                                              static_cast<double>(m_total);
    std::string text = "[" + m_what + "]";
    if (m_unit.empty()) {
        text += last ? " done" : fmt::format(" {:.1f} %", percent);  // a fraction, no counts
    } else {
        text += fmt::format(" {}", done);
        if (m_total != 0) text += fmt::format("/{}", m_total);
        text += " " + m_unit;
        if (!last && m_total != 0) text += fmt::format(" ({:.1f} %)", percent);
    }
    if (last) {
        text += " in " + format_duration(elapsed);
    } else {
        if (!detail.empty()) text += ", " + detail;
        if (m_total != 0 && done != 0 && done < m_total && elapsed >= 1.0) {
            const double rest =
                elapsed * static_cast<double>(m_total - done) / static_cast<double>(done);
            text += ", ETA " + format_duration(rest);
        }
    }
    if (m_mode == Mode::kRedraw) {
        std::fprintf(stderr, "\r\033[K%s", text.c_str());
    } else {
        std::fprintf(stderr, "%s\n", text.c_str());
    }
    std::fflush(stderr);
    m_shown = true;
}

}  // namespace asim

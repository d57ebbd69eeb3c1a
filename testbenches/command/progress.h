// The progress line of a command that can run for more than a few seconds, on stderr:
//
//   [run] 1234/5678 ops (21.7 %), simulated 1.20 ms, ETA 12.0s
//
// On a terminal it is redrawn in place at most ten times a second and erased at the end, so the
// command's own output reads as without it. Elsewhere (a log, a pipe) nothing is printed unless
// ASCEND_SIM_PROGRESS=lines: then a line at the first update, one every 5 s after, and a last one
// with the wall time ("[run] 5678/5678 ops in 14.2s"). ASCEND_SIM_PROGRESS=0 silences it on a
// terminal too. The ETA assumes the rest goes at the average rate so far; it is shown once a
// second has passed and something is done. A total of 0 means unknown: counts without percent or
// ETA.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace asim {

class ProgressLine {
public:
    enum class Mode { kOff, kRedraw, kLines };
    // The mode for stderr now: ASCEND_SIM_PROGRESS (0/off, lines, tty), else kRedraw on a
    // terminal and kOff elsewhere.
    static Mode mode_from_environment();

    // `what` names the command or phase ("run", "calibrating fast dies"), `unit` what is counted;
    // an empty unit shows done / total as a percentage only (a fraction of work with no count).
    ProgressLine(std::string what, std::string unit, uint64_t total,
                 Mode mode = mode_from_environment());
    ~ProgressLine();
    ProgressLine(const ProgressLine&) = delete;
    ProgressLine& operator=(const ProgressLine&) = delete;

    // `done` so far and free text after the counts ("simulated 1.2 ms"); cheap when not due.
    void update(uint64_t done, const std::string& detail = "");
    // Like update, with the detail built only when a line is due.
    template <typename Detail>
    void update_with(uint64_t done, Detail&& detail) {
        if (due()) show(done, detail(), false);
    }
    // The end: erases the line on a terminal, prints the last line in kLines mode. Idempotent.
    void finish(uint64_t done);

    bool enabled() const { return m_mode != Mode::kOff; }

private:
    bool due();
    void show(uint64_t done, const std::string& detail, bool last);

    std::string m_what, m_unit;
    uint64_t m_total;
    Mode m_mode;
    bool m_shown = false, m_finished = false;
    std::chrono::steady_clock::time_point m_start, m_last;
};

// "simulated 1.20 ms": the SystemC kernel's time, as a progress line's detail.
std::string simulated_time_detail();

// "4.2s", "3m05s", "1h02m": a wall duration for a person.
std::string format_duration(double seconds);

}  // namespace asim

// Per-op durations for the fast fidelity, measured on the detailed die model: one single-op run
// per distinct op (same kind, dtype, shapes and tensor sizes; names, ids, dependencies and
// addresses do not count), each in a child process before the supernode simulation is elaborated.
// A generated trace set repeats the same few dozen ops over layers and dies, so thousands of dies
// cost a few dozen detailed runs.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "models/chip/die/fast_die.h"

namespace asim {

struct SetOp {
    trace::Op op;
    std::string signature;  // canonical JSON of what decides the op's time
    std::string json;       // the op as a one-op trace line (id 0, no deps)
};

// Reads a die's trace file: every op parsed (TraceReader: the usual checks) with its signature.
std::vector<SetOp> load_set_ops(const std::string& path);

class ProgressLine;

// Measured ops are keyed by the die's configuration (its overrides: `--set` and `--die-set` of
// that die) and the op's signature, so dies configured alike share measurements and a die with
// its own overrides (a derated clock) gets its own.
class OpTimeTable {
public:
    // Measures every compute op of `ops` not in the table yet for `overrides`, on `platform`
    // with `overrides`, in a scratch directory under `scratch`; `progress` (if given) counts the
    // ops measured.
    void calibrate(const std::vector<SetOp>& ops, const std::string& platform,
                   const std::vector<std::string>& overrides, const std::string& scratch,
                   ProgressLine* progress = nullptr);
    // How many measurements calibrate would make for `ops` with `overrides` that are not in
    // `seen` yet (added).
    std::size_t count_unmeasured(const std::vector<SetOp>& ops,
                                 const std::vector<std::string>& overrides,
                                 std::set<std::string>& seen) const;
    // The op as the fast die with `overrides` runs it: its measured duration and what it did in
    // memory then (the one-op run's HBM bytes and demand L2 hits / misses, all of which are the
    // op's).
    FastOp fast_op(const SetOp& op, const std::vector<std::string>& overrides) const;
    std::size_t size() const { return m_time.size(); }
    double calibration_wall_s() const { return m_wall_s; }
    uint64_t measured() const { return m_measured; }

private:
    static std::string key(const std::vector<std::string>& overrides, const std::string& signature);
    struct Traffic {
        uint64_t read = 0, write = 0, hits = 0, misses = 0;
    };
    std::map<std::string, Picoseconds> m_time;
    std::map<std::string, Traffic> m_traffic;
    double m_wall_s = 0;
    uint64_t m_measured = 0;  // ops calibrate has measured
};

}  // namespace asim

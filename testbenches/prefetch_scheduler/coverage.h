// Functional coverage of the prefetch-scheduler co-simulation: named bins, each with a goal,
// sampled every cycle from the stimulus and the reference's response.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "models/chip/hjsd/prefetch_scheduler_core.h"

namespace asim::cosim {

class Coverage {
public:
    struct Bin {
        std::string name;
        std::string what;
        uint64_t goal = 1;
        uint64_t hits = 0;
    };

    Coverage();
    // One cycle: the inputs, what the reference drove, and its state before and after the edge.
    void sample(const hjsd::Inputs& in, const hjsd::Outputs& out, const hjsd::Registers& regs,
                const hjsd::Counters& before, const hjsd::Counters& after,
                const hjsd::Candidate* head_before, std::size_t queued_before,
                std::size_t queued_after, const std::vector<uint64_t>& credit_before);
    void register_write(const hjsd::Registers& before, const hjsd::Registers& after);
    const std::vector<Bin>& bins() const { return m_bins; }
    std::size_t bins_hit() const;
    bool all_hit() const { return bins_hit() == m_bins.size(); }
    std::string report() const;

private:
    uint64_t& bin(std::size_t index);  // hits of the bin at this index (coverage.cpp lists them)
    std::vector<Bin> m_bins;
    bool m_was_credit_stalled[hjsd::kMaxPartitions] = {};
    bool m_issued_last = false;
    bool m_had_current = false;
    uint64_t m_last_op_start = 0;
    uint64_t m_last_op_start_est = 0;
};

}  // namespace asim::cosim

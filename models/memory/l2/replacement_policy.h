// Replacement policies for the L2, chosen by name in YAML (`die.l2.replacement`) from their
// registry (models/common/registry.h). A policy keeps its own per-line state and picks a victim
// among a contiguous range of ways (one partition of one set). Adding a policy is a file that
// registers it (replacement_policy.cpp has the built-in ones) and a line in CMakeLists.txt.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "models/common/registry.h"

namespace asim {

class ReplacementPolicy {
public:
    virtual ~ReplacementPolicy() = default;
    virtual void on_hit(std::size_t line) = 0;
    virtual void on_fill(std::size_t line) = 0;
    // A victim among lines [first, first + count) (count <= 64), all valid, skipping line
    // first + i when bit i of `keep` is set; returns first + count when every line is kept. (A
    // mask, not a predicate: the L2 keeps per-set masks of the lines it protects, and a call per
    // way showed in profiles.)
    virtual std::size_t victim(std::size_t first, std::size_t count, uint64_t keep) const = 0;

    // Where the per-line state of `line` lives (nullptr for a policy without any), and its size
    // per line: the L2 asks the host CPU to prefetch it (simulator speed only).
    const char* state_of(std::size_t line) const {
        return m_state ? m_state + line * m_state_bytes : nullptr;
    }
    std::size_t state_bytes() const { return m_state_bytes; }

protected:
    // A policy with per-line state keeps it in one array of `bytes`-sized entries (state_of()).
    void set_state(const void* state, std::size_t bytes) {
        m_state = static_cast<const char*>(state);
        m_state_bytes = bytes;
    }

private:
    const char* m_state = nullptr;
    std::size_t m_state_bytes = 0;
};

// Factory arguments: the number of lines, and where an age counter starts (tests start it near
// its 32-bit wrap; 0 otherwise).
Registry<ReplacementPolicy, std::size_t, uint32_t>& replacement_policy_registry();

}  // namespace asim

#include "models/memory/l2/replacement_policy.h"

#include <algorithm>
#include <vector>

#include "models/memory/l2/host_array.h"

namespace asim {

namespace {

// Victim = the line with the oldest stamp. LRU stamps on fill and on every hit; FIFO stamps on
// fill only, so hits do not refresh a line. Stamps are 32-bit (a 16-way set's are one host cache
// line); when the counter would wrap, every stamp is replaced by its rank, which keeps the order
// exactly.
class StampPolicy final : public ReplacementPolicy {
public:
    StampPolicy(std::size_t lines, bool stamp_on_hit, uint32_t first_stamp)
        : m_stamp(lines, 0u), m_clock(first_stamp), m_stamp_on_hit(stamp_on_hit) {
        set_state(m_stamp.data(), sizeof(uint32_t));
    }
    void on_hit(std::size_t line) override {
        if (m_stamp_on_hit) m_stamp[line] = next();
    }
    void on_fill(std::size_t line) override { m_stamp[line] = next(); }
    std::size_t victim(std::size_t first, std::size_t count, uint64_t keep) const override {
        // The least (stamp, way) of the lines not kept; a kept line ranks above every other.
        const uint32_t* stamp = &m_stamp[first];
        uint64_t least = ~uint64_t{0};
        for (std::size_t i = 0; i < count; ++i) {
            const uint64_t rank = (keep >> i) & 1 ? ~uint64_t{0} : uint64_t{stamp[i]} << 6 | i;
            least = rank < least ? rank : least;
        }
        return least == ~uint64_t{0} ? first + count : first + (least & 63);
    }

private:
    uint32_t next() {
        if (m_clock == kLastStamp) renumber();
        return ++m_clock;
    }
    // Stamps become their ranks (1, 2, ...; never-stamped lines stay 0): same order, room again.
    void renumber() {
        std::vector<uint32_t> order;
        for (uint32_t s : m_stamp) {
            if (s != 0) order.push_back(s);
        }
        std::sort(order.begin(), order.end());
        for (uint32_t& s : m_stamp) {
            if (s != 0)
                s = static_cast<uint32_t>(std::lower_bound(order.begin(), order.end(), s) -
                                          order.begin()) +
                    1;
        }
        m_clock = static_cast<uint32_t>(order.size());
    }

    static constexpr uint32_t kLastStamp = ~uint32_t{0};
    HostArray<uint32_t> m_stamp;
    uint32_t m_clock;
    bool m_stamp_on_hit;
};

}  // namespace

Registry<ReplacementPolicy, std::size_t, uint32_t>& replacement_policy_registry() {
    static Registry<ReplacementPolicy, std::size_t, uint32_t> registry("L2 replacement policy");
    return registry;
}

ASIM_REGISTER(replacement_policy_registry(), lru,
              "least recently used: the line filled or hit longest ago", {},
              [](const ParamValues&, std::size_t lines, uint32_t first_stamp) {
                  return std::make_unique<StampPolicy>(lines, true, first_stamp);
              });
ASIM_REGISTER(replacement_policy_registry(), fifo,
              "first in, first out: the line filled longest ago", {},
              [](const ParamValues&, std::size_t lines, uint32_t first_stamp) {
                  return std::make_unique<StampPolicy>(lines, false, first_stamp);
              });

}  // namespace asim

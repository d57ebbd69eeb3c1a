#include "models/memory/l2/replacement_policy.h"

namespace asim {

namespace {

// Victim = the line with the oldest stamp. LRU stamps on fill and on every hit; FIFO stamps on
// fill only, so hits do not refresh a line.
class StampPolicy final : public ReplacementPolicy {
public:
    StampPolicy(std::size_t lines, bool stamp_on_hit) : m_stamp(lines, 0), m_stamp_on_hit(stamp_on_hit) {}
    void on_hit(std::size_t line) override {
        if (m_stamp_on_hit) m_stamp[line] = ++m_clock;
    }
    void on_fill(std::size_t line) override { m_stamp[line] = ++m_clock; }
    std::size_t victim(std::size_t first, std::size_t count,
                       const std::function<bool(std::size_t)>& keep) const override {
        std::size_t v = first + count;
        for (std::size_t i = first; i < first + count; ++i) {
            if (keep && keep(i)) continue;
            if (v == first + count || m_stamp[i] < m_stamp[v]) v = i;
        }
        return v;
    }

private:
    std::vector<uint64_t> m_stamp;
    uint64_t m_clock = 0;
    bool m_stamp_on_hit;
};

}  // namespace

const std::vector<std::string>& replacement_policy_names() {
    static const std::vector<std::string> names = {"lru", "fifo"};
    return names;
}

std::unique_ptr<ReplacementPolicy> make_replacement_policy(const std::string& name, std::size_t lines) {
    if (name == "lru") return std::make_unique<StampPolicy>(lines, true);
    if (name == "fifo") return std::make_unique<StampPolicy>(lines, false);
    return nullptr;
}

}  // namespace asim

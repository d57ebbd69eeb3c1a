// The HBM memory system as the timing core sees it: every (pseudo-)channel of every stack, the
// address mapping and the scheduler and page policy chosen by name. Pure C++ and integer
// cycles of tCK; the mem-replay job drives it directly, the die through a TLM wrapper (hbm.h).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "models/memory/hbm/address_mapping.h"
#include "models/memory/hbm/hbm_channel.h"
#include "models/memory/hbm/hbm_device.h"
#include "models/memory/hbm/hbm_policies.h"
#include "models/memory/hbm/line_transactions.h"

namespace asim {

class HbmController {
public:
    // `params` must be valid (validate() empty); throws std::invalid_argument on a bad mapping,
    // scheduler or page-policy name.
    explicit HbmController(const HbmDeviceParams& params);
    HbmController(const HbmController&) = delete;  // channels refer to m_channel_p
    HbmController& operator=(const HbmController&) = delete;

    const HbmDeviceParams& params() const { return m_p; }
    const AddressMapping& mapping() const { return m_map; }
    // What one transaction covers (HbmDeviceParams::transaction_size()).
    uint64_t access_bytes() const { return m_access; }

    // `addr` must be below the capacity; it is aligned down to one access. channel_of(),
    // can_accept() and accept() of the same address decode it once.
    uint32_t channel_of(uint64_t addr) const { return decoded(addr).channel; }
    bool can_accept(uint64_t addr, bool is_write, bool prefetch = false) const {
        return can_accept_on(decoded(addr).channel, is_write, prefetch);
    }
    bool can_accept_on(uint32_t channel, bool is_write, bool prefetch = false) const {
        return m_channels[channel].can_accept(is_write,
                                              prefetch ? m_channel_p.ctrl.demand_entries : 0);
    }
    // Accepts at cycle `now`, after tick(now). Completions go to `done` (see HbmChannel).
    void accept(uint64_t now, uint64_t addr, bool is_write, uint64_t tag,
                std::vector<HbmCompletion>& done);
    // Runs cycle `now` on every channel that has work at or before it, in channel order.
    void tick(uint64_t now, std::vector<HbmCompletion>& done);
    // The next cycle at which some channel has work (kHbmNever when none ever will). O(1).
    uint64_t next_event() const { return m_next; }
    bool idle() const { return m_busy == 0; }

    // Burst-equivalent with line transactions (burst_equivalent()).
    HbmChannelStats totals() const;
    // With line transactions the channels schedule bank sets (line_transaction_device()).
    const HbmChannel& channel(uint32_t c) const { return m_channels[c]; }
    void set_command_log(uint32_t c, std::vector<HbmCommandRecord>* log) {
        m_channels[c].set_command_log(log);
    }
    // See HbmChannel::set_per_class_scans: for callers that only look at what completes when.
    void set_per_class_scans(bool on) {
        for (auto& c : m_channels) c.set_per_class_scans(on);
    }
    uint32_t channel_count() const { return static_cast<uint32_t>(m_channels.size()); }

private:
    HbmDeviceParams m_p;
    bool m_lines;                 // line transactions
    HbmLineShape m_shape;         // with them, a block's shape
    HbmDeviceParams m_channel_p;  // what the channels schedule: m_p, or the bank-set device
    AddressMapping m_map;
    std::unique_ptr<HbmScheduler> m_sched;
    std::unique_ptr<HbmPagePolicy> m_policy;
    std::vector<HbmChannel> m_channels;
    // A calendar of the channels' next active cycles: a wheel of kWheel one-cycle slots, each a
    // bitset of channels, for cycles in [m_base, m_base + kWheel); later cycles in a min-heap
    // (m_far) that feeds the wheel as it turns. A tick takes the slot of `now` and runs its
    // channels in index order (as a scan over all channels did); the next event is cached.
    static constexpr uint32_t kWheel = 256;  // a power of two, a multiple of 64
    enum class Where : uint8_t { kNone, kWheel, kFar };
    std::vector<uint64_t> m_key;           // channel -> its next_active() as last seen
    std::vector<Where> m_where;            // channel -> where m_key is filed
    std::vector<uint64_t> m_slots;         // kWheel bitsets of m_words words each
    uint64_t m_summary[kWheel / 64] = {};  // bit s: slot s is not empty
    // Min-heap of (cycle, channel) beyond the wheel; stale entries are skipped when they surface.
    std::vector<std::pair<uint64_t, uint32_t>> m_far;
    std::vector<uint64_t> m_scratch;  // one slot's bits while its channels run
    uint32_t m_words = 1;
    uint64_t m_base = 0;          // the wheel's first cycle: the last tick (all keys are >= it)
    uint64_t m_next = kHbmNever;  // cached next_event()
    uint32_t m_busy = 0;          // channels not idle()
    void file(uint32_t c, uint64_t key);  // files channel c (not filed) at key
    void unfile(uint32_t c);
    uint64_t find_next();
    void turn_to(uint64_t now);  // m_base = now; far entries now inside the wheel move in
    void tick_late(uint64_t now, std::vector<HbmCompletion>& done);
    const DecodedAddress& decoded(uint64_t addr) const {
        if (addr != m_decoded_addr) {
            m_decoded_addr = addr;
            m_decoded = m_map.decode(addr);
        }
        return m_decoded;
    }
    mutable uint64_t m_decoded_addr = ~uint64_t{0};  // the last address decoded, and its decoding
    mutable DecodedAddress m_decoded{};
    uint64_t m_access;
    uint32_t m_access_shift;
};

}  // namespace asim

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

namespace asim {

class HbmController {
public:
    // `params` must be valid (validate() empty); throws std::invalid_argument on a bad mapping,
    // scheduler or page-policy name.
    explicit HbmController(const HbmDeviceParams& params);
    HbmController(const HbmController&) = delete;  // channels refer to m_p
    HbmController& operator=(const HbmController&) = delete;

    const HbmDeviceParams& params() const { return m_p; }
    const AddressMapping& mapping() const { return m_map; }
    uint64_t access_bytes() const { return m_access; }

    // `addr` must be below the capacity; it is aligned down to one access.
    bool can_accept(uint64_t addr, bool is_write) const {
        return m_channels[m_map.decode(addr).channel].can_accept(is_write);
    }
    // Accepts at cycle `now`, after tick(now). Completions go to `done` (see HbmChannel).
    void accept(uint64_t now, uint64_t addr, bool is_write, uint64_t tag,
                std::vector<HbmCompletion>& done);
    // Runs cycle `now` on every channel that has work at or before it, in channel order.
    void tick(uint64_t now, std::vector<HbmCompletion>& done);
    // The next cycle at which some channel has work (kHbmNever when none ever will). O(1).
    uint64_t next_event() const { return m_key[m_heap[0]]; }
    bool idle() const { return m_busy == 0; }

    HbmChannelStats totals() const;
    const HbmChannel& channel(uint32_t c) const { return m_channels[c]; }
    void set_command_log(uint32_t c, std::vector<HbmCommandRecord>* log) { m_channels[c].set_command_log(log); }
    // See HbmChannel::set_per_class_scans: for callers that only look at what completes when.
    void set_per_class_scans(bool on) {
        for (auto& c : m_channels) c.set_per_class_scans(on);
    }
    uint32_t channel_count() const { return static_cast<uint32_t>(m_channels.size()); }

private:
    HbmDeviceParams m_p;
    AddressMapping m_map;
    std::unique_ptr<HbmScheduler> m_sched;
    std::unique_ptr<HbmPagePolicy> m_policy;
    std::vector<HbmChannel> m_channels;
    // A calendar of the channels' next active cycles: an indexed binary min-heap of channel
    // indices ordered by (next active cycle, index), so the next event is the top and a tick
    // visits only the channels that are due, lowest index first (as a scan in channel order).
    std::vector<uint64_t> m_key;   // channel -> its next_active() as last seen
    std::vector<uint32_t> m_heap;  // heap of channel indices
    std::vector<uint32_t> m_pos;   // channel -> position in m_heap
    std::vector<uint32_t> m_due;   // scratch for tick_late()
    uint32_t m_busy = 0;           // channels not idle()
    bool before(uint32_t a, uint32_t b) const { return m_key[a] < m_key[b] || (m_key[a] == m_key[b] && a < b); }
    void sift_up(uint32_t i);
    void sift_down(uint32_t i);
    void tick_late(uint64_t now, std::vector<HbmCompletion>& done);
    uint64_t m_access;
    uint32_t m_access_shift;
};

}  // namespace asim

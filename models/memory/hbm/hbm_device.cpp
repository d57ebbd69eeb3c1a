#include "models/memory/hbm/hbm_device.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "models/memory/hbm/address_mapping.h"
#include "models/memory/hbm/hbm_policies.h"
#include "models/memory/hbm/line_transactions.h"
#include "models/memory/hbm_flat/hbm_flat.h"

namespace asim {

double HbmDeviceParams::peak_bandwidth_bytes_per_s() const {
    if (timing.tCK_ps <= 0 || timing.burst_cycles == 0) return 0.0;
    return static_cast<double>(org.channels()) * static_cast<double>(org.access_bytes()) /
           (static_cast<double>(timing.burst_cycles) * static_cast<double>(timing.tCK_ps) * 1e-12);
}

double HbmDeviceParams::refresh_duty() const {
    switch (ctrl.refresh) {
        case RefreshMode::kAllBank:
            return timing.tREFI ? std::min(1.0, static_cast<double>(timing.tRFC) / timing.tREFI)
                                : 0.0;
        case RefreshMode::kPerBank: {
            const double round = static_cast<double>(timing.tREFIsb) * org.banks();
            return round > 0 ? std::min(1.0, static_cast<double>(timing.tRFCsb) / round) : 0.0;
        }
        case RefreshMode::kNone:
            return 0.0;
    }
    return 0.0;
}

std::vector<std::pair<std::string, std::string>> HbmDeviceParams::validate() const {
    std::vector<std::pair<std::string, std::string>> p;
    auto need = [&p](bool ok, const char* key, const std::string& msg) {
        if (!ok) p.emplace_back(key, msg);
    };
    const auto& o = org;
    need(o.bus_width_bits % 8 == 0, "organisation.bus_width_bits",
         "must be a whole number of bytes");
    const uint64_t a = o.access_bytes();
    need(a != 0 && (a & (a - 1)) == 0, "organisation.burst_length",
         "bus_width_bits / 8 x burst_length (the access size, " + std::to_string(a) +
             " B) must be a power of two");
    need(a != 0 && o.page_bytes % (a ? a : 1) == 0 && o.page_bytes >= a, "organisation.page",
         "must be a whole number of accesses (" + std::to_string(a) + " B)");
    need(o.ranks <= 255 && o.bank_groups <= 255 && o.banks() <= 65535, "organisation.ranks",
         "ranks and bank groups must be at most 255, banks per channel at most 65535");
    const auto& t = timing;
    need(t.tCK_ps > 0, "timing.tCK", "must be greater than zero");
    need(t.burst_cycles >= 1, "timing.burst_cycles", "must be at least 1");
    // burst_cycles is the burst's time on the bus: burst_length beats at a whole number of beats
    // per tCK (2 at double data rate; 4 for HBM3 with BL8 in 2 tCK).
    need(t.burst_cycles == 0 || o.burst_length % t.burst_cycles == 0, "timing.burst_cycles",
         "burst_cycles (" + std::to_string(t.burst_cycles) +
             ") must divide organisation.burst_length (" + std::to_string(o.burst_length) +
             "): a whole number of data beats per tCK");
    need(t.CL >= 1, "timing.CL", "must be at least 1");
    need(t.tRCDRD >= 1 && t.tRCDWR >= 1, "timing.tRCDRD", "tRCDRD and tRCDWR must be at least 1");
    need(t.tRP >= 1, "timing.tRP", "must be at least 1");
    need(t.tRAS >= t.tRCDRD && t.tRAS >= t.tRCDWR, "timing.tRAS",
         "tRAS (" + std::to_string(t.tRAS) + ") < tRCD (" +
             std::to_string(std::max(t.tRCDRD, t.tRCDWR)) +
             "): a row cannot close before it has opened");
    // JEDEC defines the row cycle as tRC = tRAS + tRP (ACT, restore, PRE, precharge time).
    need(uint64_t{t.tRC} >= uint64_t{t.tRAS} + t.tRP, "timing.tRC",
         "tRC (" + std::to_string(t.tRC) + ") < tRAS + tRP (" + std::to_string(t.tRAS) + " + " +
             std::to_string(t.tRP) +
             "): a row cycle is an ACT to PRE (tRAS) and the precharge (tRP)");
    need(t.tCCD_S >= 1 && t.tCCD_L >= t.tCCD_S, "timing.tCCD_L", "need 1 <= tCCD_S <= tCCD_L");
    need(t.tRRD_S >= 1 && t.tRRD_L >= t.tRRD_S, "timing.tRRD_L", "need 1 <= tRRD_S <= tRRD_L");
    need(t.tWTR_L >= t.tWTR_S, "timing.tWTR_L", "need tWTR_S <= tWTR_L");
    need(t.tFAW >= t.tRRD_S, "timing.tFAW", "tFAW must be at least tRRD_S");
    if (ctrl.refresh == RefreshMode::kAllBank) {
        need(t.tREFI > t.tRFC, "timing.tREFI",
             "tREFI (" + std::to_string(t.tREFI) + ") must exceed tRFC (" + std::to_string(t.tRFC) +
                 "), or the rank never leaves refresh");
    }
    if (ctrl.refresh == RefreshMode::kPerBank) {
        need(t.tREFIsb >= 1, "timing.tREFIsb", "must be at least 1");
        need(uint64_t{t.tREFIsb} * o.banks() > t.tRFCsb, "timing.tRFCsb",
             "tRFCsb must be below tREFIsb x banks, or banks never leave refresh");
    }
    const auto& c = ctrl;
    need(c.command_queue_depth >= 1, "controller.command_queue_depth", "must be at least 1");
    need(c.read_queue_depth >= 1, "controller.read_queue_depth", "must be at least 1");
    need(c.write_buffer_depth >= 1, "controller.write_buffer_depth", "must be at least 1");
    need(c.write_drain_high >= 1 && c.write_drain_high <= c.write_buffer_depth,
         "controller.write_drain_high", "must be between 1 and write_buffer_depth");
    need(c.write_drain_low < c.write_drain_high, "controller.write_drain_low",
         "must be below write_drain_high");
    need(c.demand_entries < std::min(c.read_queue_depth, c.write_buffer_depth),
         "controller.demand_entries",
         "must be below read_queue_depth and write_buffer_depth (prefetches need an entry)");
    try {
        AddressMapping m(c.mapping, o);
    } catch (const std::invalid_argument& e) {
        p.emplace_back("controller.mapping", e.what());
    }
    if (const std::string why = line_transaction_problem(*this); !why.empty())
        p.emplace_back("controller.transaction", why);
    if (!hbm_scheduler_registry().contains(c.scheduler)) {
        p.emplace_back("controller.scheduler",
                       hbm_scheduler_registry().unknown_message(c.scheduler));
    }
    if (!hbm_page_policy_registry().contains(c.page_policy)) {
        p.emplace_back("controller.page_policy",
                       hbm_page_policy_registry().unknown_message(c.page_policy));
    }
    return p;
}

uint32_t HbmDeviceParams::write_turnaround_cycles() const {
    const auto& t = timing;
    const int64_t write_data_end = int64_t{t.CWL} + t.burst_cycles;  // after the last WR command
    int64_t read_command = write_data_end + t.tWTR_S;
    if (org.ranks > 1) {
        read_command = std::min<int64_t>(
            read_command, std::max<int64_t>(1, write_data_end + t.tRTRS - int64_t{t.CL}));
    }
    return static_cast<uint32_t>(t.tRTRS + read_command + t.CL - write_data_end);
}

int64_t HbmParams::unloaded_latency_ps() const {
    const auto& t = device.timing;
    return static_cast<int64_t>(kHbmPipelineCycles + t.tRP + t.tRCDRD + t.read_delay()) * t.tCK_ps +
           network_latency_ps;
}

HbmFlatParams HbmParams::flat_params() const {
    const auto& o = device.org;
    HbmFlatParams f;
    f.capacity_bytes = o.capacity_bytes();
    f.stacks = o.stacks;
    f.channels_per_stack = o.channels_per_stack * o.pseudo_channels;
    f.bandwidth_bytes_per_s = device.streaming_bandwidth_bytes_per_s();
    // Occupancy in picoseconds, not in tCK: a channel's time per piece is rounded up to a whole
    // cycle, and at tCK that rounding was up to one cycle per 128 B piece (8 tCK), 12 % of the
    // bandwidth (and 1/tCK itself is rounded to whole Hz, so even the pin peak's 16 B per tCK came
    // out as 15.999... and a 1 KiB piece took 65 tCK instead of 64).
    f.clock_hz = 1'000'000'000'000;
    const AddressMapping map(device.ctrl.mapping, o);
    f.interleave_bytes = map.channel_interleave_bytes();
    f.latency_ps = unloaded_latency_ps();
    f.write_batch_bytes =
        uint64_t{device.ctrl.write_drain_high - device.ctrl.write_drain_low} * o.access_bytes();
    f.write_turnaround_ps =
        static_cast<int64_t>(device.write_turnaround_cycles()) * device.timing.tCK_ps;
    // The time a channel takes to move a full read queue and write buffer: a read that arrived
    // that recently is still queued when a drain ends.
    const double per_channel = f.bandwidth_bytes_per_s / f.channels();
    f.turnaround_window_ps = static_cast<int64_t>(
        static_cast<double>(device.ctrl.read_queue_depth + device.ctrl.write_buffer_depth) *
        static_cast<double>(o.access_bytes()) / per_channel * 1e12);
    // A read that needs a refreshing bank waits for the rest of its refresh: half of it on
    // average. A bank refreshes a `refresh_duty()` share of the time; all-bank refresh takes
    // every bank at once (tRFC), per-bank refresh one (tRFCsb), so a piece over k banks meets
    // one with probability 1 - (1 - duty)^k.
    const double duty = device.refresh_duty();
    if (duty > 0) {
        const bool all_bank = device.ctrl.refresh == RefreshMode::kAllBank;
        const double blocked_ps =
            static_cast<double>(all_bank ? device.timing.tRFC : device.timing.tRFCsb) *
            static_cast<double>(device.timing.tCK_ps);
        for (uint64_t bytes = 1; bytes <= f.interleave_bytes; bytes *= 2) {
            const double banks = all_bank ? 1.0 : static_cast<double>(map.banks_in(bytes));
            const double p = 1.0 - std::pow(1.0 - duty, banks);
            f.refresh_wait_ps.push_back(static_cast<int64_t>(p * blocked_ps / 2 + 0.5));
        }
    }
    return f;
}

}  // namespace asim

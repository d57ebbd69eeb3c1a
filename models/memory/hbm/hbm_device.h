// The HBM device description shared by every HBM fidelity: organisation, JEDEC timing in clock
// cycles (nCK), address mapping and controller queue sizes. `die.hbm` in a platform YAML is parsed
// into one HbmParams (hbm_config.cpp); the JEDEC controller uses it directly and the flat model
// derives its peak bandwidth and unloaded latency from it, so one description serves both.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "models/common/params.h"

namespace asim {

class ConfigNode;
struct HbmFlatParams;

struct HbmOrganisation {
    uint32_t stacks = 1;
    uint32_t channels_per_stack = 8;
    uint32_t pseudo_channels = 1;  // per channel; each is scheduled as an independent channel
    uint32_t ranks = 1;            // HBM3 stack IDs (SIDs) are modelled as ranks
    uint32_t bank_groups = 4;
    uint32_t banks_per_group = 4;
    uint32_t rows = 32768;
    uint64_t page_bytes = 2048;     // row size of one (pseudo-)channel
    uint32_t bus_width_bits = 128;  // per (pseudo-)channel
    uint32_t burst_length = 4;      // data beats per column command

    uint32_t channels() const { return stacks * channels_per_stack * pseudo_channels; }
    uint32_t banks() const { return ranks * bank_groups * banks_per_group; }  // per channel
    uint64_t access_bytes() const { return uint64_t{bus_width_bits} / 8 * burst_length; }
    uint64_t columns() const { return page_bytes / access_bytes(); }  // accesses per row
    uint64_t capacity_bytes() const { return uint64_t{channels()} * banks() * rows * page_bytes; }
};

// JEDEC timing in cycles of tCK. Names follow JESD235/JESD238.
struct HbmTiming {
    int64_t tCK_ps = 1000;
    uint32_t burst_cycles = 2;  // data-bus cycles per column command (BL / 2 at double data rate)
    uint32_t CL = 14, CWL = 4;
    uint32_t tRCDRD = 14, tRCDWR = 14, tRP = 14, tRAS = 34, tRC = 48;
    uint32_t tCCD_S = 1, tCCD_L = 2, tRRD_S = 4, tRRD_L = 6, tFAW = 30;
    uint32_t tWR = 16, tWTR_S = 6, tWTR_L = 8, tRTP = 5;
    uint32_t tRTRS = 1;                    // rank-to-rank and read-to-write bus turnaround
    uint32_t tRFC = 260, tREFI = 3900;     // all-bank refresh
    uint32_t tRFCsb = 160, tREFIsb = 244;  // per-bank refresh (one bank every tREFIsb)

    uint32_t read_delay() const { return CL + burst_cycles; }  // RD command to last data
};

enum class RefreshMode { kAllBank, kPerBank, kNone };
// Which bank a per-bank refresh takes (REFpb names its bank): the banks in turn; an idle bank
// that still owes a refresh in this round of every bank first, else the next one owing; or, of
// those idle banks, the one whose last column command is the latest (a stream has just left it).
enum class RefreshOrder { kRoundRobin, kIdleFirst, kIdleRecent };
enum class QueueStructure { kPerBank, kShared };

struct HbmControllerParams {
    std::string mapping = "rorabgbachco";  // MSB to LSB; fields ro ra bg ba ch pc co
    std::string scheduler = "frfcfs";      // by name (hbm_policies.h)
    ParamValues scheduler_params;          // the scheduler's own (frfcfs: row_hit_cap)
    std::string page_policy = "open";      // by name (hbm_policies.h)
    // Bytes one transaction covers: 0, one access (a burst); more, line transactions over every
    // bank group (line_transactions.h).
    uint64_t transaction_bytes = 0;
    QueueStructure queue_structure = QueueStructure::kPerBank;
    uint32_t command_queue_depth = 8;  // per bank, or per channel when shared
    uint32_t read_queue_depth = 32;    // transaction queue for reads, per channel
    uint32_t write_buffer_depth = 32;  // posted writes, per channel
    // Of the read queue and of the write buffer, entries prefetch accesses (H-JSD prefetches and
    // staging copies) may not take: kept for demand (DESIGN §5 demand first).
    uint32_t demand_entries = 0;
    uint32_t write_drain_high = 32;  // start draining writes at this occupancy
    uint32_t write_drain_low = 0;    // stop draining at this occupancy
    uint32_t write_drain_idle = 0;   // also drain when above this and no command is queued
    bool dual_issue = true;          // one row and one column command per cycle (HBM)
    RefreshMode refresh = RefreshMode::kAllBank;
    RefreshOrder refresh_order = RefreshOrder::kRoundRobin;  // per-bank refresh only
};

struct HbmDeviceParams {
    HbmOrganisation org;
    HbmTiming timing;
    HbmControllerParams ctrl;

    // What one controller transaction covers: the access, or the block of line transactions.
    uint64_t transaction_size() const {
        return std::max(ctrl.transaction_bytes, org.access_bytes());
    }
    double peak_bandwidth_bytes_per_s() const;
    // Fraction of the time refresh takes a bank away: tRFC / tREFI (all-bank), tRFCsb /
    // (tREFIsb x banks) (per-bank: each bank once every tREFIsb x banks), 0 without refresh.
    double refresh_duty() const;
    // The pin peak less the refresh duty: what a well-scheduled streaming read sustains (the
    // JEDEC controller reaches 99.5 % of the pin peak on ascend960 with refresh off, and within
    // 1 % of this with it on; models/memory/hbm_flat/README.md). The flat model's bandwidth.
    double streaming_bandwidth_bytes_per_s() const {
        return peak_bandwidth_bytes_per_s() * (1.0 - refresh_duty());
    }
    // Cycles the data bus idles when a stream of reads turns to a write drain and back, under
    // the controller's own rules (models/memory/hbm/README.md, timing table): tRTRS between the
    // last read's data and the first write's; from the last write's data to the next read's,
    // that read's command delay plus CL, the read issuing tWTR_S after the write's data (same
    // rank, another bank group) or, with more than one rank, as soon as another rank's bus
    // turnaround allows. The flat model charges it once per drained batch of writes.
    uint32_t write_turnaround_cycles() const;
    // Every problem as {key, message}; empty when valid. Keys are relative to `die.hbm`.
    std::vector<std::pair<std::string, std::string>> validate() const;
};

enum class HbmFidelity { kFlat, kJedec };

// `die.hbm`: the device plus the model chosen to run it inside the die.
struct HbmParams {
    HbmFidelity fidelity = HbmFidelity::kFlat;
    HbmDeviceParams device;
    int64_t network_latency_ps = 0;  // die-side path to the controller, added by the die models

    uint64_t capacity_bytes() const { return device.org.capacity_bytes(); }
    double bandwidth_bytes_per_s() const { return device.peak_bandwidth_bytes_per_s(); }
    // Unloaded read latency of a row conflict (PRE + ACT + RD + burst) through the controller
    // pipeline, plus the network: the flat model's fixed latency.
    int64_t unloaded_latency_ps() const;
    HbmFlatParams flat_params() const;
};

// Parses `die.hbm`; throws ConfigError naming file:line:key on any problem.
HbmParams parse_hbm_params(const ConfigNode& node);

// Cycles from acceptance to the first command a transaction can issue: it moves from the
// transaction queue to a command queue on the next cycle and issues on the one after.
constexpr uint32_t kHbmPipelineCycles = 2;

}  // namespace asim

// Line transactions (`die.hbm.controller.transaction`, e.g. 512B): the controller schedules a
// block that covers every bank group of one (pseudo-)channel at the same columns as one
// transaction, instead of each 32 B burst on its own.
//
// Under a mapping with the bank group in the lowest bits (rorabacochpcco3bg), a 512 B L2 line is
// 16 bursts: 4 bank groups x 4 columns of one row of the same-numbered bank in each group, a
// "bank set". The burst model decides each of those 16 bursts and 4 ACTs separately (8.8 M
// decisions for a Llama-3-70B decode step: 64x the flat model's wall). A line transaction is one
// decision for the set's row commands and one for its 16 bursts. It is the same channel and
// scheduler, run on a derived device whose banks are bank sets, whose access is the block and
// whose timing is that of the block's commands issued back to back (derive() below gives each
// value and why). What it approximates: a block's bursts never interleave with another block's
// (the bus is as full either way), the set's ACTs and PREs issue together, and a request smaller
// than the block costs a whole block. models/memory/hbm/README.md ("Line transactions") compares
// it with the burst model.
#pragma once

#include <cstdint>
#include <string>

#include "models/memory/hbm/hbm_channel.h"
#include "models/memory/hbm/hbm_device.h"

namespace asim {

struct HbmLineShape {
    uint32_t bank_groups = 1;  // the bank groups a block spans (all of them)
    uint32_t columns = 1;      // consecutive columns per bank
    uint32_t pitch = 1;        // cycles between consecutive bursts of the block
    uint32_t bursts() const { return bank_groups * columns; }
};

// Whether `p`'s transaction size can be scheduled as line transactions under its mapping: ""
// when it can (or when it is one access), else why not. Reads every burst of a few blocks.
std::string line_transaction_problem(const HbmDeviceParams& p);

// The shape of a block (p.ctrl.transaction_bytes > one access, no problem).
HbmLineShape line_shape(const HbmDeviceParams& p);

// The device the channels schedule with line transactions: bank sets as banks, the block as the
// access, queue depths and the scheduler's row-hit cap in blocks, timing of the block.
HbmDeviceParams line_transaction_device(const HbmDeviceParams& p);

// A bank set's statistics as the bursts, ACTs, PREs and refreshes of its banks.
HbmChannelStats burst_equivalent(const HbmChannelStats& lines, const HbmLineShape& shape,
                                 RefreshMode refresh);

}  // namespace asim

// A device of the memory pool (a node's DDR or persistent memory, or the stand-in for another
// die's HBM): one demand-first calendar server per direction, booked by every die that reaches it
// at its own (future-dated) times (calendar_server.h).
#pragma once

#include <cstdint>

#include "models/common/calendar_server.h"
#include "models/common/clock_domain.h"

namespace asim {

// The pool's timing units, shared by its parts (the devices, the dies' ports, the tiering).
// The pool's servers run on a 1 ps clock: a rate in B/s is kPoolClockHz times bytes per cycle.
constexpr uint64_t kPoolClockHz = 1'000'000'000'000ULL;
// Background traffic (prefetch, staging, migrations) moves in pieces of this size, so demand
// waits for one piece at most.
constexpr uint64_t kPoolPieceBytes = 64 * 1024;
// A migration engine (the die's tiering, the node's) skips a move while its backlog at its
// budget's rate reaches further ahead than this.
constexpr Picoseconds kMigrationHorizonPs = 10'000'000;  // 10 us

struct PoolDevice {
    CalendarServer read;
    CalendarServer write;
};

}  // namespace asim

// A device of the memory pool (a node's DDR or persistent memory, or the stand-in for another
// die's HBM): one demand-first calendar server per direction, booked by every die that reaches it
// at its own (future-dated) times (calendar_server.h).
#pragma once

#include "models/common/calendar_server.h"

namespace asim {

struct PoolDevice {
    CalendarServer read;
    CalendarServer write;
};

}  // namespace asim

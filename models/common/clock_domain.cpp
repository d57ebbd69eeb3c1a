#include "models/common/clock_domain.h"

#include <stdexcept>

namespace asim {

namespace {
constexpr unsigned __int128 kPsPerSecond = 1'000'000'000'000ULL;
bool g_resolution_set = false;
}  // namespace

void set_kernel_time_resolution() {
    if (g_resolution_set) return;
    sc_core::sc_set_time_resolution(1, sc_core::SC_PS);
    g_resolution_set = true;
}

ClockDomain::ClockDomain(std::string name, uint64_t frequency_hz)
    : m_name(std::move(name)), m_frequency_hz(frequency_hz) {
    if (m_frequency_hz == 0) throw std::invalid_argument("clock domain " + m_name + ": zero frequency");
}

Picoseconds ClockDomain::cycles_to_ps(Cycles n) const {
    return static_cast<Picoseconds>(static_cast<unsigned __int128>(n) * kPsPerSecond / m_frequency_hz);
}

Cycles ClockDomain::ps_to_cycles_ceil(Picoseconds ps) const {
    const unsigned __int128 num = static_cast<unsigned __int128>(ps) * m_frequency_hz;
    return static_cast<Cycles>((num + kPsPerSecond - 1) / kPsPerSecond);
}

Cycles ClockDomain::ps_to_cycles_floor(Picoseconds ps) const {
    return static_cast<Cycles>(static_cast<unsigned __int128>(ps) * m_frequency_hz / kPsPerSecond);
}

sc_core::sc_time ClockDomain::to_time(Cycles n) const { return from_ps(cycles_to_ps(n)); }

Picoseconds ClockDomain::to_ps(const sc_core::sc_time& t) { return t.value(); }

sc_core::sc_time ClockDomain::from_ps(Picoseconds ps) {
    return sc_core::sc_time::from_value(ps);
}

}  // namespace asim

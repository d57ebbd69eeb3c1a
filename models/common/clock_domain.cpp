#include "models/common/clock_domain.h"

#include <numeric>
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
    if (m_frequency_hz == 0)
        throw std::invalid_argument("clock domain " + m_name + ": zero frequency");
    const uint64_t g = std::gcd(m_frequency_hz, static_cast<uint64_t>(kPsPerSecond));
    m_ps_num = static_cast<uint64_t>(kPsPerSecond) / g;
    m_hz_num = m_frequency_hz / g;
}

uint64_t ClockDomain::mul_div_wide(uint64_t a, uint64_t b, uint64_t d, bool ceil) {
    const unsigned __int128 wide = static_cast<unsigned __int128>(a) * b;
    return static_cast<uint64_t>(ceil ? (wide + d - 1) / d : wide / d);
}

sc_core::sc_time ClockDomain::to_time(Cycles n) const { return from_ps(cycles_to_ps(n)); }

Picoseconds ClockDomain::to_ps(const sc_core::sc_time& t) { return t.value(); }

sc_core::sc_time ClockDomain::from_ps(Picoseconds ps) { return sc_core::sc_time::from_value(ps); }

}  // namespace asim

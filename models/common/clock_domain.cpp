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

// The ratio 1e12 / f is kept reduced (1.65 GHz: 20000 / 33), so products fit in 64 bits for
// any realistic time (1.65 GHz: 5.6e5 s of simulated time) and divide in 64 bits; only products
// that do not fit take the 128-bit path (__udivti3 was 8 % of a GEMM run's profile, and every run
// past 11 ms took it before the ratio was reduced). Same quotients: the fraction is the same.
namespace {
template <bool kCeil>
uint64_t mul_div(uint64_t a, uint64_t b, uint64_t d) {
    uint64_t product = 0;
    if (!__builtin_mul_overflow(a, b, &product) && product <= ~uint64_t{0} - d) {
        return kCeil ? (product + d - 1) / d : product / d;
    }
    const unsigned __int128 wide = static_cast<unsigned __int128>(a) * b;
    return static_cast<uint64_t>(kCeil ? (wide + d - 1) / d : wide / d);
}
}  // namespace

Picoseconds ClockDomain::cycles_to_ps(Cycles n) const {
    return mul_div<false>(n, m_ps_num, m_hz_num);
}

Cycles ClockDomain::ps_to_cycles_ceil(Picoseconds ps) const {
    return mul_div<true>(ps, m_hz_num, m_ps_num);
}

Cycles ClockDomain::ps_to_cycles_floor(Picoseconds ps) const {
    return mul_div<false>(ps, m_hz_num, m_ps_num);
}

sc_core::sc_time ClockDomain::to_time(Cycles n) const { return from_ps(cycles_to_ps(n)); }

Picoseconds ClockDomain::to_ps(const sc_core::sc_time& t) { return t.value(); }

sc_core::sc_time ClockDomain::from_ps(Picoseconds ps) { return sc_core::sc_time::from_value(ps); }

}  // namespace asim

// Clock domains with integer-cycle time. Components count in cycles of their own domain and
// convert at the boundary; the kernel's resolution is 1 ps. Conversions are exact integer
// arithmetic on the frequency in Hz (cycle n starts at floor(n * 1e12 / f) ps), so a 1.65 GHz
// clock accumulates no drift however long the run, even though its period (606.06 ps) is not a
// whole number of picoseconds.
#pragma once

#include <cstdint>
#include <string>

#include <systemc>

namespace asim {

// Sets the SystemC time resolution to 1 ps. Call first thing, before any sc_time exists.
// Idempotent (a second call is a no-op).
void set_kernel_time_resolution();

using Cycles = uint64_t;
using Picoseconds = uint64_t;

class ClockDomain {
public:
    ClockDomain() = default;
    ClockDomain(std::string name, uint64_t frequency_hz);

    const std::string& name() const { return m_name; }
    uint64_t frequency_hz() const { return m_frequency_hz; }

    // Start of cycle n, in ps (floor).
    Picoseconds cycles_to_ps(Cycles n) const { return mul_div<false>(n, m_ps_num, m_hz_num); }
    // The first cycle boundary at or after `ps` (ceil): work can start there.
    Cycles ps_to_cycles_ceil(Picoseconds ps) const { return mul_div<true>(ps, m_hz_num, m_ps_num); }
    // Cycles wholly elapsed by `ps` (floor).
    Cycles ps_to_cycles_floor(Picoseconds ps) const {
        return mul_div<false>(ps, m_hz_num, m_ps_num);
    }

    sc_core::sc_time to_time(Cycles n) const;
    Cycles cycles_at(const sc_core::sc_time& t) const { return ps_to_cycles_ceil(to_ps(t)); }

    static Picoseconds to_ps(const sc_core::sc_time& t);
    static sc_core::sc_time from_ps(Picoseconds ps);

private:
    // a * b / d, rounded down or up. The ratio 1e12 / f is kept reduced (1.65 GHz: 20000 / 33),
    // so the product fits 64 bits for any realistic time (1.65 GHz: 5.6e5 s of simulated time)
    // and divides in 64 bits, inline (every slice, port and channel reservation converts twice);
    // only products that do not fit take the 128-bit path (__udivti3 was 8 % of a GEMM run's
    // profile, and every run past 11 ms took it before the ratio was reduced). Same quotients as
    // on 1e12 and f: the fraction is the same.
    // A whole number of ps per cycle (1 GHz, 1.6 GHz, the pool's and links' ps clocks) makes d
    // 1 in one direction or both: no division then (a 64-bit divide by 1 still took its tens of
    // host cycles, most of a pool port reservation's time).
    template <bool kCeil>
    static uint64_t mul_div(uint64_t a, uint64_t b, uint64_t d) {
        uint64_t product = 0;
        if (__builtin_expect(!__builtin_mul_overflow(a, b, &product) && product <= ~uint64_t{0} - d,
                             1)) {
            if (d == 1) return product;
            return kCeil ? (product + d - 1) / d : product / d;
        }
        return mul_div_wide(a, b, d, kCeil);
    }
    static uint64_t mul_div_wide(uint64_t a, uint64_t b, uint64_t d, bool ceil);

    std::string m_name;
    uint64_t m_frequency_hz = 1'000'000'000;
    // 1e12 / m_frequency_hz as a reduced fraction m_ps_num / m_hz_num (ps per cycle).
    uint64_t m_ps_num = 1000;
    uint64_t m_hz_num = 1;
};

}  // namespace asim

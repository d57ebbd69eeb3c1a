// Physical quantities written with units in YAML and on the command line ("64MiB", "1.2ns",
// "1.65GHz", "200Gbps", "1.6TB/s"). Every quantity in a config must carry its unit; the kind of
// the unit is checked against the kind the key expects, so "size: 1.65GHz" is an error.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace asim::units {

// The text could not be read as the expected kind of quantity. The message says what was
// expected and what was found; the config layer prefixes file, line and key.
class UnitError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

enum class Kind {
    kSize,       // bytes:    B, KiB, MiB, GiB, TiB (binary); KB, MB, GB, TB (decimal)
    kTime,       // seconds:  ps, ns, us, ms, s
    kFrequency,  // hertz:    Hz, kHz, MHz, GHz
    kBitRate,    // bit/s:    bps, Kbps, Mbps, Gbps, Tbps (decimal)
    kByteRate,   // byte/s:   B/s, KB/s, MB/s, GB/s, TB/s (decimal); KiB/s, MiB/s, GiB/s, TiB/s
};

// "a size (B, KiB, MiB, GiB, ...)" etc., for messages.
std::string describe(Kind kind);

struct Quantity {
    double value = 0.0;  // in the base unit of its kind: B, ps, Hz, bit/s, B/s
    Kind kind = Kind::kSize;
};

// Parses "<number><unit>" (optional space between, optional sign, decimal or exponent number).
// Throws UnitError on a missing unit, an unknown unit or a malformed number.
Quantity parse(std::string_view text);

// Parse and require a kind. Each throws UnitError naming the expected kind when the unit is
// of another kind ("expected a frequency (Hz, kHz, MHz, GHz), got '64MiB', which is a size").
uint64_t bytes(std::string_view text);       // must be a whole, non-negative number of bytes
int64_t picoseconds(std::string_view text);  // rounded to the nearest picosecond
double hertz(std::string_view text);
double bits_per_second(std::string_view text);
double bytes_per_second(std::string_view text);

// Human-readable forms for reports: "64 MiB", "1.20 ns", "1.65 GHz", "9.60 TB/s".
std::string format_bytes(uint64_t bytes);
std::string format_time_ps(int64_t ps);
std::string format_hertz(double hz);
std::string format_byte_rate(double bytes_per_second);

}  // namespace asim::units

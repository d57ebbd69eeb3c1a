#include "models/common/units.h"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>

namespace asim::units {
namespace {

struct UnitDef {
    const char* name;
    Kind kind;
    // Multiplier to the base unit of the kind. Exact for every entry (all are integers below
    // 2^53), which the exact size arithmetic below relies on.
    double factor;
};

// Order matters: describe() lists units in this order, smallest first per kind.
constexpr std::array<UnitDef, 32> kUnits = {{
    {"B", Kind::kSize, 1.0},
    {"KiB", Kind::kSize, 1024.0},
    {"MiB", Kind::kSize, 1024.0 * 1024.0},
    {"GiB", Kind::kSize, 1024.0 * 1024.0 * 1024.0},
    {"TiB", Kind::kSize, 1024.0 * 1024.0 * 1024.0 * 1024.0},
    {"KB", Kind::kSize, 1e3},
    {"MB", Kind::kSize, 1e6},
    {"GB", Kind::kSize, 1e9},
    {"TB", Kind::kSize, 1e12},
    {"ps", Kind::kTime, 1.0},
    {"ns", Kind::kTime, 1e3},
    {"us", Kind::kTime, 1e6},
    {"ms", Kind::kTime, 1e9},
    {"s", Kind::kTime, 1e12},
    {"Hz", Kind::kFrequency, 1.0},
    {"kHz", Kind::kFrequency, 1e3},
    {"MHz", Kind::kFrequency, 1e6},
    {"GHz", Kind::kFrequency, 1e9},
    {"bps", Kind::kBitRate, 1.0},
    {"Kbps", Kind::kBitRate, 1e3},
    {"Mbps", Kind::kBitRate, 1e6},
    {"Gbps", Kind::kBitRate, 1e9},
    {"Tbps", Kind::kBitRate, 1e12},
    {"B/s", Kind::kByteRate, 1.0},
    {"KB/s", Kind::kByteRate, 1e3},
    {"MB/s", Kind::kByteRate, 1e6},
    {"GB/s", Kind::kByteRate, 1e9},
    {"TB/s", Kind::kByteRate, 1e12},
    {"KiB/s", Kind::kByteRate, 1024.0},
    {"MiB/s", Kind::kByteRate, 1024.0 * 1024.0},
    {"GiB/s", Kind::kByteRate, 1024.0 * 1024.0 * 1024.0},
    {"TiB/s", Kind::kByteRate, 1024.0 * 1024.0 * 1024.0 * 1024.0},
}};

constexpr Kind kAllKinds[] = {Kind::kSize, Kind::kTime, Kind::kFrequency, Kind::kBitRate,
                              Kind::kByteRate};

const char* noun(Kind kind) {
    switch (kind) {
        case Kind::kSize:
            return "a size";
        case Kind::kTime:
            return "a time";
        case Kind::kFrequency:
            return "a frequency";
        case Kind::kBitRate:
            return "a bit rate";
        case Kind::kByteRate:
            return "a byte rate";
    }
    return "a quantity";
}

// The unit used in "write e.g. 64MiB" hints, one a reader is likely to want.
const char* example_unit(Kind kind) {
    switch (kind) {
        case Kind::kSize:
            return "MiB";
        case Kind::kTime:
            return "ns";
        case Kind::kFrequency:
            return "GHz";
        case Kind::kBitRate:
            return "Gbps";
        case Kind::kByteRate:
            return "GB/s";
    }
    return "MiB";
}

std::string quoted(std::string_view text) { return "'" + std::string(text) + "'"; }

bool is_space(char c) { return c == ' ' || c == '\t'; }

std::string_view trim(std::string_view text) {
    while (!text.empty() && is_space(text.front())) text.remove_prefix(1);
    while (!text.empty() && is_space(text.back())) text.remove_suffix(1);
    return text;
}

char ascii_lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

bool equal_ignoring_case(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
        if (ascii_lower(a[i]) != ascii_lower(b[i])) return false;
    }
    return true;
}

// A number as written, kept in decimal form so that sizes can be computed exactly:
// "1.1KB" must be 1100 bytes, which binary floating point cannot promise.
struct Number {
    bool negative = false;
    std::string digits;  // significant digits, no leading zeros ("" for zero)
    int exp10 = 0;       // value = digits * 10^exp10
    double value = 0.0;
};

struct Parsed {
    Number number;
    const UnitDef* unit = nullptr;
};

const UnitDef* find_unit(std::string_view name) {
    for (const UnitDef& u : kUnits) {
        if (name == u.name) return &u;
    }
    return nullptr;
}

std::string all_units_brief() {
    std::string out;
    for (Kind kind : kAllKinds) {
        if (!out.empty()) out += "; ";
        out += describe(kind);
    }
    return out;
}

std::string unknown_unit_message(std::string_view text, std::string_view unit) {
    std::string msg = "unknown unit " + quoted(unit) + " in " + quoted(text);
    // "Gb/s" reads as gigabits per second; pointing at "GB/s" would change the value by 8.
    if (unit.size() >= 3 && unit.substr(unit.size() - 3) == "b/s") {
        std::string bits = std::string(unit.substr(0, unit.size() - 3)) + "bps";
        for (const UnitDef& u : kUnits) {
            if (equal_ignoring_case(bits, u.name)) {
                return msg + "; did you mean " + quoted(u.name) + "?";
            }
        }
    }
    // Units are case-sensitive ("Mb" is not "MB"); no two units differ only in case, so a
    // case-insensitive match is an unambiguous suggestion.
    for (const UnitDef& u : kUnits) {
        if (equal_ignoring_case(unit, u.name)) {
            return msg + "; did you mean " + quoted(u.name) + "? (units are case-sensitive)";
        }
    }
    return msg + "; accepted units: " + all_units_brief();
}

// Scans "[+-]digits[.digits][e[+-]digits]" at the start of `text`. Returns the length consumed,
// 0 when there is no number. Deliberately narrower than strtod: no "inf", "nan" or hex.
std::size_t scan_number(std::string_view text, Number& number) {
    std::size_t i = 0;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) {
        number.negative = text[i] == '-';
        ++i;
    }
    std::string mantissa;
    int fraction_digits = 0;
    bool any_digit = false;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
        mantissa += text[i++];
        any_digit = true;
    }
    if (i < text.size() && text[i] == '.') {
        ++i;
        while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
            mantissa += text[i++];
            ++fraction_digits;
            any_digit = true;
        }
    }
    if (!any_digit) return 0;
    long exponent = 0;
    // An 'e' is an exponent only when digits follow; otherwise it belongs to the unit.
    if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
        std::size_t j = i + 1;
        bool exp_negative = false;
        if (j < text.size() && (text[j] == '+' || text[j] == '-')) {
            exp_negative = text[j] == '-';
            ++j;
        }
        if (j < text.size() && text[j] >= '0' && text[j] <= '9') {
            while (j < text.size() && text[j] >= '0' && text[j] <= '9') {
                // Saturate: anything this large overflows every quantity anyway.
                if (exponent < 100000) exponent = exponent * 10 + (text[j] - '0');
                ++j;
            }
            if (exp_negative) exponent = -exponent;
            i = j;
        }
    }
    std::size_t first = mantissa.find_first_not_of('0');
    if (first == std::string::npos) {
        number.digits.clear();
        number.exp10 = 0;
    } else {
        std::size_t last = mantissa.find_last_not_of('0');
        number.digits = mantissa.substr(first, last - first + 1);
        number.exp10 = static_cast<int>(exponent) - fraction_digits +
                       static_cast<int>(mantissa.size() - 1 - last);
    }
    // from_chars is locale-independent, unlike strtod. It rejects a leading '+'.
    std::string_view body = text.substr(0, i);
    if (!body.empty() && body.front() == '+') body.remove_prefix(1);
    auto [ptr, ec] = std::from_chars(body.data(), body.data() + body.size(), number.value);
    if (ec == std::errc::result_out_of_range) {
        // Underflow gives a tiny value, overflow an infinite one; both are handled by callers.
        number.value = number.exp10 < 0 ? 0.0 : std::numeric_limits<double>::infinity();
        if (number.negative) number.value = -number.value;
    } else if (ec != std::errc() || ptr != body.data() + body.size()) {
        return 0;
    }
    return i;
}

// `expected` only sharpens the message for a missing unit.
Parsed parse_text(std::string_view original, const Kind* expected) {
    std::string_view text = trim(original);
    if (text.empty()) {
        if (expected) throw UnitError("empty value; expected " + describe(*expected));
        throw UnitError("empty value; expected a number with a unit, e.g. 64MiB");
    }
    Parsed parsed;
    std::size_t used = scan_number(text, parsed.number);
    if (used == 0) {
        std::string msg = quoted(text) + " is not a number followed by a unit";
        if (expected) msg += "; expected " + describe(*expected);
        throw UnitError(msg);
    }
    std::string_view unit = trim(text.substr(used));
    if (unit.empty()) {
        std::string number(text);
        if (expected) {
            throw UnitError(quoted(text) + " has no unit; expected " + describe(*expected) +
                            ", e.g. " + number + example_unit(*expected));
        }
        throw UnitError(quoted(text) + " has no unit; write e.g. " + number + "MiB or " + number +
                        "ns");
    }
    for (char c : unit) {
        bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
        if (!letter && c != '/') {
            std::string msg = quoted(text) + " is not a number followed by a unit";
            if (expected) msg += "; expected " + describe(*expected);
            throw UnitError(msg);
        }
    }
    parsed.unit = find_unit(unit);
    if (!parsed.unit) throw UnitError(unknown_unit_message(text, unit));
    if (!std::isfinite(parsed.number.value * parsed.unit->factor)) {
        throw UnitError(quoted(text) + " is too large");
    }
    return parsed;
}

Parsed parse_kind(std::string_view text, Kind kind) {
    Parsed parsed = parse_text(text, &kind);
    if (parsed.unit->kind != kind) {
        throw UnitError("expected " + describe(kind) + ", got " + quoted(trim(text)) +
                        ", which is " + noun(parsed.unit->kind));
    }
    if (parsed.number.negative && !parsed.number.digits.empty()) {
        throw UnitError(quoted(trim(text)) + " is negative; expected " + describe(kind) +
                        " of zero or more");
    }
    return parsed;
}

double value_of(std::string_view text, Kind kind) {
    Parsed parsed = parse_kind(text, kind);
    return parsed.number.value * parsed.unit->factor;
}

std::string printf_string(const char* format, double value, const char* unit) {
    char buffer[64];
    std::snprintf(buffer, sizeof(buffer), format, value, unit);
    return buffer;
}

// Picks the largest unit not above `magnitude` from `names`/`step`, and prints two decimals.
// Rounding can carry into the next unit ("999.999 kHz" would print "1000.00 kHz"), so the
// unit is chosen after rounding.
std::string format_scaled(double value, const char* const* names, std::size_t count, double step) {
    if (!std::isfinite(value)) return printf_string("%g %s", value, names[0]);
    double magnitude = std::fabs(value);
    std::size_t index = 0;
    double scale = 1.0;
    while (index + 1 < count && magnitude >= scale * step) {
        scale *= step;
        ++index;
    }
    while (index + 1 < count && std::round(magnitude / scale * 100.0) / 100.0 >= step) {
        scale *= step;
        ++index;
    }
    return printf_string("%.2f %s", value / scale, names[index]);
}

// Integer form: exact multiples print without decimals ("64 MiB"), others with two ("1.50 KiB").
std::string format_integer_scaled(uint64_t magnitude, bool negative, const char* const* names,
                                  std::size_t count, uint64_t step) {
    std::size_t index = 0;
    uint64_t scale = 1;
    while (index + 1 < count && magnitude / scale >= step) {
        scale *= step;
        ++index;
    }
    const char* sign = negative ? "-" : "";
    char buffer[64];
    if (magnitude % scale == 0) {
        std::snprintf(buffer, sizeof(buffer), "%s%llu %s", sign,
                      static_cast<unsigned long long>(magnitude / scale), names[index]);
        return buffer;
    }
    double scaled = static_cast<double>(magnitude) / static_cast<double>(scale);
    if (std::round(scaled * 100.0) / 100.0 >= static_cast<double>(step) && index + 1 < count) {
        scaled /= static_cast<double>(step);
        ++index;
    }
    std::snprintf(buffer, sizeof(buffer), "%s%.2f %s", sign, scaled, names[index]);
    return buffer;
}

}  // namespace

std::string describe(Kind kind) {
    std::string list;
    for (const UnitDef& u : kUnits) {
        if (u.kind != kind) continue;
        if (!list.empty()) list += ", ";
        list += u.name;
    }
    return std::string(noun(kind)) + " (" + list + ")";
}

Quantity parse(std::string_view text) {
    Parsed parsed = parse_text(text, nullptr);
    return Quantity{parsed.number.value * parsed.unit->factor, parsed.unit->kind};
}

uint64_t bytes(std::string_view text) {
    Parsed parsed = parse_kind(text, Kind::kSize);
    const Number& number = parsed.number;
    if (number.digits.empty()) return 0;
    std::string_view shown = trim(text);
    auto too_large = [&]() {
        return UnitError(quoted(shown) + " is too large; sizes are limited to 2^64 - 1 bytes");
    };
    // Exact: digits * factor * 10^exp10 in 128-bit integers. Every size factor is an integer.
    // Twenty digits always exceed 2^64 once scaled by a factor of at least one.
    if (number.digits.size() > 20 || number.exp10 > 40) throw too_large();
    unsigned __int128 value = 0;
    for (char c : number.digits) value = value * 10 + static_cast<unsigned>(c - '0');
    value *= static_cast<uint64_t>(parsed.unit->factor);
    const unsigned __int128 kMax = std::numeric_limits<uint64_t>::max();
    for (int e = number.exp10; e > 0; --e) {
        if (value > kMax) throw too_large();
        value *= 10;
    }
    for (int e = number.exp10; e < 0; ++e) {
        if (value % 10 != 0) {
            throw UnitError(quoted(shown) + " is not a whole number of bytes");
        }
        value /= 10;
    }
    if (value > kMax) throw too_large();
    return static_cast<uint64_t>(value);
}

int64_t picoseconds(std::string_view text) {
    double ps = value_of(text, Kind::kTime);
    double rounded = std::round(ps);
    // 2^63 is exactly representable; anything at or above it does not fit.
    if (rounded >= 9223372036854775808.0) {
        throw UnitError(quoted(trim(text)) + " is too long; times are limited to about 106 days");
    }
    return static_cast<int64_t>(rounded);
}

double hertz(std::string_view text) { return value_of(text, Kind::kFrequency); }

double bits_per_second(std::string_view text) { return value_of(text, Kind::kBitRate); }

double bytes_per_second(std::string_view text) { return value_of(text, Kind::kByteRate); }

std::string format_bytes(uint64_t bytes) {
    static const char* const kNames[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    return format_integer_scaled(bytes, false, kNames, std::size(kNames), 1024);
}

std::string format_time_ps(int64_t ps) {
    static const char* const kNames[] = {"ps", "ns", "us", "ms", "s"};
    // Negative durations only appear in differences; print them rather than fail.
    uint64_t magnitude = ps < 0 ? 0 - static_cast<uint64_t>(ps) : static_cast<uint64_t>(ps);
    return format_integer_scaled(magnitude, ps < 0, kNames, std::size(kNames), 1000);
}

std::string format_hertz(double hz) {
    static const char* const kNames[] = {"Hz", "kHz", "MHz", "GHz", "THz"};
    return format_scaled(hz, kNames, std::size(kNames), 1000.0);
}

std::string format_byte_rate(double bytes_per_second) {
    static const char* const kNames[] = {"B/s", "KB/s", "MB/s", "GB/s", "TB/s", "PB/s"};
    return format_scaled(bytes_per_second, kNames, std::size(kNames), 1000.0);
}

}  // namespace asim::units

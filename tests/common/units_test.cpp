// Unit parsing: every unit of every kind, the messages for a missing, unknown or wrong-kind
// unit, exact whole-byte sizes, and the report formats.
#include "models/common/units.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

namespace asim::units {
namespace {

// The message of the UnitError that `text` raises through `parse_fn`, or "" when none.
template <typename Fn>
std::string error_of(Fn parse_fn, const std::string& text) {
    try {
        parse_fn(text);
    } catch (const UnitError& e) {
        return e.what();
    }
    return "";
}

std::string parse_error(const std::string& text) {
    return error_of([](const std::string& t) { return parse(t); }, text);
}
std::string bytes_error(const std::string& text) {
    return error_of([](const std::string& t) { return bytes(t); }, text);
}
std::string ps_error(const std::string& text) {
    return error_of([](const std::string& t) { return picoseconds(t); }, text);
}
std::string hz_error(const std::string& text) {
    return error_of([](const std::string& t) { return hertz(t); }, text);
}

TEST(Units, SizesBinaryAndDecimal) {
    EXPECT_EQ(bytes("1B"), 1u);
    EXPECT_EQ(bytes("2KiB"), 2048u);
    EXPECT_EQ(bytes("64MiB"), 64ull << 20);
    EXPECT_EQ(bytes("3GiB"), 3ull << 30);
    EXPECT_EQ(bytes("2TiB"), 2ull << 40);
    EXPECT_EQ(bytes("2KB"), 2000u);
    EXPECT_EQ(bytes("5MB"), 5000000u);
    EXPECT_EQ(bytes("7GB"), 7000000000ull);
    EXPECT_EQ(bytes("1TB"), 1000000000000ull);
    EXPECT_EQ(bytes("0B"), 0u);
}

TEST(Units, WhitespaceSignAndExponent) {
    EXPECT_EQ(bytes("64 MiB"), 64ull << 20);
    EXPECT_EQ(bytes("  64\tMiB  "), 64ull << 20);
    EXPECT_EQ(bytes("+4KiB"), 4096u);
    EXPECT_DOUBLE_EQ(hertz("2e3MHz"), 2e9);
    EXPECT_DOUBLE_EQ(hertz("2E-3GHz"), 2e6);
    EXPECT_DOUBLE_EQ(hertz(".5GHz"), 5e8);
    EXPECT_EQ(bytes("1e3B"), 1000u);
}

TEST(Units, WholeBytesAreExact) {
    EXPECT_EQ(bytes("1.5KiB"), 1536u);
    // 1.1 * 1000 is 1100.0000000000002 in binary floating point; sizes are computed exactly.
    EXPECT_EQ(bytes("1.1KB"), 1100u);
    EXPECT_EQ(bytes("0.5MiB"), 512u * 1024u);
    EXPECT_EQ(bytes("1e3KB"), 1000000u);
    EXPECT_EQ(bytes("18446744073709551615B"), UINT64_MAX);
    EXPECT_EQ(bytes_error("1.5B"), "'1.5B' is not a whole number of bytes");
    EXPECT_EQ(bytes_error("0.1KiB"), "'0.1KiB' is not a whole number of bytes");
    EXPECT_NE(bytes_error("18446744073709551616B").find("is too large"), std::string::npos);
    EXPECT_NE(bytes_error("16777216TiB").find("is too large"), std::string::npos);
    EXPECT_NE(bytes_error("1e300TB").find("is too large"), std::string::npos);
    EXPECT_NE(bytes_error("-1KiB").find("is negative"), std::string::npos);
}

TEST(Units, Times) {
    EXPECT_EQ(picoseconds("3ps"), 3);
    EXPECT_EQ(picoseconds("1.2ns"), 1200);
    EXPECT_EQ(picoseconds("2us"), 2000000);
    EXPECT_EQ(picoseconds("1.5ms"), 1500000000);
    EXPECT_EQ(picoseconds("2s"), 2000000000000);
    EXPECT_EQ(picoseconds("0.4ps"), 0);
    EXPECT_EQ(picoseconds("0.6ps"), 1);  // rounded to the nearest picosecond
    EXPECT_EQ(picoseconds("1.0006ns"), 1001);
    EXPECT_NE(ps_error("-1ns").find("is negative"), std::string::npos);
    EXPECT_NE(ps_error("1e10s").find("is too long"), std::string::npos);
}

TEST(Units, FrequenciesAndRates) {
    EXPECT_DOUBLE_EQ(hertz("50Hz"), 50.0);
    EXPECT_DOUBLE_EQ(hertz("32kHz"), 32e3);
    EXPECT_DOUBLE_EQ(hertz("800MHz"), 800e6);
    EXPECT_DOUBLE_EQ(hertz("1.65GHz"), 1.65e9);
    EXPECT_DOUBLE_EQ(bits_per_second("9600bps"), 9600.0);
    EXPECT_DOUBLE_EQ(bits_per_second("56Kbps"), 56e3);
    EXPECT_DOUBLE_EQ(bits_per_second("100Mbps"), 100e6);
    EXPECT_DOUBLE_EQ(bits_per_second("200Gbps"), 200e9);
    EXPECT_DOUBLE_EQ(bits_per_second("1.6Tbps"), 1.6e12);
    EXPECT_DOUBLE_EQ(bytes_per_second("10B/s"), 10.0);
    EXPECT_DOUBLE_EQ(bytes_per_second("10KB/s"), 10e3);
    EXPECT_DOUBLE_EQ(bytes_per_second("10MB/s"), 10e6);
    EXPECT_DOUBLE_EQ(bytes_per_second("64GB/s"), 64e9);
    EXPECT_DOUBLE_EQ(bytes_per_second("1.6TB/s"), 1.6e12);
    EXPECT_DOUBLE_EQ(bytes_per_second("1KiB/s"), 1024.0);
    EXPECT_DOUBLE_EQ(bytes_per_second("1MiB/s"), 1048576.0);
    EXPECT_DOUBLE_EQ(bytes_per_second("1GiB/s"), 1073741824.0);
    EXPECT_DOUBLE_EQ(bytes_per_second("1TiB/s"), 1099511627776.0);
}

TEST(Units, ParseReportsKindAndBaseValue) {
    Quantity q = parse("1.5GiB");
    EXPECT_EQ(q.kind, Kind::kSize);
    EXPECT_DOUBLE_EQ(q.value, 1.5 * 1073741824.0);
    EXPECT_EQ(parse("3ns").kind, Kind::kTime);
    EXPECT_DOUBLE_EQ(parse("3ns").value, 3000.0);
    EXPECT_EQ(parse("1Hz").kind, Kind::kFrequency);
    EXPECT_EQ(parse("1bps").kind, Kind::kBitRate);
    EXPECT_EQ(parse("1B/s").kind, Kind::kByteRate);
    EXPECT_DOUBLE_EQ(parse("-2ns").value, -2000.0);  // parse() itself allows a sign
}

TEST(Units, WrongKindNamesBoth) {
    EXPECT_EQ(hz_error("64MiB"),
              "expected a frequency (Hz, kHz, MHz, GHz), got '64MiB', which is a size");
    EXPECT_EQ(bytes_error("1.65GHz"),
              "expected a size (B, KiB, MiB, GiB, TiB, KB, MB, GB, TB), got '1.65GHz', which is "
              "a frequency");
    EXPECT_NE(ps_error("200Gbps").find("which is a bit rate"), std::string::npos);
    EXPECT_NE(error_of([](const std::string& t) { return bits_per_second(t); }, "1.6TB/s")
                  .find("which is a byte rate"),
              std::string::npos);
    EXPECT_NE(error_of([](const std::string& t) { return bytes_per_second(t); }, "5ns")
                  .find("which is a time"),
              std::string::npos);
}

TEST(Units, MissingUnit) {
    EXPECT_EQ(parse_error("64"), "'64' has no unit; write e.g. 64MiB or 64ns");
    EXPECT_EQ(bytes_error("64"),
              "'64' has no unit; expected a size (B, KiB, MiB, GiB, TiB, KB, MB, GB, TB), "
              "e.g. 64MiB");
    EXPECT_EQ(hz_error("1.65"),
              "'1.65' has no unit; expected a frequency (Hz, kHz, MHz, GHz), e.g. 1.65GHz");
}

TEST(Units, UnknownUnitIsCaseSensitive) {
    // "Mb" is megabits to most readers; it is not silently taken as megabytes.
    EXPECT_EQ(parse_error("64Mb"),
              "unknown unit 'Mb' in '64Mb'; did you mean 'MB'? (units are case-sensitive)");
    EXPECT_EQ(parse_error("1.65ghz"),
              "unknown unit 'ghz' in '1.65ghz'; did you mean 'GHz'? (units are case-sensitive)");
    EXPECT_EQ(parse_error("25Gb/s"), "unknown unit 'Gb/s' in '25Gb/s'; did you mean 'Gbps'?");
    std::string far = parse_error("3furlongs");
    EXPECT_NE(far.find("unknown unit 'furlongs' in '3furlongs'; accepted units: a size ("),
              std::string::npos);
    EXPECT_NE(far.find("a byte rate (B/s, KB/s"), std::string::npos);
}

TEST(Units, MalformedNumbers) {
    EXPECT_EQ(parse_error("MiB"), "'MiB' is not a number followed by a unit");
    EXPECT_EQ(parse_error("1,5GHz"), "'1,5GHz' is not a number followed by a unit");
    EXPECT_EQ(parse_error("1.2.3ns"), "'1.2.3ns' is not a number followed by a unit");
    EXPECT_EQ(parse_error("64 Mi B"), "'64 Mi B' is not a number followed by a unit");
    EXPECT_EQ(parse_error("."), "'.' is not a number followed by a unit");
    EXPECT_EQ(parse_error(""), "empty value; expected a number with a unit, e.g. 64MiB");
    EXPECT_NE(bytes_error("abc").find("expected a size"), std::string::npos);
}

TEST(Units, NanAndInfinityRejected) {
    EXPECT_NE(parse_error("nanGHz").find("is not a number"), std::string::npos);
    EXPECT_NE(parse_error("infGHz").find("is not a number"), std::string::npos);
    EXPECT_NE(parse_error("1e999GHz").find("is too large"), std::string::npos);
}

TEST(Units, DescribeListsUnits) {
    EXPECT_EQ(describe(Kind::kTime), "a time (ps, ns, us, ms, s)");
    EXPECT_EQ(describe(Kind::kBitRate), "a bit rate (bps, Kbps, Mbps, Gbps, Tbps)");
}

TEST(Units, FormatBytes) {
    EXPECT_EQ(format_bytes(0), "0 B");
    EXPECT_EQ(format_bytes(1000), "1000 B");
    EXPECT_EQ(format_bytes(1024), "1 KiB");
    EXPECT_EQ(format_bytes(1536), "1.50 KiB");
    EXPECT_EQ(format_bytes(64ull << 20), "64 MiB");
    EXPECT_EQ(format_bytes(3ull << 40), "3 TiB");
    EXPECT_EQ(format_bytes((1ull << 20) - 1), "1.00 MiB");  // rounding carries to the next unit
}

TEST(Units, FormatTime) {
    EXPECT_EQ(format_time_ps(0), "0 ps");
    EXPECT_EQ(format_time_ps(999), "999 ps");
    EXPECT_EQ(format_time_ps(1200), "1.20 ns");
    EXPECT_EQ(format_time_ps(5000), "5 ns");
    EXPECT_EQ(format_time_ps(2500000), "2.50 us");
    EXPECT_EQ(format_time_ps(-1500), "-1.50 ns");
    EXPECT_EQ(format_time_ps(7000000000000), "7 s");
    EXPECT_EQ(format_time_ps(7200000000000000), "7200 s");
}

TEST(Units, FormatRates) {
    EXPECT_EQ(format_hertz(1.65e9), "1.65 GHz");
    EXPECT_EQ(format_hertz(50.0), "50.00 Hz");
    EXPECT_EQ(format_hertz(999999.0), "1.00 MHz");
    EXPECT_EQ(format_byte_rate(9.6e12), "9.60 TB/s");
    EXPECT_EQ(format_byte_rate(64e9), "64.00 GB/s");
}

}  // namespace
}  // namespace asim::units

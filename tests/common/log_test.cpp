#include <gtest/gtest.h>

#include "models/common/errors.h"
#include "models/common/log.h"

namespace asim {
namespace {

TEST(Log, LongestPrefixWins) {
    configure_logging("info,die=debug,die.l2=error");
    EXPECT_EQ(log_level_for("die.core3.mte2"), LogLevel::kDebug);
    EXPECT_EQ(log_level_for("die.l2"), LogLevel::kError);
    EXPECT_EQ(log_level_for("die.l2.slice3"), LogLevel::kError);
    EXPECT_EQ(log_level_for("dies"), LogLevel::kInfo);  // prefixes match whole path components
    EXPECT_EQ(log_level_for("other"), LogLevel::kInfo);
    reset_logging();
    EXPECT_EQ(log_level_for("die"), LogLevel::kWarn);
}

TEST(Log, BadSpecsAreInputErrors) {
    EXPECT_THROW(configure_logging("loud"), InputError);
    EXPECT_THROW(configure_logging("die=loud"), InputError);
    EXPECT_THROW(configure_logging("=debug"), InputError);
    EXPECT_THROW(configure_logging("info,,debug"), InputError);
}

TEST(Log, LoggerHonoursLevel) {
    configure_logging("die.l2=debug");
    EXPECT_TRUE(Logger("die.l2").enabled(LogLevel::kDebug));
    EXPECT_FALSE(Logger("die.l2").enabled(LogLevel::kTrace));
    EXPECT_FALSE(Logger("die.hbm").enabled(LogLevel::kInfo));
    reset_logging();
}

}  // namespace
}  // namespace asim

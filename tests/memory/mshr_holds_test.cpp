// MshrHolds against a reference multiset: the earliest hold first, counts changed in place, in
// every mix of holds pushed in time order (its FIFO) and out of it (its radix heap).
#include "models/memory/l2/mshr_holds.h"

#include <gtest/gtest.h>

#include <map>
#include <random>

namespace asim {
namespace {

// Pushes, takes one MSHR of the earliest hold and retires holds up to a time, at random, with
// `in_order` the chance that a push is no earlier than the one before; checks every front().
void check_against_reference(double in_order, unsigned seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> chance(0.0, 1.0);
    MshrHolds holds;
    std::multimap<Picoseconds, uint32_t> reference;  // until -> count
    uint64_t held = 0, reference_held = 0;
    Picoseconds latest = 1000, now = 0;
    for (int step = 0; step < 20000; ++step) {
        const double what = chance(rng);
        if (what < 0.5) {
            const Picoseconds until =
                chance(rng) < in_order ? latest + rng() % 50 : now + rng() % (latest - now + 1);
            latest = std::max(latest, until);
            const auto count = static_cast<uint32_t>(1 + rng() % 8);
            holds.push({until, count});
            reference.emplace(until, count);
            held += count;
            reference_held += count;
        } else if (what < 0.75) {
            // Retire what has ended by a later time (the L2's retire()).
            now += rng() % 40;
            while (!holds.empty() && holds.front().until <= now) {
                held -= holds.front().count;
                holds.pop();
            }
            while (!reference.empty() && reference.begin()->first <= now) {
                reference_held -= reference.begin()->second;
                reference.erase(reference.begin());
            }
        } else if (!holds.empty()) {
            // Take one MSHR of the earliest hold.
            ASSERT_FALSE(reference.empty());
            MshrHolds::Hold& first = holds.front();
            ASSERT_EQ(first.until, reference.begin()->first) << "step " << step;
            --held;
            --reference_held;
            if (--first.count == 0) holds.pop();
            // Equal times are interchangeable: take the one MSHR from any hold of that time.
            if (--reference.begin()->second == 0) reference.erase(reference.begin());
        }
        ASSERT_EQ(holds.empty(), reference.empty()) << "step " << step;
        ASSERT_EQ(held, reference_held) << "step " << step;
        if (!holds.empty()) {
            ASSERT_EQ(holds.front().until, reference.begin()->first);
        }
    }
}

TEST(MshrHolds, AllInTimeOrder) { check_against_reference(1.0, 1); }
TEST(MshrHolds, MostlyInTimeOrder) { check_against_reference(0.9, 2); }
TEST(MshrHolds, HalfOutOfOrder) { check_against_reference(0.5, 3); }
TEST(MshrHolds, NoneInTimeOrderOnPurpose) { check_against_reference(0.0, 4); }

}  // namespace
}  // namespace asim

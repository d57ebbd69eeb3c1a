// SlidingVector: a FIFO and a sorted window in one flat array; the live elements and their
// indices stay right across the compactions that drop the front.
#include "models/common/sliding_vector.h"

#include <gtest/gtest.h>

#include <deque>
#include <random>

namespace asim {
namespace {

TEST(SlidingVector, BehavesLikeADequeAcrossCompactions) {
    SlidingVector<int> v(4);
    std::deque<int> reference;
    std::mt19937 rng(3);
    for (int step = 0; step < 20000; ++step) {
        const unsigned what = rng() % 10;
        if (what < 5 || reference.empty()) {
            v.push_back(step);
            reference.push_back(step);
        } else if (what < 8) {
            v.pop_front();
            reference.pop_front();
        } else if (what == 8) {
            const std::size_t i = rng() % (reference.size() + 1);
            v.insert(i, -step);
            reference.insert(reference.begin() + static_cast<std::ptrdiff_t>(i), -step);
        } else {
            const std::size_t i = rng() % reference.size();
            v.erase(i);
            reference.erase(reference.begin() + static_cast<std::ptrdiff_t>(i));
        }
        ASSERT_EQ(v.size(), reference.size()) << "step " << step;
        ASSERT_EQ(v.empty(), reference.empty());
        if (reference.empty()) continue;
        ASSERT_EQ(v.front(), reference.front());
        ASSERT_EQ(v.back(), reference.back());
        const std::size_t i = rng() % reference.size();
        ASSERT_EQ(v[i], reference[i]) << "step " << step << " index " << i;
        ASSERT_EQ(*(v.begin() + static_cast<std::ptrdiff_t>(i)), reference[i]);
        ASSERT_EQ(v.end() - v.begin(), static_cast<std::ptrdiff_t>(reference.size()));
    }
}

TEST(SlidingVector, EmplaceBackIsValueInitialised) {
    struct Pair {
        long a, b;
    };
    SlidingVector<Pair> v(64);
    Pair& p = v.emplace_back();
    EXPECT_EQ(p.a, 0);
    EXPECT_EQ(p.b, 0);
    p.b = 7;
    EXPECT_EQ(v.back().b, 7);
}

}  // namespace
}  // namespace asim

// SmallVector: elements inline up to N, then on the heap, in order; erase keeps the order;
// copies and moves of inline and spilled vectors; elements that own memory are destroyed.
#include "models/common/small_vector.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <utility>

namespace asim {
namespace {

TEST(SmallVector, HoldsNInlineThenSpillsInOrder) {
    SmallVector<int, 3> v;
    EXPECT_TRUE(v.empty());
    for (int i = 0; i < 3; ++i) v.push_back(i);
    EXPECT_TRUE(v.is_inline());
    EXPECT_EQ(v.capacity(), 3u);
    for (int i = 3; i < 100; ++i) v.push_back(i);
    EXPECT_FALSE(v.is_inline());
    ASSERT_EQ(v.size(), 100u);
    for (int i = 0; i < 100; ++i) EXPECT_EQ(v[static_cast<std::size_t>(i)], i);
    EXPECT_EQ(v.front(), 0);
    EXPECT_EQ(v.back(), 99);
    v.pop_back();
    EXPECT_EQ(v.back(), 98);
    v.clear();
    EXPECT_TRUE(v.empty());
}

TEST(SmallVector, EraseKeepsTheOrderOfTheRest) {
    SmallVector<int, 2> v{1, 2, 3, 4, 5};
    auto it = v.erase(v.begin() + 1);
    EXPECT_EQ(*it, 3);
    v.erase(v.end() - 1);
    v.erase(v.begin());
    ASSERT_EQ(v.size(), 2u);
    EXPECT_EQ(v[0], 3);
    EXPECT_EQ(v[1], 4);
}

TEST(SmallVector, CopiesAndMovesInlineAndSpilledVectors) {
    for (const int n : {2, 9}) {
        SmallVector<std::string, 4> a;
        for (int i = 0; i < n; ++i) a.push_back(std::string(40, static_cast<char>('a' + i)));
        SmallVector<std::string, 4> b = a;  // copy
        ASSERT_EQ(b.size(), a.size());
        for (int i = 0; i < n; ++i)
            EXPECT_EQ(b[static_cast<std::size_t>(i)], a[static_cast<std::size_t>(i)]);
        SmallVector<std::string, 4> c = std::move(a);  // move
        EXPECT_TRUE(a.empty());
        EXPECT_TRUE(a.is_inline());
        ASSERT_EQ(c.size(), static_cast<std::size_t>(n));
        EXPECT_EQ(c.back(), std::string(40, static_cast<char>('a' + n - 1)));
        SmallVector<std::string, 4> d;
        d.push_back("x");
        d = c;  // copy-assign over an element
        EXPECT_EQ(d.size(), c.size());
        d = std::move(b);  // move-assign
        EXPECT_EQ(d[0], std::string(40, 'a'));
        a.push_back("reused after the move");
        EXPECT_EQ(a.size(), 1u);
    }
}

TEST(SmallVector, PushingAnElementOfItselfWhileGrowingCopiesItFirst) {
    SmallVector<std::string, 1> v;
    v.push_back(std::string(64, 'q'));
    v.push_back(v[0]);  // grows: the argument lives in the old storage
    v.push_back(v[1]);
    ASSERT_EQ(v.size(), 3u);
    for (const auto& s : v) EXPECT_EQ(s, std::string(64, 'q'));
}

TEST(SmallVector, DestroysWhatItHolds) {
    auto counted = std::make_shared<int>(7);
    {
        SmallVector<std::shared_ptr<int>, 2> v;
        for (int i = 0; i < 5; ++i) v.push_back(counted);
        EXPECT_EQ(counted.use_count(), 6);
        v.erase(v.begin());
        EXPECT_EQ(counted.use_count(), 5);
    }
    EXPECT_EQ(counted.use_count(), 1);
}

}  // namespace
}  // namespace asim

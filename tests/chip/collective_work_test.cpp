// A collective's work on a member die (models/chip/die/collective_work.h): the copy and add ops
// read and write exactly the bytes the die sends, receives and reduces, inside the HCCL buffer at
// the top of HBM, in buffer-sized pieces; and the ranks' traffic comes from the schedule.
#include <gtest/gtest.h>

#include "models/chip/die/collective_work.h"
#include "models/interconnect/collectives/schedule.h"

namespace asim {
namespace {

trace::Op collective(uint64_t bytes) {
    trace::Op op;
    op.id = 7;
    op.kind = trace::OpKind::kCollective;
    op.name = "ar";
    op.dtype = DType::kBf16;
    op.collective = {"all_reduce", {0, 1, 2, 3}, bytes};
    return op;
}

TEST(CollectiveWork, OpsMoveAndReduceExactlyTheDiesShareInsideTheBufferAtTheTopOfHbm) {
    const uint64_t hbm = 64ull << 30, buffer = 200ull << 20;
    CollectiveDieWork w;
    w.read_bytes = 3 * buffer + 4096;  // more than the buffer: in pieces
    w.write_bytes = w.read_bytes;
    w.reduce_bytes = w.read_bytes / 2;
    w.buffer_bytes = buffer;
    uint64_t copied = 0, reduced = 0, memory = 0;
    for (const trace::Op& op : collective_die_ops(collective(1), w, hbm)) {
        EXPECT_EQ(op.id, 7u);
        memory += memory_bytes(op);
        for (const auto* list : {&op.inputs, &op.outputs})
            for (const trace::Tensor& t : *list) {
                EXPECT_GE(t.addr, hbm - 2 * buffer) << t.name;
                EXPECT_LE(t.addr + t.bytes, hbm) << t.name;
                EXPECT_LE(t.bytes, buffer);
            }
        if (op.kind == trace::OpKind::kMemcpy) {
            copied += op.copy_bytes;
        } else {
            ASSERT_EQ(op.kind, trace::OpKind::kElementwise);
            EXPECT_EQ(op.vector.func, "add");
            EXPECT_EQ(op.inputs.size(), 2u);
            reduced += op.vector.elements() * 2;  // bf16
        }
    }
    EXPECT_EQ(2 * copied, w.read_bytes + w.write_bytes);
    EXPECT_EQ(reduced, w.reduce_bytes);
    EXPECT_EQ(memory, w.read_bytes + w.write_bytes + 3 * w.reduce_bytes);
    // Nothing to do, nothing issued; a small HBM shrinks the buffer to a quarter of it.
    EXPECT_TRUE(collective_die_ops(collective(1), CollectiveDieWork{}, hbm).empty());
    for (const trace::Op& op : collective_die_ops(collective(1), w, 1ull << 20))
        for (const trace::Tensor& t : op.inputs) EXPECT_LE(t.bytes, (1ull << 20) / 4);
}

TEST(CollectiveWork, RankTrafficFollowsTheSchedule) {
    const uint64_t m = 1 << 20;
    const uint32_t p = 8;
    ScheduleShape shape;
    shape.ranks = p;
    shape.bytes = m;
    shape.op = CollectiveOp::allreduce;
    shape.algo = CollectiveAlgo::ring;
    const auto ring = make_schedule(shape);
    for (uint32_t r = 0; r < p; ++r) {
        const RankTraffic t = rank_traffic(*ring, r);
        EXPECT_EQ(t.sent, 2 * (p - 1) * (m / p));  // reduce-scatter + all-gather
        EXPECT_EQ(t.received, t.sent);
        EXPECT_EQ(t.reduced, (p - 1) * (m / p));  // the reduce-scatter's receives
    }
    shape.op = CollectiveOp::allgather;
    const RankTraffic g = rank_traffic(*make_schedule(shape), 3);
    EXPECT_EQ(g.sent, (p - 1) * (m / p));
    EXPECT_EQ(g.reduced, 0u);
    shape.op = CollectiveOp::broadcast;
    shape.algo = CollectiveAlgo::mesh;
    shape.root = 2;
    const auto bcast = make_schedule(shape);
    EXPECT_EQ(rank_traffic(*bcast, 2).sent, (p - 1) * m);  // the root sends to every peer
    EXPECT_EQ(rank_traffic(*bcast, 5).sent, 0u);
    EXPECT_EQ(rank_traffic(*bcast, 5).received, m);
}

}  // namespace
}  // namespace asim

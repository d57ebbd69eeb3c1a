#include <gtest/gtest.h>

#include "models/common/errors.h"
#include "models/common/payload.h"

namespace asim {
namespace {

TEST(PayloadPool, ReusesReleasedPayloads) {
    PayloadPool pool;
    tlm::tlm_generic_payload* a = pool.acquire();
    info_of(*a)->op_id = 99;
    a->release();
    EXPECT_EQ(pool.allocated(), 1u);
    EXPECT_EQ(pool.available(), 1u);
    tlm::tlm_generic_payload* b = pool.acquire();
    EXPECT_EQ(a, b);
    ASSERT_NE(info_of(*b), nullptr);
    EXPECT_EQ(info_of(*b)->op_id, 0u);  // reset on reuse
    tlm::tlm_generic_payload* c = pool.acquire();
    EXPECT_NE(b, c);
    EXPECT_EQ(pool.allocated(), 2u);
    b->release();
    c->release();
    EXPECT_EQ(pool.available(), 2u);
}

TEST(Payload, ValidationSetsTheRightResponse) {
    PayloadPool pool;
    tlm::tlm_generic_payload* p = pool.acquire();
    p->set_command(tlm::TLM_READ_COMMAND);
    p->set_address(0);
    p->set_data_length(64);
    p->set_streaming_width(64);
    EXPECT_TRUE(validate_payload(*p, 1024));

    p->set_address(1000);  // 1000 + 64 > 1024
    EXPECT_FALSE(validate_payload(*p, 1024));
    EXPECT_EQ(p->get_response_status(), tlm::TLM_ADDRESS_ERROR_RESPONSE);

    p->set_address(0);
    p->set_streaming_width(32);
    EXPECT_FALSE(validate_payload(*p, 1024));
    EXPECT_EQ(p->get_response_status(), tlm::TLM_BURST_ERROR_RESPONSE);

    p->set_streaming_width(64);
    p->set_command(tlm::TLM_IGNORE_COMMAND);
    EXPECT_FALSE(validate_payload(*p, 1024));
    EXPECT_EQ(p->get_response_status(), tlm::TLM_COMMAND_ERROR_RESPONSE);

    p->set_command(tlm::TLM_WRITE_COMMAND);
    info_of(*p)->timing_only = false;
    EXPECT_FALSE(validate_payload(*p, 1024));
    EXPECT_EQ(p->get_response_status(), tlm::TLM_GENERIC_ERROR_RESPONSE);

    p->set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    EXPECT_THROW(check_response(*p, "tester"), SimulationError);
    p->release();
}

}  // namespace
}  // namespace asim

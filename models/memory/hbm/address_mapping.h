// Address mapping from a bit-order string such as `rorabgbachco` (most to least significant):
// two-letter fields ro (row), ra (rank), bg (bank group), ba (bank), ch (channel), pc
// (pseudo-channel), co (column, in units of one access). Bits below the column select the byte
// within one access. Fields are mixed-radix digits, so counts need not be powers of two (an
// HBM3 12-high stack has 3 stack IDs); power-of-two fields decode with shifts.
//
// A field may be split: a field name followed by a number of bits takes that many of the field's
// bits, and the pieces of one field hold its bits in address order (the least significant piece
// holds the low bits). At most one piece of a field may leave its width out; it takes what the
// others leave. `rorabacochpcco3bg` puts the bank group in the lowest bits (consecutive accesses
// alternate bank groups), then the low 3 column bits (8 accesses to each bank group), then the
// pseudo-channel and channel (a 1 KiB channel interleave for 32 B accesses and 4 bank groups),
// then the rest of the column.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "models/memory/hbm/hbm_device.h"

namespace asim {

struct DecodedAddress {
    uint32_t channel = 0;  // flat: stack-channel * pseudo_channels + pseudo-channel
    uint32_t rank = 0;
    uint32_t bank_group = 0;
    uint32_t bank = 0;
    uint32_t row = 0;
    uint32_t column = 0;
};

class AddressMapping {
public:
    // Throws std::invalid_argument with a readable message when the string is malformed: an
    // unknown field, a field repeated without widths, widths that do not divide the field's
    // count, or a field whose count is above 1 left out.
    AddressMapping(const std::string& order, const HbmOrganisation& org);

    DecodedAddress decode(uint64_t addr) const;  // addr < capacity
    uint64_t encode(const DecodedAddress& a) const;
    // Bytes of consecutive addresses that stay in one channel (the channel interleave).
    uint64_t channel_interleave_bytes() const { return m_channel_interleave; }
    // How many banks an aligned block of `bytes` consecutive addresses spans (the rank, bank
    // group and bank digits below its size): 4 for a 512 B line when the bank group is the
    // lowest field above the access.
    uint64_t banks_in(uint64_t bytes) const;

private:
    enum Field { kRow, kRank, kBankGroup, kBank, kChannel, kPseudo, kColumn, kFieldCount };
    struct Digit {
        Field field;
        uint64_t count;
        uint32_t shift;  // when count is a power of two
        bool pow2;
        uint64_t scale;  // weight of this piece within its field's value
    };
    std::vector<Digit> m_digits;  // least significant first
    uint32_t m_offset_bits = 0;
    uint32_t m_pseudo = 1;
    uint64_t m_channel_interleave = 0;
};

}  // namespace asim

#include "models/memory/hbm/address_mapping.h"

#include <stdexcept>

namespace asim {

namespace {
bool is_pow2(uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }
uint32_t log2_of(uint64_t v) {
    uint32_t n = 0;
    while ((uint64_t{1} << n) < v) ++n;
    return n;
}
}  // namespace

AddressMapping::AddressMapping(const std::string& order, const HbmOrganisation& org)
    : m_pseudo(org.pseudo_channels) {
    const char* names[kFieldCount] = {"ro", "ra", "bg", "ba", "ch", "pc", "co"};
    const uint64_t counts[kFieldCount] = {org.rows,           org.ranks,
                                          org.bank_groups,    org.banks_per_group,
                                          uint64_t{org.stacks} * org.channels_per_stack,
                                          org.pseudo_channels, org.columns()};
    if (order.size() % 2 != 0 || order.empty()) {
        throw std::invalid_argument("'" + order + "' is not a sequence of two-letter fields (ro ra bg ba ch pc co)");
    }
    bool seen[kFieldCount] = {};
    std::vector<Digit> msb_first;
    for (std::size_t i = 0; i < order.size(); i += 2) {
        const std::string f = order.substr(i, 2);
        int found = -1;
        for (int k = 0; k < kFieldCount; ++k) {
            if (f == names[k]) found = k;
        }
        if (found < 0) {
            throw std::invalid_argument("'" + order + "': unknown field '" + f +
                                        "' (fields: ro ra bg ba ch pc co)");
        }
        if (seen[found]) throw std::invalid_argument("'" + order + "': field '" + f + "' appears twice");
        seen[found] = true;
        const uint64_t c = counts[found];
        msb_first.push_back({static_cast<Field>(found), c, log2_of(c), is_pow2(c)});
    }
    for (int k = 0; k < kFieldCount; ++k) {
        if (!seen[k] && counts[k] > 1) {
            throw std::invalid_argument("'" + order + "': field '" + std::string(names[k]) +
                                        "' is missing (its count is " + std::to_string(counts[k]) + ")");
        }
    }
    m_digits.assign(msb_first.rbegin(), msb_first.rend());
    m_offset_bits = log2_of(org.access_bytes());
    m_channel_interleave = org.access_bytes();
    for (const Digit& d : m_digits) {
        if (d.field == kChannel || d.field == kPseudo) break;
        m_channel_interleave *= d.count;
    }
}

DecodedAddress AddressMapping::decode(uint64_t addr) const {
    uint64_t v = addr >> m_offset_bits;
    uint64_t fields[kFieldCount] = {};
    for (const Digit& d : m_digits) {
        if (d.pow2) {
            fields[d.field] = v & (d.count - 1);
            v >>= d.shift;
        } else {
            fields[d.field] = v % d.count;
            v /= d.count;
        }
    }
    DecodedAddress a;
    a.channel = static_cast<uint32_t>(fields[kChannel] * m_pseudo + fields[kPseudo]);
    a.rank = static_cast<uint32_t>(fields[kRank]);
    a.bank_group = static_cast<uint32_t>(fields[kBankGroup]);
    a.bank = static_cast<uint32_t>(fields[kBank]);
    a.row = static_cast<uint32_t>(fields[kRow]);
    a.column = static_cast<uint32_t>(fields[kColumn]);
    return a;
}

uint64_t AddressMapping::encode(const DecodedAddress& a) const {
    uint64_t fields[kFieldCount] = {};
    fields[kChannel] = a.channel / m_pseudo;
    fields[kPseudo] = a.channel % m_pseudo;
    fields[kRank] = a.rank;
    fields[kBankGroup] = a.bank_group;
    fields[kBank] = a.bank;
    fields[kRow] = a.row;
    fields[kColumn] = a.column;
    uint64_t v = 0;
    for (auto it = m_digits.rbegin(); it != m_digits.rend(); ++it) v = v * it->count + fields[it->field];
    return v << m_offset_bits;
}

}  // namespace asim

#include "models/memory/hbm/address_mapping.h"

#include <cctype>
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
    const uint64_t counts[kFieldCount] = {org.rows,
                                          org.ranks,
                                          org.bank_groups,
                                          org.banks_per_group,
                                          uint64_t{org.stacks} * org.channels_per_stack,
                                          org.pseudo_channels,
                                          org.columns()};
    const std::string fields_help =
        " (fields ro ra bg ba ch pc co, each optionally followed by a width in bits)";
    if (order.empty()) throw std::invalid_argument("empty address mapping" + fields_help);

    // Pieces, most significant first: field and width in bits (0: the remainder of the field).
    struct Piece {
        Field field;
        uint32_t bits;
    };
    std::vector<Piece> pieces;
    for (std::size_t i = 0; i < order.size();) {
        if (i + 2 > order.size() || !std::isalpha(static_cast<unsigned char>(order[i])) ||
            !std::isalpha(static_cast<unsigned char>(order[i + 1]))) {
            throw std::invalid_argument("'" + order + "' is not a sequence of two-letter fields" +
                                        fields_help);
        }
        const std::string f = order.substr(i, 2);
        i += 2;
        int found = -1;
        for (int k = 0; k < kFieldCount; ++k) {
            if (f == names[k]) found = k;
        }
        if (found < 0)
            throw std::invalid_argument("'" + order + "': unknown field '" + f + "'" + fields_help);
        uint32_t bits = 0;
        const std::size_t digits_from = i;
        while (i < order.size() && std::isdigit(static_cast<unsigned char>(order[i]))) {
            bits = bits * 10 + static_cast<uint32_t>(order[i] - '0');
            if (bits > 40)
                throw std::invalid_argument("'" + order + "': field '" + f +
                                            "' is wider than 40 bits");
            ++i;
        }
        if (i > digits_from && bits == 0) {
            throw std::invalid_argument("'" + order + "': field '" + f + "' has a width of 0 bits");
        }
        pieces.push_back({static_cast<Field>(found), bits});
    }

    // Each field's pieces: the widths must divide its count, and at most one piece takes the rest.
    uint64_t rest[kFieldCount];
    for (int k = 0; k < kFieldCount; ++k) {
        uint64_t sized = 1;
        int unsized = 0, n = 0;
        for (const Piece& p : pieces) {
            if (p.field != k) continue;
            ++n;
            if (p.bits == 0) {
                ++unsized;
            } else {
                sized <<= p.bits;
            }
        }
        const std::string name = names[k];
        if (n == 0) {
            if (counts[k] > 1) {
                throw std::invalid_argument("'" + order + "': field '" + name +
                                            "' is missing (its count is " +
                                            std::to_string(counts[k]) + ")");
            }
            rest[k] = 1;
            continue;
        }
        if (unsized > 1) {
            throw std::invalid_argument("'" + order + "': field '" + name +
                                        "' appears more than once without a width in bits");
        }
        if (counts[k] % sized != 0 || (unsized == 0 && sized != counts[k])) {
            throw std::invalid_argument("'" + order + "': the widths given to field '" + name +
                                        "' (" + std::to_string(sized) +
                                        " values) do not split its count of " +
                                        std::to_string(counts[k]));
        }
        rest[k] = counts[k] / sized;
    }

    uint64_t scale[kFieldCount];
    for (uint64_t& s : scale) s = 1;
    for (auto it = pieces.rbegin(); it != pieces.rend(); ++it) {  // least significant first
        const uint64_t c = it->bits ? uint64_t{1} << it->bits : rest[it->field];
        m_digits.push_back({it->field, c, log2_of(c), is_pow2(c), scale[it->field]});
        scale[it->field] *= c;
    }
    m_offset_bits = log2_of(org.access_bytes());
    m_channel_interleave = org.access_bytes();
    for (const Digit& d : m_digits) {
        if ((d.field == kChannel || d.field == kPseudo) && d.count > 1) break;
        m_channel_interleave *= d.count;
    }
}

uint64_t AddressMapping::banks_in(uint64_t bytes) const {
    uint64_t span = uint64_t{1} << m_offset_bits, banks = 1;
    for (const Digit& d : m_digits) {
        if (span >= bytes) break;
        const uint64_t taken = std::min(d.count, (bytes + span - 1) / span);
        if (d.field == kRank || d.field == kBankGroup || d.field == kBank) banks *= taken;
        span *= d.count;
    }
    return banks;
}

DecodedAddress AddressMapping::decode(uint64_t addr) const {
    uint64_t v = addr >> m_offset_bits;
    uint64_t fields[kFieldCount] = {};
    for (const Digit& d : m_digits) {
        uint64_t x;
        if (d.pow2) {
            x = v & (d.count - 1);
            v >>= d.shift;
        } else {
            x = v % d.count;
            v /= d.count;
        }
        fields[d.field] += x * d.scale;
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
    for (auto it = m_digits.rbegin(); it != m_digits.rend(); ++it) {
        v = v * it->count + fields[it->field] / it->scale % it->count;
    }
    return v << m_offset_bits;
}

}  // namespace asim

#include "testbenches/supernode/collective_agreement.h"

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include <fmt/format.h>

#include "models/common/errors.h"
#include "models/common/trace.h"

namespace asim {

namespace {

// One collective instance as its first member gave it.
struct FirstSeen {
    uint64_t bytes;
    uint32_t die;
    std::string where;  // "file:line"
};

// (kind, FNV-1a of the group, group size): a key of a few words for groups of thousands of dies.
using GroupKey = std::tuple<std::string, uint64_t, std::size_t>;

GroupKey group_key(const trace::Op& op) {
    const std::string& k = op.collective.kind;
    uint64_t h = 1469598103934665603ull;
    for (int d : op.collective.group) {
        for (int i = 0; i < 4; ++i) {
            h ^= static_cast<uint64_t>((static_cast<uint32_t>(d) >> (8 * i)) & 0xFF);
            h *= 1099511628211ull;
        }
    }
    return {k == "send" || k == "recv" ? std::string("sendrecv") : k, h,
            op.collective.group.size()};
}

}  // namespace

void check_collectives_agree(const TraceSet& set) {
    std::map<std::pair<GroupKey, uint32_t>, uint64_t> issued;  // (key, die) -> count so far
    std::map<std::pair<GroupKey, uint64_t>, FirstSeen>
        instances;  // (key, sequence) -> first member
    std::vector<char> listed(set.dies, 0);
    for (const auto& [die, path] : set.files)
        if (die < set.dies) listed[die] = 1;
    for (const auto& [die, path] : set.files) {
        trace::TraceReader reader(path.string());
        trace::Op op;
        while (reader.next(op)) {
            if (op.kind != trace::OpKind::kCollective) continue;
            for (int member : op.collective.group) {
                if (member >= 0 && static_cast<uint32_t>(member) < set.dies && listed[member])
                    continue;
                throw TraceError(fmt::format(
                    "{}:{}: op {} ({}): its group names die {}, which has no trace in the set "
                    "(the index lists {} of its {} dies); the collective could never finish",
                    path.string(), op.line, op.id, op.name, member, set.files.size(), set.dies));
            }
            const GroupKey key = group_key(op);
            const uint64_t seq = issued[{key, die}]++;
            const std::string where = path.string() + ":" + std::to_string(op.line);
            const auto [it, first] =
                instances.try_emplace({key, seq}, FirstSeen{op.collective.bytes, die, where});
            if (first || it->second.bytes == op.collective.bytes) continue;
            throw TraceError(
                fmt::format("{}: op {} ({}): {} of {} B, but die {} gives the same collective "
                            "(number {} of this kind on this "
                            "group) {} B at {}; members must agree on the size",
                            where, op.id, op.name, op.collective.kind, op.collective.bytes,
                            it->second.die, seq, it->second.bytes, it->second.where));
        }
    }
}

}  // namespace asim

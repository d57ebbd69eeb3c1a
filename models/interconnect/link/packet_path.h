// Packet-level model of one message crossing one or more parallel paths, each a chain of links
// (die -> switch -> ... -> die). Timing model, per link: a packet occupies the sender's serialiser
// for (payload + header) / (raw rate x op efficiency), flies for the propagation delay, is stored
// whole in the receiver's buffer (store-and-forward) and leaves it after the switching latency.
// Credit-based flow control: a sender holds one credit per free packet slot of the receiver's
// buffer, takes one per packet sent, and gets it back one propagation delay after the slot frees.
// Link-level retry: a packet arrives corrupted with the link's error rate (seeded, deterministic);
// its slot frees at once, the NAK reaches the sender after the propagation delay plus the retry
// latency and the packet is sent again ahead of new ones. A link can go down at a time: nothing is
// sent on it from then on, and a message that cannot finish is a SimulationError listing its stuck
// packets (the watchdog).
//
// Packets are sprayed round-robin over the paths (one per plane / equal-cost route). Event-driven:
// time jumps from one packet event to the next.
//
// Long messages: once the pipeline is full, every further packet adds the same time (the
// bottleneck's serialisation; with retries, the same on average). A message of more than
// exact_packets() packets is therefore simulated for two shorter messages of k1 < k2 packets with
// the same tail and path assignment (k1, k2 and the full count equal modulo the paths), and the
// rest extrapolated from them: completion(n) = c(k2) + (n - k2) (c(k2) - c(k1)) / (k2 - k1), and
// likewise the counters. Memory and time then stay bounded whatever the message size.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "models/interconnect/link/link_params.h"

namespace asim {

struct PacketTransferResult {
    int64_t completion_ps = 0;      // last payload byte delivered at the far end (from the start)
    uint64_t packets = 0;           // distinct packets of the message
    uint64_t transmissions = 0;     // packet sends over all links (retries included)
    uint64_t retries = 0;           // corrupted arrivals that were sent again
    uint64_t delivered = 0;         // packets that reached the far end (each must arrive once)
    uint64_t duplicates = 0;        // packets that reached the far end more than once (must be 0)
    int64_t min_credits = 0;        // lowest credit count seen on any link (must be >= 0)
    int64_t max_credit_excess = 0;  // highest credits - buffer seen on any link (must be <= 0)
    uint64_t events = 0;
};

class PacketPath {
public:
    // paths[i] = the links of path i, in order from the sender. All paths end at the same receiver.
    PacketPath(std::vector<std::vector<LinkParams>> paths, uint64_t seed);

    // Link `hop` of path `path` carries nothing from `at_ps` on.
    void set_link_down(std::size_t path, std::size_t hop, int64_t at_ps);

    // Sends `bytes` (split into MTU packets) starting at time 0. Throws SimulationError when a
    // down link leaves packets undeliverable.
    PacketTransferResult send(uint64_t bytes, LinkOp op);

    static constexpr uint64_t kExactPackets = uint64_t{1} << 16;
    uint64_t exact_packets() const { return m_exact_packets; }
    // Messages longer than `packets` (at least 4 per path) are extrapolated; tests lower it.
    void set_exact_packets(uint64_t packets);

private:
    PacketTransferResult simulate(uint64_t bytes, LinkOp op);
    uint64_t m_exact_packets = kExactPackets;
    std::vector<std::vector<LinkParams>> m_paths;
    std::vector<std::vector<int64_t>> m_down_at;
    uint64_t m_seed;
};

// Time for a remote read or write of `bytes` between two endpoints, from issue to completion at
// the initiator: a read sends a header-only request along `forward`, waits `memory_read_ps` at the
// target and streams the data back along `reverse`; a write streams the data along `forward`,
// waits `memory_write_ps` and returns a header-only acknowledgement along `reverse`.
// `issue_overhead_ps` (DMA descriptor fetch and start) is added once.
struct RemoteAccessTiming {
    int64_t issue_overhead_ps = 0;
    int64_t memory_read_ps = 0;
    int64_t memory_write_ps = 0;
};
int64_t remote_access_ps(const std::vector<std::vector<LinkParams>>& forward,
                         const std::vector<std::vector<LinkParams>>& reverse, uint64_t bytes,
                         LinkOp op, const RemoteAccessTiming& endpoint, uint64_t seed);

}  // namespace asim

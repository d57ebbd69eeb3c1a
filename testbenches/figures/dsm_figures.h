// `ascend-sim figures dsm`: the memory pool's bandwidth test (the documents' `dsmbandwidth -t read
// -s SIZE`, DESIGN §5b). N dies (the readers) each stream-read SIZE bytes from a pool tier at the
// same time, through the real model parts: one DsmPool, and per die a TierRouter in front of its
// own flat HBM (die.hbm's flat_params), every HBM attached to the pool so that reader k's
// remote_hbm reads land on owner (k + owner_offset) mod owners's HBM model; on a platform with a
// network their data crosses its links (flow-network streams, as in a supernode run). Each reader
// keeps up to `outstanding` demand reads of `chunk` bytes in flight (the next is issued when the
// earliest completes). Every (tier, readers, size) point is a fresh model in a child process
// (SystemC elaborates once per process), beside its tier's unloaded latency probe (one 512 B read,
// alone in a model of its own).
//
// Table "dsm": tier,readers,size_bytes,latency_us,aggregate_GBps,per_reader_GBps.
//   latency_us: the tier's unloaded latency, one 512 B read issued alone (request to data).
//   aggregate_GBps: readers x size / the time of the slowest reader (from t = 0 to its last data).
//   per_reader_GBps: aggregate / readers (what the slowest reader got). GB = 1e9 B.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "testbenches/figures/hbm_figures.h"

namespace asim {

struct DsmFiguresOptions {
    std::string platform;
    std::vector<std::string> overrides;
    std::string tiers;    // "T" or "T,T,..."; empty: every pool tier the platform has
    std::string readers;  // "N" or "N,N,..."; empty: the die count with a network:, else 1
    std::string sizes = "64MiB,1GiB";
    std::string chunk = "64KiB";
    uint32_t outstanding = 32;
    uint32_t owner_offset = 1;  // remote_hbm: reader k reads owner (k + offset) mod owners
};

std::vector<FigureTable> dsm_figures(const DsmFiguresOptions& o);

}  // namespace asim

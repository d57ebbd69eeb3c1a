// The headers nearly every file of ours includes, precompiled once per build (CMake
// target_precompile_headers, REUSE_FROM asim_pch; the tests' asim_test_pch adds GoogleTest).
// Parsing SystemC and TLM takes about 1.2 s per file and nlohmann/json, fmt and GoogleTest 2.4 s
// (g++ -O2 on this 2-core machine, as CI's), most of a small file's compile. Build speed only; a
// file must still include what it uses: the precompiled header hides a missing include, which only
// the fuzz build (it has none) finds, and only in the parsers.
//
// Files that spawn processes define SC_INCLUDE_DYNAMIC_PROCESSES before SystemC is first
// included; the precompiled header comes first, so it defines it for everyone.
#pragma once

#define SC_INCLUDE_DYNAMIC_PROCESSES

#include <algorithm>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>
#include <tlm_utils/multi_passthrough_target_socket.h>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
#include <nlohmann/json.hpp>
#include <systemc>
#include <tlm>

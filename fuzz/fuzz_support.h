// Shared by the libFuzzer harnesses of this folder (README.md): a scratch directory for parsers
// that read files, and the rule every harness applies. A harness hands the fuzz input to the real
// parser; the project's documented input errors (asim::InputError and its ConfigError and
// TraceError) are the expected outcome of bad input. Anything else is a finding: a crash, a
// sanitizer report, a leak, a timeout, a memory blow-up, or another exception escaping the parser
// (libFuzzer reports an escaped exception as a deadly signal).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "models/common/errors.h"

namespace asim::fuzz {

// The fuzz input as text.
inline std::string_view as_text(const uint8_t* data, std::size_t size) {
    return {reinterpret_cast<const char*>(data), size};
}

// A directory of this process's own (under $TMPDIR or /tmp), removed at exit.
const std::string& scratch_dir();

// Writes `contents` to scratch_dir()/name (replacing it) and returns the path.
std::string write_scratch_file(const std::string& name, std::string_view contents);

// Runs `parse`; an InputError is bad input correctly refused.
template <class F>
void expect_only_input_errors(F&& parse) {
    try {
        parse();
    } catch (const InputError&) {
    }
}

}  // namespace asim::fuzz

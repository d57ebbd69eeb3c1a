// Error classes shared by every component, and the exit code each maps to (DESIGN §8):
// bad usage, configuration or trace input exits 2; a failure of the simulation itself exits 1.
#pragma once

#include <stdexcept>
#include <string>

namespace asim {

// Something the user gave us is wrong (command line, YAML, trace). Exit code 2.
// The message is complete and names file, line and key where there is one.
class InputError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// A configuration value or key is wrong. Message: "FILE:LINE:COL: dotted.key: what is wrong".
class ConfigError : public InputError {
public:
    using InputError::InputError;
};

// A trace line is wrong. Message: "FILE:LINE: what is wrong".
class TraceError : public InputError {
public:
    using InputError::InputError;
};

// The model itself failed while running (deadlock, watchdog, internal invariant). Exit code 1.
class SimulationError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

constexpr int kExitOk = 0;
constexpr int kExitSimulationFailure = 1;
constexpr int kExitBadInput = 2;

}  // namespace asim

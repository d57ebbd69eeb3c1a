// Output files and directories, written so that a reader never sees a half-written result and
// nothing outside them is ever touched.
//
// An output directory is replaced as a whole: a run stages every file in a fresh sibling folder
// (`.<name>.staging-<pid>`, created when the writer is constructed, so an unusable path is found
// before any simulation starts) and commit() swaps it for the previous run's directory in one
// rename, then removes the old one. Files from an earlier run therefore never stand beside a new
// run's outputs. An existing directory is only replaced when it is empty or holds the marker file
// that every committed output directory carries (kOutputMarker); a directory of someone else's
// files, a symbolic link, a FIFO, a device or a regular file at the path is an InputError (exit 2).
//
// Every file is created with O_CREAT | O_EXCL | O_NOFOLLOW inside a folder this process created,
// so nothing is ever written through a symbolic link, a FIFO or a device. Staging folders and
// temporaries are removed when the writer is destroyed without commit(), when the process gets
// SIGINT, SIGTERM or SIGHUP (the handler removes them and then lets the signal take its course),
// and, for runs that were killed outright, by the next writer aimed at the same path (it removes
// staging names whose process no longer exists).
#pragma once

#include <fstream>
#include <string>
#include <vector>

namespace asim {

// The file every committed output directory carries; its presence allows the next run to replace
// the directory.
inline constexpr const char* kOutputMarker = ".ascend-sim-output";

class AtomicOutputDir {
public:
    // Checks `dir` and creates the staging folder. Throws InputError naming `dir` when it cannot
    // be used (`what` names the option for the message, e.g. "--out").
    explicit AtomicOutputDir(std::string dir, std::string what = "--out");
    ~AtomicOutputDir();
    AtomicOutputDir(const AtomicOutputDir&) = delete;
    AtomicOutputDir& operator=(const AtomicOutputDir&) = delete;

    const std::string& dir() const { return m_dir; }
    // Stages `name` (a plain file name) with `contents`. Throws std::runtime_error on I/O failure.
    void write(const std::string& name, const std::string& contents);
    // Stages `name` and returns a stream to fill it (for outputs too large to hold in memory).
    std::ofstream open(const std::string& name);
    // Replaces the output directory by the staged one. Throws std::runtime_error on failure.
    void commit();

private:
    std::string m_dir;
    std::string m_what;
    std::string m_staging;
    bool m_committed = false;
    std::vector<std::string> m_names;
};

// One output file, written to a temporary beside it and renamed over it by commit(). The target
// must be absent or a regular file (never a symbolic link, FIFO, device or directory); its folder
// must exist. Checked at construction: InputError naming `what` (e.g. "--out") and the path.
class AtomicOutputFile {
public:
    AtomicOutputFile(std::string path, std::string what);
    ~AtomicOutputFile();
    AtomicOutputFile(const AtomicOutputFile&) = delete;
    AtomicOutputFile& operator=(const AtomicOutputFile&) = delete;

    const std::string& path() const { return m_path; }
    // The temporary, for writers that take a path (e.g. a waveform dumper).
    const std::string& temporary() const { return m_tmp; }
    // A stream over the temporary (opened once).
    std::ofstream& stream();
    void commit();

private:
    std::string m_path;
    std::string m_what;
    std::string m_tmp;
    std::ofstream m_stream;
    bool m_committed = false;
};

// Writes one file atomically (AtomicOutputFile). Throws InputError for a path that is not absent
// or a regular file, std::runtime_error on I/O failure.
void write_file_atomically(const std::string& path, const std::string& contents);

// Checks, without writing anything, that `dir` could be used by AtomicOutputDir (for options that
// are checked long before their outputs are written). Throws InputError.
void check_output_dir(const std::string& dir, const std::string& what = "--out");

}  // namespace asim

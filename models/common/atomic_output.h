// Output files written atomically. A run stages every file in a hidden folder inside the output
// directory and moves them into place only when all are written (commit()); each move is an
// atomic rename, so a reader never sees a half-written file. A run that fails before commit()
// leaves nothing behind: the destructor removes the staging folder, and an output directory
// that the run created is removed again.
#pragma once

#include <string>
#include <vector>

namespace asim {

class AtomicOutputDir {
public:
    explicit AtomicOutputDir(std::string dir);
    ~AtomicOutputDir();
    AtomicOutputDir(const AtomicOutputDir&) = delete;
    AtomicOutputDir& operator=(const AtomicOutputDir&) = delete;

    const std::string& dir() const { return m_dir; }
    // Stages `name` (a file name inside dir) with `contents`. Throws std::runtime_error on I/O
    // failure.
    void write(const std::string& name, const std::string& contents);
    // Moves every staged file into dir. Throws std::runtime_error on failure.
    void commit();

private:
    void ensure_staging();
    std::string m_dir;
    std::string m_staging;
    bool m_created_dir = false;
    bool m_committed = false;
    std::vector<std::string> m_names;
};

// Writes one file atomically (temporary file in the same folder, then rename).
void write_file_atomically(const std::string& path, const std::string& contents);

}  // namespace asim

#include "testbenches/sweep/sweep_job.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>

#include "models/common/atomic_output.h"
#include "models/common/errors.h"
#include "models/common/trace.h"
#include "models/common/units.h"
#include "platforms/platform.h"
#include "testbenches/command/progress.h"
#include "testbenches/command/provenance.h"
#include "testbenches/supernode/supernode_job.h"
#include "testbenches/sweep/grid.h"
#include "testbenches/sweep/results_table.h"
#include "testbenches/trace_replay/builtin_traces.h"

namespace fs = std::filesystem;

namespace asim::sweep {

namespace {

constexpr const char* kSchema = "ascend-sim/sweep/1";

std::string read_text(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

// The last `n` non-empty lines of a text.
std::vector<std::string> tail_lines(const std::string& text, std::size_t n) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        if (!line.empty()) lines.push_back(line);
    }
    if (lines.size() > n) lines.erase(lines.begin(), lines.end() - static_cast<std::ptrdiff_t>(n));
    return lines;
}

// Reads every op of the trace once, so that a bad line is reported before any point runs rather
// than by every worker.
std::string check_trace(const std::string& trace) {
    if (trace.rfind("builtin:", 0) == 0) {
        builtin_trace(trace);
        return "";
    }
    if (is_trace_set(trace)) {
        // A trace set: the index and every die's file, all hashed (in the index's order).
        std::string hashes;
        for (const std::string& file : check_trace_set(trace)) hashes += fnv1a_hex_file(file);
        return fnv1a_hex(hashes);
    }
    std::error_code ec;
    if (!fs::is_regular_file(trace, ec)) {
        throw InputError("trace '" + trace + "': no such file" +
                         (fs::is_directory(trace, ec)
                              ? " (a directory without an index.json is no trace set)"
                              : ""));
    }
    trace::TraceReader reader(trace);
    trace::Op op;
    while (reader.next(op)) {
    }
    return fnv1a_hex_file(trace);
}

// Slurm's default MaxArraySize is 1001 (indices 0..1000): more points share the tasks.
constexpr std::size_t kMaxArrayTasks = 1000;

// The executable `name` as found on PATH ("" when none).
std::string find_on_path(const std::string& name) {
    const char* path = std::getenv("PATH");
    std::stringstream dirs(path ? path : "");
    for (std::string dir; std::getline(dirs, dir, ':');) {
        const fs::path candidate = fs::path(dir.empty() ? "." : dir) / name;
        if (::access(candidate.c_str(), X_OK) == 0) return candidate.string();
    }
    return "";
}

struct Shard {
    std::size_t index = 0, count = 1;
};

// "I/N" with 0 <= I < N.
Shard parse_shard(const std::string& spec) {
    const std::size_t slash = spec.find('/');
    auto number = [&spec](const std::string& text) -> std::size_t {
        if (text.empty() || text.size() > 9 ||
            text.find_first_not_of("0123456789") != std::string::npos) {
            throw InputError("--shard " + spec +
                             ": expected I/N, two whole numbers with 0 <= I < N");
        }
        return std::stoul(text);
    };
    if (slash == std::string::npos) number("");
    const Shard s{number(spec.substr(0, slash)), number(spec.substr(slash + 1))};
    if (s.count == 0 || s.index >= s.count) {
        throw InputError("--shard " + spec + ": expected I/N, two whole numbers with 0 <= I < N");
    }
    return s;
}

// Runs `argv` (no shell) and returns its exit status and its stdout and stderr together.
std::pair<int, std::string> capture(const std::vector<std::string>& argv) {
    std::string cmd;
    for (const auto& a : argv) cmd += (cmd.empty() ? "" : " ") + shell_quote(a);
    cmd += " 2>&1";
    FILE* pipe = ::popen(cmd.c_str(), "r");
    if (!pipe) return {-1, std::string("cannot start ") + argv[0]};
    std::string out;
    char buf[4096];
    for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, pipe)) > 0;) out.append(buf, n);
    const int status = ::pclose(pipe);
    while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

// One line of progress: redrawn in place on a terminal, a line per finished point otherwise.
class Progress {
public:
    Progress(bool redraw, std::size_t total) : m_redraw(redraw), m_total(total) {}
    ~Progress() { clear(); }

    void clear() {
        if (m_shown) std::fprintf(stderr, "\r\033[K");
        m_shown = false;
    }

    void update(std::size_t done, std::size_t failed, std::size_t running, double eta_s,
                const std::string& event) {
        const std::string counts = std::to_string(done) + "/" + std::to_string(m_total) + " done" +
                                   (failed ? ", " + std::to_string(failed) + " failed" : "");
        const std::string eta = eta_s >= 0 ? ", ETA " + format_duration(eta_s) : "";
        if (m_redraw) {
            std::fprintf(stderr, "\r\033[K[sweep] %s, %zu running%s", counts.c_str(), running,
                         eta.c_str());
            m_shown = true;
        } else if (!event.empty()) {
            std::fprintf(stderr, "[sweep] %s%s: %s\n", counts.c_str(), eta.c_str(), event.c_str());
        }
        std::fflush(stderr);
    }

private:
    bool m_redraw;
    std::size_t m_total;
    bool m_shown = false;
};

struct Running {
    std::size_t point;
    std::chrono::steady_clock::time_point start;
};

struct Failure {
    std::string id;
    std::string status;
    std::vector<std::string> tail;
};

class Sweep {
public:
    explicit Sweep(const SweepOptions& options) : m_opt(options) {}
    ~Sweep() {
        if (m_lock_fd >= 0) ::close(m_lock_fd);
    }
    Sweep(const Sweep&) = delete;
    Sweep& operator=(const Sweep&) = delete;

    int run() {
        validate();
        if (m_opt.list) return list();
        if (m_opt.collect) return collect();
        if (m_opt.backend == "slurm") {
            m_sbatch = find_on_path("sbatch");
            if (m_sbatch.empty()) {
                throw InputError(
                    "--backend slurm: sbatch not found on PATH (install slurm-client, or run "
                    "where the cluster's commands are)");
            }
            // A cluster that does not answer is found before anything is written (sbatch itself
            // would retry for about 10 s before it gives up).
            if (const std::string scontrol = find_on_path("scontrol"); !scontrol.empty()) {
                const auto [code, out] = capture({scontrol, "ping"});
                if (code != 0) {
                    throw InputError(
                        "--backend slurm: no Slurm controller answers (scontrol ping: " +
                        out.substr(0, out.find('\n')) + ")");
                }
            }
            prepare_directory(false);
            return submit_to_slurm();
        }
        const bool some = !m_opt.points.empty() || !m_opt.shard.empty();
        const std::vector<std::size_t> selected =
            selected_points();  // a bad --point writes nothing
        prepare_directory(some);
        return execute(selected, !some);
    }

private:
    void validate() {
        if (m_opt.jobs < 1) throw InputError("-j must be at least 1");
        if (m_opt.backend != "local" && m_opt.backend != "slurm") {
            throw InputError("--backend " + m_opt.backend + ": unknown; one of " + backend_names());
        }
        const int modes = int{m_opt.list} + int{!m_opt.points.empty()} + int{!m_opt.shard.empty()} +
                          int{m_opt.collect} + int{m_opt.backend == "slurm"};
        if (modes > 1) {
            throw InputError(
                "--list, --point, --shard, --collect and --backend slurm exclude each other");
        }
        if (m_opt.restart &&
            (m_opt.list || m_opt.collect || !m_opt.points.empty() || !m_opt.shard.empty())) {
            throw InputError(
                "--restart applies to a whole sweep (local or --backend slurm), not to --list, "
                "--point, --shard or --collect");
        }
        if (m_opt.backend != "slurm" && (!m_opt.sbatch_args.empty() || m_opt.slurm_tasks != 0)) {
            throw InputError("--sbatch-arg and --slurm-tasks need --backend slurm");
        }
        if (m_opt.slurm_tasks < 0 || m_opt.slurm_tasks > static_cast<int>(kMaxArrayTasks)) {
            throw InputError("--slurm-tasks must be between 1 and " +
                             std::to_string(kMaxArrayTasks));
        }
        if (!m_opt.shard.empty()) m_shard = parse_shard(m_opt.shard);
        for (const auto& spec : m_opt.grid) m_axes.push_back(parse_grid_spec(spec));
        m_points = cartesian_points(m_axes);
        for (const auto& o : m_opt.overrides) {
            const std::string key = o.substr(0, o.find('='));
            for (const auto& axis : m_axes) {
                if (axis.key == key) {
                    throw InputError("--set " + o + ": key '" + key + "' is also swept by --grid " +
                                     axis.spec);
                }
            }
        }
        if (!m_opt.max_sim_time.empty()) {
            try {
                units::picoseconds(m_opt.max_sim_time);
            } catch (const units::UnitError& e) {
                throw InputError(std::string("--max-sim-time: ") + e.what());
            }
        }
        const std::string trace_hash = check_trace(m_opt.trace);

        // Every point's configuration is loaded here, as its worker would load it, so that a
        // misspelt key, a wrong unit or a combination the model rejects stops the sweep before
        // anything runs.
        const Platform base = load_platform(m_opt.platform, m_opt.overrides);
        std::string first_error;
        std::size_t bad = 0;
        for (const auto& p : m_points) {
            try {
                load_platform(m_opt.platform, point_overrides_all(p));
            } catch (const InputError& e) {
                if (bad++ == 0) first_error = "grid point " + p.id + ": " + e.what();
            }
        }
        if (bad > 0) {
            throw InputError(first_error +
                             (bad > 1
                                  ? " (" + std::to_string(bad - 1) + " more of the " +
                                        std::to_string(m_points.size()) + " points are invalid too)"
                                  : ""));
        }

        nlohmann::json grid = nlohmann::json::array();
        for (const auto& axis : m_axes)
            grid.push_back({{"key", axis.key}, {"values", axis.values}});
        m_definition = {{"platform", m_opt.platform},
                        {"config_fnv1a", fnv1a_hex(base.config.to_yaml())},
                        {"trace", m_opt.trace},
                        {"trace_fnv1a", trace_hash},
                        {"grid", grid},
                        {"set", m_opt.overrides},
                        {"max_sim_time", m_opt.max_sim_time}};
    }

    std::vector<std::string> point_overrides_all(const GridPoint& p) const {
        std::vector<std::string> all = m_opt.overrides;
        for (auto& o : point_overrides(m_axes, p)) all.push_back(std::move(o));
        return all;
    }

    // `shared`: for --point and --shard, which run beside each other in one directory: the lock
    // is taken shared, an existing sweep.json must match, and only the selected points' leftovers
    // are removed (by launch and finish).
    void prepare_directory(bool shared) {
        m_dir = m_opt.out_dir;
        std::error_code ec;
        const fs::path sweep_json = m_dir / "sweep.json";
        if (fs::exists(m_dir, ec)) {
            if (!fs::is_directory(m_dir, ec)) {
                throw InputError("--out " + m_dir.string() + " exists and is not a directory");
            }
            bool holds_other_files = false;
            for (const auto& entry : fs::directory_iterator(m_dir, ec)) {
                if (entry.path().filename() != ".lock") holds_other_files = true;
            }
            if (holds_other_files && !fs::exists(sweep_json, ec)) {
                throw InputError(
                    "--out " + m_dir.string() +
                    " is a directory that holds no sweep (no sweep.json); choose another");
            }
        } else if (!fs::create_directories(m_dir, ec) && ec) {
            throw InputError("cannot create --out " + m_dir.string() + ": " + ec.message());
        }
        lock_directory(shared);

        if (fs::exists(sweep_json, ec)) {
            nlohmann::json previous;
            try {
                previous = nlohmann::json::parse(read_text(sweep_json)).at("definition");
            } catch (const nlohmann::json::exception&) {
                previous = nullptr;
            }
            if (previous != m_definition && !m_opt.restart) {
                std::string differs;
                for (auto it = m_definition.begin(); it != m_definition.end(); ++it) {
                    if (!previous.is_object() || !previous.contains(it.key()) ||
                        previous[it.key()] != it.value()) {
                        differs += (differs.empty() ? "" : ", ") + it.key();
                    }
                }
                throw InputError(
                    "--out " + m_dir.string() + " holds a sweep with another definition (" +
                    (differs.empty() ? "unreadable sweep.json" : differs + " differ") +
                    "); rerun it with its own arguments to resume it, add --restart to "
                    "discard its points, or choose another --out");
            }
            if (m_opt.restart) {
                for (const char* name : {"points", "results.csv", "timing.csv", "sweep.json"}) {
                    fs::remove_all(m_dir / name, ec);
                }
            }
        }

        if (!shared || !fs::exists(sweep_json, ec))
            write_file_atomically(sweep_json.string(), sweep_doc());
        fs::create_directories(m_dir / "points", ec);
        if (ec)
            throw InputError("cannot create " + (m_dir / "points").string() + ": " + ec.message());

        // What a killed sweep leaves: workers' temporary directories (never taken as finished)
        // and failed points (run again).
        for (const auto& entry : fs::directory_iterator(m_dir / "points")) {
            if (shared) break;  // other shards' workers may be writing theirs
            const std::string name = entry.path().filename().string();
            const bool partial = name.rfind('.', 0) == 0;
            const bool failed = name.size() > 7 && name.substr(name.size() - 7) == ".failed";
            if (partial || failed) fs::remove_all(entry.path(), ec);
        }
        load_finished();
    }

    std::string sweep_doc() const {
        const nlohmann::json doc = {{"schema", kSchema},
                                    {"definition", m_definition},
                                    {"grid_specs", m_opt.grid},
                                    {"points", m_points.size()}};
        return doc.dump(2) + "\n";
    }

    // The summaries of the points finished in DIR (an unreadable one is removed: run it again).
    void load_finished() {
        std::error_code ec;
        m_summaries.assign(m_points.size(), std::nullopt);
        for (const auto& p : m_points) {
            const fs::path stats = m_dir / "points" / p.id / "stats.json";
            if (!fs::exists(stats, ec)) continue;
            try {
                m_summaries[p.index] = nlohmann::json::parse(read_text(stats)).at("summary");
            } catch (const nlohmann::json::exception&) {
                fs::remove_all(m_dir / "points" / p.id, ec);  // unreadable: run it again
            }
        }
    }

    // One sweep per directory at a time. The lock dies with the process, so a killed sweep never
    // blocks the one that resumes it.
    // Points and shards share it; a whole sweep, a submission and --restart hold it alone.
    void lock_directory(bool shared) {
        const std::string path = (m_dir / ".lock").string();
        m_lock_fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
        if (m_lock_fd < 0) throw InputError("cannot open " + path + ": " + std::strerror(errno));
        if (::flock(m_lock_fd, (shared ? LOCK_SH : LOCK_EX) | LOCK_NB) != 0) {
            throw InputError(shared ? "a whole sweep is running in " + m_dir.string() +
                                          " (it holds the directory alone)"
                                    : "another sweep is running in " + m_dir.string() +
                                          " (a whole sweep, or points or shards of one)");
        }
    }

    void write_results() {
        std::vector<std::string> keys;
        for (const auto& axis : m_axes) keys.push_back(axis.key);
        std::vector<ResultRow> rows;
        std::string timing = "point,wall_s\n";
        for (const auto& p : m_points) {
            if (!m_summaries[p.index]) continue;
            rows.push_back({p.id, p.values, *m_summaries[p.index]});
            const auto& s = *m_summaries[p.index];
            timing += p.id + "," + (s.contains("wall_s") ? s["wall_s"].dump() : "") + "\n";
        }
        write_file_atomically((m_dir / "results.csv").string(), results_csv(keys, rows));
        write_file_atomically((m_dir / "timing.csv").string(), timing);
    }

    // The worker's stderr is kept beside its output directory, which the worker creates itself
    // (a run replaces its --out as a whole), and moved into it when the worker has ended.
    fs::path stderr_path(const GridPoint& p) const {
        return m_dir / "points" / ("." + p.id + ".stderr");
    }

    pid_t launch(const GridPoint& p) {
        const fs::path partial = m_dir / "points" / ("." + p.id + ".partial");
        std::error_code ec;
        fs::remove_all(partial, ec);

        std::vector<std::string> args = {m_opt.worker_binary, "run",     "--platform",
                                         m_opt.platform,      "--trace", m_opt.trace};
        for (const auto& o : point_overrides_all(p)) {
            args.emplace_back("--set");
            args.push_back(o);
        }
        args.emplace_back("--out");
        args.push_back(partial.string());
        if (!m_opt.max_sim_time.empty()) {
            args.emplace_back("--max-sim-time");
            args.push_back(m_opt.max_sim_time);
        }
        std::vector<char*> argv;
        for (auto& a : args) argv.push_back(a.data());
        argv.push_back(nullptr);

        const std::string err_path = stderr_path(p).string();
        const int err_fd =
            ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
        const int null_fd = ::open("/dev/null", O_RDWR | O_CLOEXEC);
        if (err_fd < 0 || null_fd < 0) throw std::runtime_error("cannot open " + err_path);
        const pid_t parent = ::getpid();
        const pid_t pid = ::fork();
        if (pid == 0) {
            // Only async-signal-safe calls between fork and exec. A worker dies with the sweep
            // (PDEATHSIG), so a killed sweep leaves no worker writing into its directory.
            ::prctl(PR_SET_PDEATHSIG, SIGKILL);
            if (::getppid() != parent) ::_exit(127);
            sigset_t none;
            sigemptyset(&none);
            ::sigprocmask(SIG_SETMASK, &none, nullptr);
            ::dup2(null_fd, STDIN_FILENO);
            ::dup2(null_fd, STDOUT_FILENO);
            ::dup2(err_fd, STDERR_FILENO);
            ::execv(argv[0], argv.data());
            const char msg[] = "ascend-sim sweep: cannot start the worker\n";
            (void)!::write(STDERR_FILENO, msg, sizeof msg - 1);
            ::_exit(127);
        }
        ::close(err_fd);
        ::close(null_fd);
        if (pid < 0) throw std::runtime_error(std::string("fork failed: ") + std::strerror(errno));
        return pid;
    }

    // Moves a finished worker's directory into place; returns the failure, if any.
    std::optional<Failure> finish(const GridPoint& p, int status) {
        const fs::path partial = m_dir / "points" / ("." + p.id + ".partial");
        std::error_code ec;
        std::string why;
        if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
            try {
                m_summaries[p.index] =
                    nlohmann::json::parse(read_text(partial / "stats.json")).at("summary");
            } catch (const nlohmann::json::exception&) {
                why = "exit code 0 but no readable stats.json";
            }
        } else if (WIFEXITED(status)) {
            why = "exit code " + std::to_string(WEXITSTATUS(status));
        } else if (WIFSIGNALED(status)) {
            why = std::string("killed by signal ") + std::to_string(WTERMSIG(status)) + " (" +
                  strsignal(WTERMSIG(status)) + ")";
        } else {
            why = "ended with wait status " + std::to_string(status);
        }
        if (why.empty()) {
            fs::rename(stderr_path(p), partial / "stderr.txt", ec);
            fs::rename(partial, m_dir / "points" / p.id, ec);
            if (!ec) return std::nullopt;
            m_summaries[p.index].reset();
            why = "cannot move its outputs into place: " + ec.message();
        }
        fs::create_directories(partial, ec);  // a failed worker committed nothing
        fs::rename(stderr_path(p), partial / "stderr.txt", ec);
        Failure f{p.id, why, tail_lines(read_text(partial / "stderr.txt"), 5)};
        std::ofstream(partial / "status.txt") << why << "\n";
        const fs::path failed = m_dir / "points" / (p.id + ".failed");
        fs::remove_all(failed, ec);
        fs::rename(partial, failed, ec);
        return f;
    }

    // Runs the `selected` points that are not finished; `whole`: every point of the sweep, so
    // results.csv is rewritten as points finish (points and shards leave it to --collect).
    int execute(const std::vector<std::size_t>& selected, bool whole) {
        if (whole) write_results();
        std::deque<std::size_t> pending;
        std::size_t already = 0;
        for (const std::size_t i : selected) {
            if (m_summaries[i]) {
                ++already;
            } else {
                pending.push_back(i);
            }
        }
        const auto start = std::chrono::steady_clock::now();
        auto elapsed = [&start] {
            return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        };
        Progress progress(m_opt.progress, selected.size());
        std::vector<Failure> failures;
        std::size_t done = already, ran = 0;
        auto eta = [&]() -> double {
            const std::size_t finished_now = ran + failures.size();
            if (finished_now == 0) return -1;
            return elapsed() / static_cast<double>(finished_now) *
                   static_cast<double>(selected.size() - done - failures.size());
        };

        // SIGCHLD stays blocked so that sigtimedwait can sleep until a worker ends or a second
        // passes (to keep the ETA ticking), without polling.
        sigset_t chld, old;
        sigemptyset(&chld);
        sigaddset(&chld, SIGCHLD);
        ::sigprocmask(SIG_BLOCK, &chld, &old);

        std::map<pid_t, Running> running;
        while (!pending.empty() || !running.empty()) {
            while (!pending.empty() && running.size() < static_cast<std::size_t>(m_opt.jobs)) {
                const std::size_t i = pending.front();
                pending.pop_front();
                running[launch(m_points[i])] = {i, std::chrono::steady_clock::now()};
            }
            progress.update(done, failures.size(), running.size(), eta(), "");
            timespec one_second{1, 0};
            ::sigtimedwait(&chld, nullptr, &one_second);
            int status = 0;
            pid_t pid;
            while ((pid = ::waitpid(-1, &status, WNOHANG)) > 0) {
                const auto it = running.find(pid);
                if (it == running.end()) continue;
                const GridPoint& p = m_points[it->second.point];
                const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                                                  it->second.start)
                                        .count();
                running.erase(it);
                std::string event;
                if (auto f = finish(p, status)) {
                    event = p.id + " FAILED (" + f->status + ")";
                    failures.push_back(std::move(*f));
                } else {
                    ++done;
                    ++ran;
                    if (whole) write_results();
                    event = p.id + " in " + format_duration(took);
                }
                progress.update(done, failures.size(), running.size(), eta(), event);
            }
        }
        ::sigprocmask(SIG_SETMASK, &old, nullptr);
        progress.clear();

        std::printf(
            "sweep: %zu points%s: %zu finished (%zu run now, %zu already done), %zu failed; %s\n",
            selected.size(), whole ? "" : (" of " + std::to_string(m_points.size())).c_str(), done,
            ran, already, failures.size(), format_duration(elapsed()).c_str());
        if (whole) {
            std::printf("results in %s (points in %s/)\n", (m_dir / "results.csv").string().c_str(),
                        (m_dir / "points").string().c_str());
        } else {
            std::printf("points in %s/; results.csv is written by --collect\n",
                        (m_dir / "points").string().c_str());
        }
        if (failures.empty()) return kExitOk;
        std::fprintf(
            stderr,
            "ascend-sim: error: %zu of %zu points failed (their stderr.txt and status.txt are in "
            "%s/points/<id>.failed/; rerun the same command to retry them):\n",
            failures.size(), selected.size(), m_dir.string().c_str());
        constexpr std::size_t kListed = 10;
        for (std::size_t i = 0; i < failures.size() && i < kListed; ++i) {
            std::fprintf(stderr, "  %s: %s\n", failures[i].id.c_str(), failures[i].status.c_str());
            for (const auto& line : failures[i].tail)
                std::fprintf(stderr, "      %s\n", line.c_str());
        }
        if (failures.size() > kListed)
            std::fprintf(stderr, "  ... and %zu more\n", failures.size() - kListed);
        return kExitSimulationFailure;
    }

    // The points to run: every one, those named by --point (an id or a grid index), or a shard.
    std::vector<std::size_t> selected_points() const {
        std::vector<std::size_t> out;
        if (!m_opt.points.empty()) {
            for (const std::string& name : m_opt.points) {
                std::size_t found = m_points.size();
                for (const auto& p : m_points)
                    if (p.id == name || std::to_string(p.index) == name) found = p.index;
                if (found == m_points.size()) {
                    throw InputError("--point " + name + ": no such point in this grid of " +
                                     std::to_string(m_points.size()) + " (see --list)");
                }
                if (std::find(out.begin(), out.end(), found) == out.end()) out.push_back(found);
            }
            return out;
        }
        for (const auto& p : m_points)
            if (p.index % m_shard.count == m_shard.index) out.push_back(p.index);
        return out;
    }

    // The sweep's own arguments (what defines it, and --out), as a command line for one part
    // of it: `extra` follows (--point ID, --shard I/N, --collect).
    std::vector<std::string> sweep_command(const std::string& binary,
                                           const std::vector<std::string>& extra) const {
        std::vector<std::string> a = {binary,         "sweep",   "--platform",
                                      m_opt.platform, "--trace", m_opt.trace};
        for (const auto& g : m_opt.grid) a.insert(a.end(), {"--grid", g});
        for (const auto& o : m_opt.overrides) a.insert(a.end(), {"--set", o});
        if (!m_opt.max_sim_time.empty()) a.insert(a.end(), {"--max-sim-time", m_opt.max_sim_time});
        a.insert(a.end(), {"--out", m_opt.out_dir});
        a.insert(a.end(), extra.begin(), extra.end());
        return a;
    }
    static std::string joined(const std::vector<std::string>& argv) {
        std::string line;
        for (const auto& a : argv) line += (line.empty() ? "" : " ") + shell_quote(a);
        return line;
    }
    static std::string self_binary() {
        std::error_code ec;
        const fs::path self = fs::read_symlink("/proc/self/exe", ec);
        return ec ? std::string("ascend-sim") : self.string();
    }

    std::string status_of(const GridPoint& p) const {
        std::error_code ec;
        if (fs::exists(m_dir / "points" / p.id / "stats.json", ec)) return "done";
        if (fs::exists(m_dir / "points" / (p.id + ".failed"), ec)) return "failed";
        if (fs::exists(m_dir / "points" / ("." + p.id + ".partial"), ec)) return "running";
        return "pending";
    }

    // --list: "index, id, status, command" per point, tab-separated; nothing is written.
    int list() {
        m_dir = m_opt.out_dir;
        const std::string binary = self_binary();
        std::printf("index\tid\tstatus\tcommand\n");
        for (const auto& p : m_points) {
            std::printf("%zu\t%s\t%s\t%s\n", p.index, p.id.c_str(), status_of(p).c_str(),
                        joined(sweep_command(binary, {"--point", p.id})).c_str());
        }
        return kExitOk;
    }

    // --collect: results.csv and timing.csv from the points finished so far.
    int collect() {
        m_dir = m_opt.out_dir;
        std::error_code ec;
        const fs::path sweep_json = m_dir / "sweep.json";
        if (!fs::exists(sweep_json, ec)) {
            throw InputError("--collect: " + m_dir.string() + " holds no sweep (no sweep.json)");
        }
        lock_directory(true);
        nlohmann::json previous;
        try {
            previous = nlohmann::json::parse(read_text(sweep_json)).at("definition");
        } catch (const nlohmann::json::exception&) {
            previous = nullptr;
        }
        if (previous != m_definition) {
            throw InputError(
                "--collect: " + m_dir.string() +
                " holds a sweep with another definition; give the arguments it was run with");
        }
        load_finished();
        write_results();
        std::size_t done = 0, failed = 0;
        for (const auto& p : m_points) {
            done += m_summaries[p.index].has_value();
            failed += status_of(p) == "failed";
        }
        std::printf("sweep: %zu points: %zu finished, %zu failed, %zu not run yet; results in %s\n",
                    m_points.size(), done, failed, m_points.size() - done - failed,
                    (m_dir / "results.csv").string().c_str());
        return done == m_points.size() ? kExitOk : kExitSimulationFailure;
    }

    // --backend slurm: an array job whose task i runs shard i of N (only the shards that hold an
    // unfinished point are submitted), and a collect job that runs after it, however it ended.
    int submit_to_slurm() {
        write_results();
        std::size_t pending = 0;
        for (const auto& p : m_points) pending += !m_summaries[p.index];
        if (pending == 0) {
            std::printf("sweep: all %zu points are finished; results in %s\n", m_points.size(),
                        (m_dir / "results.csv").string().c_str());
            return kExitOk;
        }
        const std::size_t tasks = std::min<std::size_t>(
            m_opt.slurm_tasks > 0 ? static_cast<std::size_t>(m_opt.slurm_tasks) : kMaxArrayTasks,
            m_points.size());
        std::vector<char> needed(tasks, 0);
        for (const auto& p : m_points)
            if (!m_summaries[p.index]) needed[p.index % tasks] = 1;
        std::string array;
        for (std::size_t t = 0; t < tasks; ++t)
            if (needed[t]) array += (array.empty() ? "" : ",") + std::to_string(t);

        const fs::path slurm_dir = fs::absolute(m_dir) / "slurm";
        std::error_code ec;
        fs::create_directories(slurm_dir, ec);
        if (ec) throw InputError("cannot create " + slurm_dir.string() + ": " + ec.message());
        const std::string binary = self_binary(), cwd = fs::current_path().string();
        // `tail` is appended as shell text (the array task's index is expanded by the shell).
        auto script = [&](const std::string& name, const std::vector<std::string>& directives,
                          const std::vector<std::string>& extra, const std::string& tail) {
            std::string text =
                "#!/bin/sh\n# Written by ascend-sim sweep --backend slurm; submitted with "
                "sbatch.\n";
            for (const auto& d : directives) text += "#SBATCH " + d + "\n";
            text += "exec " + joined(sweep_command(binary, extra)) + tail + "\n";
            const fs::path path = slurm_dir / name;
            write_file_atomically(path.string(), text);
            return path.string();
        };
        const std::string jobs = std::to_string(m_opt.jobs);
        const std::string points_script = script(
            "points.sbatch",
            {"--job-name=ascend-sim-sweep", "--chdir=" + cwd, "--array=" + array,
             "--cpus-per-task=" + jobs, "--output=" + (slurm_dir / "task-%A_%a.log").string()},
            {"-j", jobs}, " --shard \"${SLURM_ARRAY_TASK_ID}/" + std::to_string(tasks) + "\"");
        const std::string collect_script =
            script("collect.sbatch",
                   {"--job-name=ascend-sim-sweep-collect", "--chdir=" + cwd,
                    "--output=" + (slurm_dir / "collect-%j.log").string()},
                   {"--collect"}, "");

        auto submit = [&](std::vector<std::string> args, const std::string& what) {
            args.insert(args.begin(), {m_sbatch, "--parsable"});
            const auto [code, out] = capture(args);
            const std::string id = out.substr(0, out.find(';'));
            if (code != 0 || id.empty() ||
                id.find_first_not_of("0123456789") != std::string::npos) {
                throw InputError("--backend slurm: sbatch refused the " + what + " job" +
                                 (out.empty() ? "" : ": " + out));
            }
            return id;
        };
        std::vector<std::string> extra = m_opt.sbatch_args;
        std::vector<std::string> args = extra;
        args.push_back(points_script);
        const std::string array_job = submit(args, "points");
        args = extra;
        args.push_back("--dependency=afterany:" + array_job);
        args.push_back(collect_script);
        std::string collect_job;
        try {
            collect_job = submit(args, "collect");
        } catch (const InputError&) {
            const std::string scancel = find_on_path("scancel");
            if (!scancel.empty()) capture({scancel, array_job});  // nothing submitted half-way
            throw;
        }
        std::printf(
            "sweep: %zu of %zu points to run as Slurm array job %s (%zu tasks of %zu shards), "
            "collect job "
            "%s after it\n",
            pending, m_points.size(), array_job.c_str(),
            static_cast<std::size_t>(std::count(needed.begin(), needed.end(), 1)), tasks,
            collect_job.c_str());
        std::printf(
            "results in %s when job %s ends (scripts and logs in %s/); `squeue -j %s,%s` to "
            "follow\n",
            (m_dir / "results.csv").string().c_str(), collect_job.c_str(),
            slurm_dir.string().c_str(), array_job.c_str(), collect_job.c_str());
        return kExitOk;
    }

    const SweepOptions& m_opt;
    Shard m_shard;
    std::string m_sbatch;  // sbatch's path (--backend slurm)
    std::vector<GridAxis> m_axes;
    std::vector<GridPoint> m_points;
    nlohmann::json m_definition;
    fs::path m_dir;
    int m_lock_fd = -1;
    std::vector<std::optional<nlohmann::json>> m_summaries;
};

}  // namespace

int run_sweep(const SweepOptions& options) { return Sweep(options).run(); }

}  // namespace asim::sweep

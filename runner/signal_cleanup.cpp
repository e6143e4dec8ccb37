#include "runner/signal_cleanup.h"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <stdexcept>

namespace gemm {
namespace {

// Who acts on a signal: the handler cleans up (armed), or leaves it to run_uninterrupted (deferring), or nothing is
// left to clean (idle, disarmed, or a handler in another thread is at it).
enum State : int { kIdle, kArmed, kDeferring, kCleaning, kDisarmed };
static_assert(std::atomic<int>::is_always_lock_free, "the handler's state must be safe to touch in a handler");
std::atomic<int> state{kIdle};
std::atomic<int> deferred_signal{0};

constexpr int kSignals[] = {SIGINT, SIGTERM};

// What the handler reads: written before it is installed, cleared after it is removed.
struct Prepared {
  std::vector<std::string> files, directories;
  std::string stopped_before[2], stopped_after[2];  // the lines for SIGINT and SIGTERM
  struct sigaction previous[2];
  bool installed[2] = {false, false};  // not where the signal was ignored (a background job's SIGINT): it stays so
};
Prepared prepared;

int signal_index(int signal_number) { return signal_number == SIGINT ? 0 : 1; }

void write_line(const std::string& line) {
  for (size_t written = 0; written < line.size();) {
    const ssize_t n = write(STDERR_FILENO, line.data() + written, line.size() - written);
    if (n <= 0) return;
    written += static_cast<size_t>(n);
  }
}

void remove_prepared() {
  for (const std::string& file : prepared.files) unlink(file.c_str());
  for (const std::string& directory : prepared.directories) rmdir(directory.c_str());
}

// Ends the process by `signal_number` with its default action. In a handler the signal stays blocked until the
// handler returns, and is delivered then.
void end_by(int signal_number) {
  signal(signal_number, SIG_DFL);
  raise(signal_number);
}

void on_signal(int signal_number) {
  int seen = kArmed;
  if (state.compare_exchange_strong(seen, kCleaning)) {
    remove_prepared();
    write_line(prepared.stopped_before[signal_index(signal_number)]);
    end_by(signal_number);
    return;
  }
  if (seen == kDeferring) {
    deferred_signal.store(signal_number);
    return;
  }
  if (seen == kCleaning) return;  // a handler in another thread cleans up and ends the process
  end_by(signal_number);         // idle or disarmed: as if there were no handler
}

}  // namespace

CleanupOnSignal::CleanupOnSignal(std::vector<std::filesystem::path> files,
                                 std::vector<std::filesystem::path> directories, const std::string& note) {
  if (state.load() != kIdle) throw std::logic_error("CleanupOnSignal: one at a time");
  prepared.files.clear();
  prepared.directories.clear();
  for (const auto& file : files) prepared.files.push_back(file.string());
  for (const auto& directory : directories) prepared.directories.push_back(directory.string());
  for (const int signal_number : kSignals) {
    const std::string name = signal_number == SIGINT ? "SIGINT" : "SIGTERM";
    prepared.stopped_before[signal_index(signal_number)] =
        "gemm: stopped by " + name + " before the reports were written; " + note + "\n";
    prepared.stopped_after[signal_index(signal_number)] =
        "gemm: stopped by " + name + " after the reports were written\n";
  }
  deferred_signal.store(0);
  state.store(kArmed);
  struct sigaction action = {};
  action.sa_handler = on_signal;
  sigemptyset(&action.sa_mask);
  for (const int signal_number : kSignals) sigaddset(&action.sa_mask, signal_number);  // one handler at a time
  action.sa_flags = SA_RESTART;
  for (const int signal_number : kSignals) {
    const int index = signal_index(signal_number);
    sigaction(signal_number, nullptr, &prepared.previous[index]);
    prepared.installed[index] = prepared.previous[index].sa_handler != SIG_IGN;
    if (prepared.installed[index]) sigaction(signal_number, &action, nullptr);
  }
}

CleanupOnSignal::~CleanupOnSignal() {
  disarm();
  for (const int signal_number : kSignals)
    if (prepared.installed[signal_index(signal_number)])
      sigaction(signal_number, &prepared.previous[signal_index(signal_number)], nullptr);
  state.store(kIdle);
}

void CleanupOnSignal::disarm() {
  int seen = kArmed;
  if (!state.compare_exchange_strong(seen, kDisarmed) && seen == kCleaning)
    while (true) pause();  // a handler in another thread is cleaning up, and ends the process
}

void CleanupOnSignal::run_uninterrupted(const std::function<void()>& work) {
  int seen = kArmed;
  if (!state.compare_exchange_strong(seen, kDeferring)) {
    if (seen == kCleaning)
      while (true) pause();  // a handler in another thread is cleaning up, and ends the process
    work();  // disarmed: nothing to hold off
    return;
  }
  // What a signal that arrived meanwhile does, once `work` is over: end the process, after the cleanup when the work
  // failed (nothing of the run may stay), with what it wrote when it succeeded.
  const auto settle = [](bool succeeded) {
    state.store(succeeded ? kDisarmed : kArmed);
    const int signal_number = deferred_signal.exchange(0);
    if (signal_number == 0) return;
    int armed = kArmed;
    if (!succeeded && state.compare_exchange_strong(armed, kCleaning)) {
      remove_prepared();
      write_line(prepared.stopped_before[signal_index(signal_number)]);
    } else if (succeeded) {
      write_line(prepared.stopped_after[signal_index(signal_number)]);
    }
    end_by(signal_number);
    _exit(128 + signal_number);  // not reached: the signal, unblocked here, ends the process
  };
  try {
    work();
  } catch (...) {
    settle(false);
    throw;
  }
  settle(true);
}

}  // namespace gemm

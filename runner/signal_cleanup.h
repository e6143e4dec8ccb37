// SIGINT and SIGTERM during `gemm compare --out`: the run's unfinished output removed before the signal ends the
// process, and the reports never left half-renamed.
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace gemm {

// While one of these lives, SIGINT and SIGTERM still end the process (by the signal, as the shell expects), but first
// `files` are unlinked, `directories` removed in the order given with rmdir (only when empty: nothing the run did not
// make is deleted) and one line printed on stderr: "gemm: stopped by SIGINT before the reports were written; NOTE".
// A handler may make only async-signal-safe calls, so it reads paths and messages prepared here, and unlink, rmdir,
// write and raise are all it calls. A signal the process ignores (SIGINT in a background job) stays ignored. One at
// a time in a process.
class CleanupOnSignal {
 public:
  CleanupOnSignal(std::vector<std::filesystem::path> files, std::vector<std::filesystem::path> directories,
                  const std::string& note);
  CleanupOnSignal(const CleanupOnSignal&) = delete;
  CleanupOnSignal& operator=(const CleanupOnSignal&) = delete;
  ~CleanupOnSignal();  // the handlers of before come back

  // Runs `work` (writing the reports) with the signals held off: one that arrives meanwhile ends the process when
  // `work` is done, after the cleanup if it threw, and keeping what it wrote if it returned, so a signal never stops
  // it half-way. Once it returned, the cleanup is disarmed.
  void run_uninterrupted(const std::function<void()>& work);

  // Nothing to clean up any more (the run's output is complete and kept): the signals end the process as usual.
  void disarm();
};

}  // namespace gemm

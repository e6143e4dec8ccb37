// SM clock and board power through NVML, sampled in the background while kernels are timed.
// NVML is loaded at run time (dlopen): it ships with the driver, not the toolkit, and the runner must
// start on machines without one (CI) to report "no GPU" cleanly.
#pragma once

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace gemm {

class Nvml;

struct PowerClockSummary {
  double sm_clock_mhz = 0;  // median of the samples
  double power_w = 0;       // mean of the samples
  int samples = 0;
};

// Samples every 10 ms between construction and stop(). Does nothing when NVML is unavailable.
class NvmlSampler {
 public:
  explicit NvmlSampler(const std::string& pci_bus_id);
  ~NvmlSampler();
  NvmlSampler(const NvmlSampler&) = delete;
  NvmlSampler& operator=(const NvmlSampler&) = delete;
  // Starts sampling every 10 ms on a thread of its own (once; a no-op without NVML).
  void start();
  // Stops sampling; empty when NVML could not be used or no sample was taken.
  std::optional<PowerClockSummary> stop();

 private:
  std::shared_ptr<Nvml> nvml_;
  void* device_ = nullptr;
  std::atomic<bool> running_{false};
  std::thread thread_;
  std::vector<unsigned> clocks_mhz_;
  std::vector<unsigned> power_mw_;
};

// The driver version NVML reports ("580.159.04"), or empty.
std::string nvml_driver_version();

}  // namespace gemm

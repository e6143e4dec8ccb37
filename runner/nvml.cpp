#include "runner/nvml.h"

#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <numeric>

namespace gemm {

// The handful of NVML entry points the runner uses, resolved from libnvidia-ml.so.1.
class Nvml {
 public:
  using Device = void*;
  static std::shared_ptr<Nvml> load() {
    static std::shared_ptr<Nvml> instance = [] {
      auto nvml = std::shared_ptr<Nvml>(new Nvml());
      return nvml->ok_ ? nvml : nullptr;
    }();
    return instance;
  }
  ~Nvml() {
    if (ok_) shutdown_();
    if (library_) dlclose(library_);
  }
  Device device_by_pci(const std::string& bus_id) const {
    Device device = nullptr;
    return by_pci_(bus_id.c_str(), &device) == 0 ? device : nullptr;
  }
  bool sm_clock_mhz(Device device, unsigned& mhz) const { return clock_(device, kClockSm, &mhz) == 0; }
  bool power_mw(Device device, unsigned& mw) const { return power_(device, &mw) == 0; }
  std::string driver_version() const {
    char text[96] = {};
    return version_(text, sizeof text) == 0 ? text : "";
  }

 private:
  static constexpr int kClockSm = 1;  // NVML_CLOCK_SM
  Nvml() {
    library_ = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!library_) return;
    auto init = reinterpret_cast<int (*)()>(dlsym(library_, "nvmlInit_v2"));
    shutdown_ = reinterpret_cast<int (*)()>(dlsym(library_, "nvmlShutdown"));
    by_pci_ = reinterpret_cast<int (*)(const char*, Device*)>(dlsym(library_, "nvmlDeviceGetHandleByPciBusId_v2"));
    clock_ = reinterpret_cast<int (*)(Device, int, unsigned*)>(dlsym(library_, "nvmlDeviceGetClockInfo"));
    power_ = reinterpret_cast<int (*)(Device, unsigned*)>(dlsym(library_, "nvmlDeviceGetPowerUsage"));
    version_ = reinterpret_cast<int (*)(char*, unsigned)>(dlsym(library_, "nvmlSystemGetDriverVersion"));
    ok_ = init && shutdown_ && by_pci_ && clock_ && power_ && version_ && init() == 0;
  }
  void* library_ = nullptr;
  bool ok_ = false;
  int (*shutdown_)() = nullptr;
  int (*by_pci_)(const char*, Device*) = nullptr;
  int (*clock_)(Device, int, unsigned*) = nullptr;
  int (*power_)(Device, unsigned*) = nullptr;
  int (*version_)(char*, unsigned) = nullptr;
};

NvmlSampler::NvmlSampler(const std::string& pci_bus_id) : nvml_(Nvml::load()) {
  if (!nvml_) return;
  device_ = nvml_->device_by_pci(pci_bus_id);
}

void NvmlSampler::start() {
  if (!device_ || thread_.joinable()) return;
  running_ = true;
  thread_ = std::thread([this] {
    while (running_) {
      unsigned mhz = 0, mw = 0;
      if (nvml_->sm_clock_mhz(device_, mhz)) clocks_mhz_.push_back(mhz);
      if (nvml_->power_mw(device_, mw)) power_mw_.push_back(mw);
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  });
}

NvmlSampler::~NvmlSampler() { stop(); }

std::optional<PowerClockSummary> NvmlSampler::stop() {
  if (running_.exchange(false) && thread_.joinable()) thread_.join();
  if (clocks_mhz_.empty() || power_mw_.empty()) return std::nullopt;
  std::vector<unsigned> clocks = clocks_mhz_;
  std::nth_element(clocks.begin(), clocks.begin() + clocks.size() / 2, clocks.end());
  PowerClockSummary summary;
  summary.sm_clock_mhz = clocks[clocks.size() / 2];
  summary.power_w = std::accumulate(power_mw_.begin(), power_mw_.end(), 0.0) / power_mw_.size() / 1000.0;
  summary.samples = static_cast<int>(clocks_mhz_.size());
  return summary;
}

std::string nvml_driver_version() {
  auto nvml = Nvml::load();
  return nvml ? nvml->driver_version() : "";
}

}  // namespace gemm

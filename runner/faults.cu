#include "runner/faults.h"

#include <cmath>
#include <memory>
#include <random>
#include <stdexcept>
#include <utility>

#include "common/cuda_check.h"
#include "common/mbarrier.h"
#include "runner/device.h"
#include "runner/random.h"
#include "runner/simple_reference.h"
#include "runner/tolerance.h"
#include "runner/watchdog.h"

namespace gemm {
namespace {

// Waits for a phase of an mbarrier that expects one arrival and never gets it: the shape of the real bug
// (a wrong parity or arrival count), planted on purpose. Only the watchdog ends it.
__global__ void hang_kernel() {
  __shared__ uint64_t barrier;
  mbarrier_init(&barrier, 1);
  mbarrier_wait(&barrier, 0);
}

// Writes through a null pointer: an illegal address, the error a kernel indexing past its buffers causes.
__global__ void illegal_address_kernel(bf16* nowhere) { nowhere[threadIdx.x] = __float2bfloat16(1.0f); }

// C as a kernel that converts its fp32 sums to bf16 by truncation would have written it. The runner has only the
// kernel's C, its fp32 sums rounded to nearest, which differs from truncation exactly where rounding went away from
// zero (about half of the elements). The simple reference's fp32 sum (fmaf in K order) stands in for the kernel's
// to say where: there the element moves one bf16 step toward zero (its magnitude's bits minus one). Wherever the
// kernel's C is that sum rounded to nearest (all but a few elements) the result is that sum truncated. The poison,
// NaN, Inf and zeros are left as they are.
__global__ void truncate_kernel(GemmProblem problem) {
  const size_t count = static_cast<size_t>(problem.m) * problem.n;
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < count; i += size_t{gridDim.x} * blockDim.x) {
    const int row = static_cast<int>(i / problem.n), col = static_cast<int>(i % problem.n);
    const float sum = simple_reference_sum(problem, row, col);
    if (!(fabsf(__bfloat162float(__float2bfloat16_rn(sum))) > fabsf(sum))) continue;  // rounded toward zero: as is
    const uint16_t bits = __bfloat16_as_ushort(problem.c[i]);
    const uint16_t magnitude = bits & 0x7fff;
    if (magnitude == 0 || magnitude >= 0x7f80) continue;  // zero, Inf or NaN
    problem.c[i] = __ushort_as_bfloat16(static_cast<uint16_t>(bits - 1));  // sign and magnitude: one step nearer 0
  }
}

// C multiplied by 1 + 2^-7 and rounded to bf16 (exact in fp32 before the rounding: 8 bits times 8 bits).
__global__ void scale_kernel(bf16* c, size_t count) {
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < count; i += size_t{gridDim.x} * blockDim.x) {
    const float value = __bfloat162float(c[i]);
    if (isfinite(value)) c[i] = __float2bfloat16_rn(value * (1.0f + 1.0f / 128));
  }
}

constexpr int kFaultThreads = 256;
constexpr int kFaultBlocks = 1024;  // grid-stride over C

// Plants `value` at `element` and returns once the device holds it. A plain cudaMemcpy from host memory may
// return before the copy lands, and the validation that follows runs on the runner's non-blocking stream,
// which does not wait for the legacy default stream: the copy goes on `stream` instead.
void write_element(bf16* element, bf16 value, cudaStream_t stream) {
  CUDA_CHECK(cudaMemcpyAsync(element, &value, sizeof value, cudaMemcpyHostToDevice, stream));
  wait_for_stream(stream, kHangSlackSeconds);  // a two-byte copy; the limit is for a wedged GPU
}

// `value` moved by four times its tolerance at depth k.
bf16 far_outside_tolerance(bf16 value, int k) {
  const double v = __bfloat162float(value);
  return __float2bfloat16_rn(static_cast<float>(v + 4 * element_tolerance(v, absolute_tolerance(k))));
}

}  // namespace

std::optional<Fault> parse_fault(const std::string& text) {
  if (text == "wrong") return Fault::kWrongValue;
  if (text == "unwritten") return Fault::kUnwritten;
  if (text == "nan") return Fault::kNaN;
  if (text == "stray") return Fault::kStray;
  if (text == "hang") return Fault::kHang;
  if (text == "illegal-address") return Fault::kIllegalAddress;
  if (text == "reference") return Fault::kReference;
  if (text == "input") return Fault::kInput;
  if (text == "reference-write") return Fault::kReferenceWrite;
  if (text == "truncate") return Fault::kTruncate;
  if (text == "scale") return Fault::kScale;
  if (text == "hang-in-warmup") return Fault::kHangInWarmup;
  return std::nullopt;
}

const char* fault_names() {
  return "wrong, unwritten, nan, stray, hang, illegal-address, reference, input, reference-write, truncate, scale or "
         "hang-in-warmup";
}

GemmLaunch hanging_after_first_run(GemmLaunch launch) {
  auto first_run = std::make_shared<bool>(true);  // shared by the copies the runner makes of the launch
  launch.enqueue = [enqueue = std::move(launch.enqueue), first_run](cudaStream_t stream) {
    enqueue(stream);
    if (!std::exchange(*first_run, false)) return;
    hang_kernel<<<1, 32, 0, stream>>>();
    check_launch("hang_kernel");
  };
  return launch;
}

std::string inject_fault(Fault fault, const GemmProblem& problem, bf16* reference, uint64_t seed, cudaStream_t stream) {
  if (fault_is_in_warmup(fault)) throw std::logic_error("inject_fault: the timed phase plants a warm-up fault");
  if (fault == Fault::kHang) {
    hang_kernel<<<1, 32, 0, stream>>>();
    check_launch("hang_kernel");
    return "a kernel that never arrives on its mbarrier";
  }
  if (fault == Fault::kIllegalAddress) {
    illegal_address_kernel<<<1, 32, 0, stream>>>(nullptr);
    check_launch("illegal_address_kernel");
    return "a write through a null pointer";
  }
  wait_for_stream(stream, kHangSlackSeconds);  // only reached when the stream's work is known to be done
  if (fault == Fault::kTruncate) {
    truncate_kernel<<<kFaultBlocks, kFaultThreads, 0, stream>>>(problem);
    check_launch("truncate_kernel");
    wait_for_stream(stream, reference_time_limit(problem.m, problem.n, problem.k));  // a naive GEMM's work
    return "all of C truncated to bf16 instead of rounded";
  }
  if (fault == Fault::kScale) {
    scale_kernel<<<kFaultBlocks, kFaultThreads, 0, stream>>>(problem.c, static_cast<size_t>(problem.m) * problem.n);
    check_launch("scale_kernel");
    wait_for_stream(stream, kHangSlackSeconds);  // a pass over C: milliseconds; the limit is for a wedged GPU
    return "all of C scaled by 1 + 2^-7";
  }
  if (fault == Fault::kReference) {
    const bf16 value = far_outside_tolerance(copy_element_to_host(reference), problem.k);
    write_element(reference, value, stream);
    return "R[0, 0]";
  }
  if (fault == Fault::kStray) {  // the first element after C: inside the runner's guard band
    bf16* past_the_end = problem.c + static_cast<size_t>(problem.m) * problem.n;
    const bf16 value = __float2bfloat16(1.0f);
    write_element(past_the_end, value, stream);
    return "C[" + std::to_string(problem.m) + ", 0] (past the end)";
  }
  std::mt19937_64 rng(seed ^ 0x5eedfa17ull);
  if (fault == Fault::kInput) {  // 2 is a value neither input generator writes
    const int64_t row = uniform_int(rng, 0, problem.m - 1);
    const int64_t k = uniform_int(rng, 0, problem.k - 1);
    write_element(const_cast<bf16*>(problem.a) + row * problem.k + k, __float2bfloat16(2.0f), stream);
    return "A[" + std::to_string(row) + ", " + std::to_string(k) + "]";
  }
  // One element of C, or of R for kReferenceWrite (what a kernel might write there, not what the fp64 samples
  // would catch).
  const int64_t row = uniform_int(rng, 0, problem.m - 1);
  const int64_t col = uniform_int(rng, 0, problem.n - 1);
  const bool in_reference = fault == Fault::kReferenceWrite;
  bf16* element = (in_reference ? reference : problem.c) + row * problem.n + col;
  bf16 value = copy_element_to_host(element);
  switch (fault) {
    case Fault::kWrongValue:
    case Fault::kReferenceWrite: value = far_outside_tolerance(value, problem.k); break;
    case Fault::kUnwritten: value = __ushort_as_bfloat16(kPoisonBits); break;
    case Fault::kNaN: value = __ushort_as_bfloat16(0x7fff); break;
    default: break;
  }
  write_element(element, value, stream);
  return (in_reference ? "R[" : "C[") + std::to_string(row) + ", " + std::to_string(col) + "]";
}

}  // namespace gemm

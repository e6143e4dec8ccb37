// Fault injection: plant one fault after the kernel ran, to prove the checks catch it.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <optional>
#include <string>

#include "common/gemm_problem.h"

namespace gemm {

enum class Fault {
  kWrongValue,  // one element of C moved 4× outside the tolerance
  kUnwritten,   // one element of C left holding the poison pattern, as if the kernel skipped it
  kNaN,         // one element of C replaced by NaN
  kStray,       // one element written just past the end of C: the guard band must catch it
  kHang,        // a kernel that never arrives on its mbarrier runs after the kernel: the watchdog must fire
  kIllegalAddress,  // a kernel that writes through a null pointer runs after the kernel: the error is named
  kReference,   // the cuBLAS reference made wrong at R[0, 0] (always sampled): the fp64 check must catch it
  kInput,       // one element of A changed, as by a kernel writing into its inputs: the input check must catch it
  kReferenceWrite,  // one element of R changed, as by a kernel writing into it: the reference's copy must catch it
  kTruncate,    // all of C as if converted from fp32 to bf16 by truncation: the bias check must catch it
  kScale,       // all of C multiplied by 1 + 2^-7 (rounded to bf16): the bias check must catch it
  kHangInWarmup,  // kHang's kernel run after the kernel's first warm-up run instead of its validated run (which is
                  // left alone): the warm-up's waits must catch it (`run` and `compare`, with --warmup 1 or more)
};

// "wrong", "unwritten", "nan", "stray", "hang", "illegal-address", "reference", "input", "reference-write",
// "truncate", "scale", "hang-in-warmup"; nothing for anything else.
std::optional<Fault> parse_fault(const std::string& text);
// The accepted names, for error messages.
const char* fault_names();

// Whether the fault is a kernel enqueued right after the kernel under test (rather than a changed element).
constexpr bool fault_is_a_launch(Fault fault) { return fault == Fault::kHang || fault == Fault::kIllegalAddress; }
// Whether the fault is planted in the warm-up of the timed phase (hanging_after_first_run) rather than around the
// validated run (inject_fault).
constexpr bool fault_is_in_warmup(Fault fault) { return fault == Fault::kHangInWarmup; }

// `launch`, with the hang of kHang enqueued right after its first run (only that one): kHangInWarmup, given to the
// timed phase once the validated run passed, so that the first warm-up run never finishes.
GemmLaunch hanging_after_first_run(GemmLaunch launch);

// Plants `fault`: a launch fault is enqueued on `stream` (call it right after the kernel's launch); kTruncate and
// kScale change all of problem.c; the others change one element of problem.c (chosen by `seed`), of the guard band
// just past it, of `reference` (R[0, 0], or for kReferenceWrite one chosen by `seed`) or of problem.a (chosen by
// `seed`), once the work on `stream` is done.
// Returns what was planted ("C[3, 17]"). Not for a fault planted in the warm-up (std::logic_error).
std::string inject_fault(Fault fault, const GemmProblem& problem, bf16* reference, uint64_t seed, cudaStream_t stream);

}  // namespace gemm

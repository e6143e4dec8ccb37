// Which clusters of a launch run on one GPC, found by probes. Introduced by kernel 13 (kernels 13 and 14 hand
// each round's tiles out GPC by GPC: common/gpc_rounds.h).
//
// CUDA promises one thing about where CTAs run: the CTAs of a cluster are scheduled onto one GPC (CUDA C++
// Programming Guide, "Thread Block Clusters"). Which GPC, and which SMs a launch's clusters land on, it leaves to the
// hardware. Two kinds of probe find out, with a kernel that records each CTA's SM (`%smid`; PTX ISA, "Special
// Registers"):
//   - the GPCs: launches in clusters of 16 CTAs (a non-portable size, where the GPU allows it) down to 2, one CTA
//     per SM, as many clusters as fit; SMs that ever share a cluster share a GPC (a union-find over the SMs). SMs no
//     cluster joined to others stay alone: the labels can split a GPC, never merge two.
//   - the placement: one launch shaped like the kernel's (grid, threads, shared memory, cluster size), recording the
//     SM of each cluster's first CTA. Repeated launches of one shape land on the same SMs (kernel 13's notes), but
//     nothing promises it: a label that is wrong costs speed, never a result (common/gpc_rounds.h).
//
// Host code; every CUDA call is checked (a failure throws CudaError). Kernels call it when they are prepared for a
// shape, not in the timed launches; the GPC probes run once per device and process, the placement probe each time.
#pragma once

#include <vector>

namespace gemm {

// One label per SM number (at least the SM count of them; %smid may number beyond it): SMs with one label are on one
// GPC (the first kind of probe above). A label is the number of one SM of the group and means nothing else.
std::vector<int> probe_sm_gpcs();

// One label per cluster of a launch of `grid` CTAs of `threads` threads and `shared_bytes` of dynamic shared memory
// in clusters of `cluster_size` (the launch of the kernel the labels are for); clusters with one label run on one
// GPC: probe_sm_gpcs()'s label of the SM its first CTA ran on in a probe launched the same way.
std::vector<int> probe_cluster_gpcs(int grid, int threads, int shared_bytes, int cluster_size);

}  // namespace gemm

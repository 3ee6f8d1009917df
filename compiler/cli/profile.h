// `--profile FILE` of `mgc run` and `mgc train`: the per-dispatch records
// of one run (libmgrt's mgrt_session_profile_*), written as a Chrome /
// Perfetto trace and summed up as a table of the top kernels.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/include/mgrt.h"

namespace mgc {

struct DispatchRecord {
  std::string kernel, variant, node, shape;
  uint64_t startNs = 0, endNs = 0;  // GPU time since the run's first dispatch
  uint64_t flops = 0, bytes = 0;    // compile-time estimates; 0 = unknown
  bool barrier = false;
};

// Turns profiling on for a session; "" on success, else a message saying
// why (e.g. the device's compute queue has no timestamps).
std::string enableProfiling(mgrt_session* s);

// The records of the session's last run ("" on success, else the message).
std::string readProfile(const mgrt_session* s, std::vector<DispatchRecord>* out);

// A trace in the Chrome trace-event JSON format ({"traceEvents": [...]}),
// which ui.perfetto.dev and chrome://tracing load: one complete ("X") slice
// per dispatch on one GPU track, named by its IR node, with the kernel,
// variant, output shape, estimates and achieved rates in its args.
// `title` names the process track ("mgc run model.mgb on <device>").
// "" on success, else the message naming the file.
std::string writeTrace(const std::string& path, const std::string& title, const std::vector<DispatchRecord>& r);

// The `top` kernels (kernel + variant) by total GPU time: count, total ms,
// share of the run, achieved TFLOP/s and GB/s; then the dispatch and
// barrier counts. Text, one line per row.
std::string topKernelsTable(const std::vector<DispatchRecord>& r, size_t top = 10);

// All of the above for the session's last run: reads the records, writes
// the trace to `path`, prints the table to stdout. "" on success.
std::string reportProfile(const mgrt_session* s, const std::string& path, const std::string& title);

}  // namespace mgc

// The trace writer and the top-kernels table (profile.h). Rates are the
// compile-time estimates (kernels/cost.h) over measured GPU time: they say
// how far a kernel is from the device's peak, not what it executed.
#include "compiler/cli/profile.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

namespace mgc {

namespace {

double ms(uint64_t ns) { return double(ns) * 1e-6; }

// Operations or bytes per second, in units of 10^scale ("-" when unknown).
std::string rate(uint64_t amount, uint64_t ns, double scale) {
  if (amount == 0 || ns == 0) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", double(amount) / (double(ns) * 1e-9) / scale);
  return buf;
}

}  // namespace

std::string enableProfiling(mgrt_session* s) {
  if (mgrt_session_set_profiling(s, 1) != MGRT_OK) return mgrt_last_error();
  return "";
}

std::string readProfile(const mgrt_session* s, std::vector<DispatchRecord>* out) {
  out->clear();
  const int n = mgrt_session_profile_count(s);
  for (int i = 0; i < n; ++i) {
    mgrt_dispatch_profile p;
    if (mgrt_session_profile_get(s, i, &p) != MGRT_OK) return mgrt_last_error();
    out->push_back({p.kernel, p.variant, p.node, p.shape, p.start_ns, p.end_ns, p.flops, p.bytes, p.barrier != 0});
  }
  return "";
}

std::string writeTrace(const std::string& path, const std::string& title, const std::vector<DispatchRecord>& r) {
  using nlohmann::ordered_json;
  ordered_json events = ordered_json::array();
  events.push_back({{"ph", "M"}, {"pid", 1}, {"name", "process_name"}, {"args", {{"name", title}}}});
  events.push_back(
      {{"ph", "M"}, {"pid", 1}, {"tid", 1}, {"name", "thread_name"}, {"args", {{"name", "GPU dispatches"}}}});
  for (size_t i = 0; i < r.size(); ++i) {
    const DispatchRecord& d = r[i];
    const uint64_t ns = d.endNs - d.startNs;
    ordered_json args = {{"index", i},           {"node", d.node},       {"kernel", d.kernel},
                         {"variant", d.variant}, {"shape", d.shape},     {"flops", d.flops},
                         {"bytes", d.bytes},     {"barrier", d.barrier}, {"gpu_us", double(ns) * 1e-3}};
    if (ns > 0 && d.flops) args["TFLOP/s"] = double(d.flops) / double(ns) * 1e-3;
    if (ns > 0 && d.bytes) args["GB/s"] = double(d.bytes) / double(ns);
    // Trace-event times are microseconds; fractions keep the ns.
    events.push_back({{"name", d.node.empty() ? d.kernel : d.node},
                      {"cat", d.kernel},
                      {"ph", "X"},
                      {"pid", 1},
                      {"tid", 1},
                      {"ts", double(d.startNs) * 1e-3},
                      {"dur", double(ns) * 1e-3},
                      {"args", std::move(args)}});
  }
  const ordered_json trace = {{"traceEvents", std::move(events)}, {"displayTimeUnit", "ns"}};
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  // Names come from the bundle: invalid UTF-8 is replaced, never thrown on.
  if (f) f << trace.dump(1, ' ', false, ordered_json::error_handler_t::replace) << "\n";
  if (!f) return path + ": cannot write the trace";
  return "";
}

std::string topKernelsTable(const std::vector<DispatchRecord>& r, size_t top) {
  struct Row {
    std::string name;
    int count = 0;
    uint64_t ns = 0, flops = 0, bytes = 0;
  };
  std::map<std::string, Row> byKernel;
  uint64_t totalNs = 0;
  int barriers = 0;
  for (const DispatchRecord& d : r) {
    const std::string name = d.kernel + " (" + d.variant + ")";
    Row& row = byKernel[name];
    row.name = name;
    row.count++;
    row.ns += d.endNs - d.startNs;
    row.flops += d.flops;
    row.bytes += d.bytes;
    totalNs += d.endNs - d.startNs;
    barriers += d.barrier;
  }
  std::vector<Row> rows;
  for (auto& [name, row] : byKernel) rows.push_back(row);
  std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a.ns > b.ns; });
  std::string out;
  char line[256];
  std::snprintf(line, sizeof line, "%-32s %6s %10s %7s %9s %9s\n", "kernel (variant)", "count", "total ms", "share",
                "TFLOP/s", "GB/s");
  out += line;
  for (size_t i = 0; i < rows.size() && i < top; ++i) {
    const Row& row = rows[i];
    std::snprintf(line, sizeof line, "%-32s %6d %10.3f %6.1f%% %9s %9s\n", row.name.c_str(), row.count, ms(row.ns),
                  totalNs ? 100.0 * double(row.ns) / double(totalNs) : 0.0, rate(row.flops, row.ns, 1e12).c_str(),
                  rate(row.bytes, row.ns, 1e9).c_str());
    out += line;
  }
  if (rows.size() > top) out += "(" + std::to_string(rows.size() - top) + " more kernels)\n";
  std::snprintf(line, sizeof line, "%zu dispatches, %d barriers, %.3f ms GPU\n", r.size(), barriers, ms(totalNs));
  out += line;
  return out;
}

std::string reportProfile(const mgrt_session* s, const std::string& path, const std::string& title) {
  std::vector<DispatchRecord> records;
  if (std::string e = readProfile(s, &records); !e.empty()) return e;
  if (records.empty()) return "the profiled run has no dispatches; no trace written";
  if (std::string e = writeTrace(path, title, records); !e.empty()) return e;
  std::printf("profile: %s (one slice per dispatch; open in ui.perfetto.dev)\n%s", path.c_str(),
              topKernelsTable(records).c_str());
  return "";
}

}  // namespace mgc

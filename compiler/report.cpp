#include "compiler/report.h"

#include <set>
#include <string_view>

#include <nlohmann/json.hpp>

namespace mgc {

namespace {

std::string human(double bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB"};
  int u = 0;
  while (bytes >= 1024 && u < 3) bytes /= 1024, ++u;
  char buf[32];
  std::snprintf(buf, sizeof buf, u ? "%.1f %s" : "%.0f %s", bytes, units[u]);
  return buf;
}

}  // namespace

void ReportBuilder::recordImportedOps(const Graph& g) {
  importedNodes_ = int(g.nodes.size());
  for (const Node& n : g.nodes) ++importedOps_[opName(n.op)];
}

void ReportBuilder::recordDispatch(const DispatchPlan& p) {
  dispatches_.push_back({p.node, p.kernel, {p.groups[0], p.groups[1], p.groups[2]}});
}

void ReportBuilder::recordMemory(const MemoryPlan& m) { mem_ = m; }

void ReportBuilder::recordBundle(const mgb::BundleSpec& spec, size_t fileBytes, int barriers) {
  fileBytes_ = fileBytes;
  weightsBytes_ = mgb::dataSectionSize(spec);
  kernels_ = int(spec.kernels.size());
  std::set<std::string_view> msl;  // specialized copies share one MSL text in the file
  for (const auto& k : spec.kernels)
    for (const auto& v : k.variants) {
      spirvBytes_ += v.spirv.size() * 4;
      if (msl.insert(v.msl).second) mslBytes_ += v.msl.size();
    }
  barriers_ = barriers;
}

void ReportBuilder::recordPhases(const std::vector<PhaseTime>& phases) { phases_ = phases; }

std::string ReportBuilder::json() const {
  nlohmann::ordered_json j;
  j["source"] = source_;
  j["imported"] = {{"nodes", importedNodes_}, {"ops", importedOps_}};
  nlohmann::ordered_json ds = nlohmann::ordered_json::array();
  for (const auto& d : dispatches_)
    ds.push_back({{"node", d.node}, {"kernel", d.kernel}, {"groups", {d.groups[0], d.groups[1], d.groups[2]}}});
  j["dispatches"] = ds;
  j["barriers"] = barriers_;
  j["bundle"] = {{"bytes", fileBytes_},
                 {"weights_bytes", weightsBytes_},
                 {"kernels", kernels_},
                 {"spirv_bytes", spirvBytes_},
                 {"msl_bytes", mslBytes_}};
  j["arenas"] = {{"weights_bytes", mem_.weightsBytes},
                 {"activations_peak_bytes", mem_.activationBytes},
                 {"activations_naive_bytes", mem_.naiveActivationBytes},
                 {"in_place_ops", mem_.inPlaceCount}};
  nlohmann::ordered_json ph = nlohmann::ordered_json::array();
  double total = 0;
  for (const auto& p : phases_) ph.push_back({{"name", p.name}, {"ms", p.ms}}), total += p.ms;
  j["phases"] = ph;
  j["total_ms"] = total;
  return j.dump(2) + "\n";
}

std::string ReportBuilder::summary() const {
  double total = 0;
  std::string phases;
  for (const auto& p : phases_) {
    total += p.ms;
    char buf[64];
    std::snprintf(buf, sizeof buf, "%s%s %.1f", phases.empty() ? "" : ", ", p.name.c_str(), p.ms);
    phases += buf;
  }
  char buf[1024];
  std::snprintf(buf, sizeof buf,
                "%s: %d nodes -> %zu dispatches (%d barriers), %d kernels\n"
                "  bundle %s (weights %s, SPIR-V %s, MSL %s)\n"
                "  activations arena %s (naive plan %s, %d ops in place)\n"
                "  compile %.1f ms (%s)\n",
                source_.c_str(), importedNodes_, dispatches_.size(), barriers_, kernels_, human(double(fileBytes_)).c_str(),
                human(double(weightsBytes_)).c_str(), human(double(spirvBytes_)).c_str(), human(double(mslBytes_)).c_str(),
                human(double(mem_.activationBytes)).c_str(), human(double(mem_.naiveActivationBytes)).c_str(),
                mem_.inPlaceCount, total, phases.c_str());
  return buf;
}

}  // namespace mgc

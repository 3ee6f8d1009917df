// The compile report: what `mgc compile --report FILE.json` writes and the
// short summary it prints.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "compiler/phase_time.h"
#include "formats/bundle_writer.h"
#include "kernels/lower.h"
#include "passes/plan/memory_plan.h"

namespace mgc {

class ReportBuilder {
 public:
  explicit ReportBuilder(std::string source) : source_(std::move(source)) {}
  void recordImportedOps(const Graph& g);
  void recordDispatch(const DispatchPlan& p);
  void recordMemory(const MemoryPlan& m);
  void recordBundle(const mgb::BundleSpec& spec, size_t fileBytes, int barriers);
  void recordPhases(const std::vector<PhaseTime>& phases);
  std::string json() const;
  std::string summary() const;

 private:
  struct DispatchRecord {
    std::string node, kernel;
    uint32_t groups[3];
  };
  std::string source_;
  std::map<std::string, int> importedOps_;
  int importedNodes_ = 0;
  std::vector<DispatchRecord> dispatches_;
  MemoryPlan mem_;
  size_t fileBytes_ = 0, weightsBytes_ = 0, spirvBytes_ = 0, mslBytes_ = 0;
  int barriers_ = 0, kernels_ = 0;
  std::vector<PhaseTime> phases_;
};

}  // namespace mgc

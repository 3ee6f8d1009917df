// Lowering + memory planning + scheduling of one or more entry points into
// one bundle spec. compileProgram (driver.h) drives it once per compile:
// one entry point ("infer"), or several over shared state ("train_step" +
// "infer"; later "prefill" + "decode").
//
// Layout of the bundle it builds:
//   arena 0  Weights      constants of every entry point, one after another
//   arena 1  Activations  sized for the largest entry point (each session
//                         has its own)
//   arena 2  State        (only when a graph has state values) every state
//                         tensor, by name, at one offset shared by all entry
//                         points; initialized from the data section after
//                         the weights (Arena.init_offset/init_size)
// State updates (Graph::stateUpdates) are written in place where the memory
// planner finds it safe (passes/plan/memory_plan.h: the new value's producer
// writes the state's bytes after every reader of the old value); the others
// become copy dispatches at the end of the entry point, from a new value
// computed in the activations arena.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "compiler/phase_time.h"
#include "compiler/report.h"
#include "formats/bundle_writer.h"
#include "kernels/lower.h"
#include "kernels/registry.h"
#include "passes/plan/memory_plan.h"

namespace mgc {

// The memory plan's input for `g` from its nodes' dispatches (`plans`,
// one list per node, empty for alias ops): what BundleBuilder plans each
// entry point's memory with.
MemoryPlanInput memoryPlanInput(const Graph& g, const std::vector<std::vector<DispatchPlan>>& plans);

struct EntryPointStats {
  std::string name;
  int dispatches = 0;
  int barriers = 0;
  uint64_t activationBytes = 0;       // planned peak
  uint64_t naiveActivationBytes = 0;  // one buffer per tensor, no reuse
  int inPlace = 0;
};

class BundleBuilder {
 public:
  BundleBuilder(std::string source, ReportBuilder* report) : source_(std::move(source)), report_(report) {}

  // Lowers a graph that has been through the pass pipeline and appends it as
  // entry point `name`. Phase times go to `phases`.
  void addEntryPoint(const std::string& name, const Graph& g, std::vector<PhaseTime>* phases);

  // false: no kernel is specialized to its dispatches' params
  // (kernels/specialize.h; `mgc compile --no-specialize`).
  void setSpecializeKernels(bool on) { specializeKernels_ = on; }
  // The tokenizer the bundle carries (mgb.fbs): tokenizer.json text or a
  // SentencePiece tokenizer.model's bytes (at most one non-empty), and the
  // stop ids.
  void setTokenizer(std::string json, std::string model, std::vector<int64_t> eosTokenIds) {
    spec_.tokenizer = std::move(json);
    spec_.tokenizerModel = std::move(model);
    spec_.eosTokenIds = std::move(eosTokenIds);
  }
  // The self-check of one entry point (compiler/self_check.h).
  void setCheck(mgb::CheckEntry check) { spec_.check = std::move(check); }
  // Arenas, data section, state list; lays the bundle out. `assemble`: the
  // whole file in BundleImage::bytes; else the data section stays in
  // pieces that point into the graphs' constants (and keep them alive).
  mgb::BundleImage finish(std::vector<PhaseTime>* phases, bool assemble = true);

  const std::vector<EntryPointStats>& stats() const { return stats_; }
  uint64_t stateBytes() const { return stateBytes_; }
  const mgb::BundleSpec& spec() const { return spec_; }

 private:
  struct StateSlot {
    TensorType type;
    uint64_t offset = 0, size = 0;
    uint32_t tensor = 0;  // index into spec_.tensors
  };
  TensorSlot stateSlot(const Graph& g, ValueId v);
  uint32_t kernelIndex(const DispatchPlan& p);
  void buildKernels();

  std::string source_;
  ReportBuilder* report_;
  mgb::BundleSpec spec_;
  std::map<std::string, uint32_t> kernelIndex_;  // kernel name (+ specialized words) → index
  struct PendingKernel {  // a kernel entry finish() builds
    uint32_t index;       // into spec_.kernels
    const KernelBinary* kb;
    std::vector<uint32_t> params;
    std::string node;  // the first dispatch's, for errors
  };
  std::vector<PendingKernel> pendingKernels_;
  bool specializeKernels_ = true;
  // The data section is planned as pieces, each one tensor's bytes in its
  // device dtype at an offset of its arena, left where they are (the
  // graph's constant, shared) until the file image is written: the weights
  // are copied once, into the file, not into an arena image first.
  struct DataPiece {
    uint64_t offset = 0;
    std::shared_ptr<const void> keep;  // owns `data`
    const uint8_t* data = nullptr;
    uint64_t size = 0;
  };
  static DataPiece devicePiece(const std::shared_ptr<const HostTensor>& t, DType dev, uint64_t offset);
  // Pieces in offset order with zero bytes between them, up to `end`.
  static void appendSpans(const std::vector<DataPiece>& pieces, uint64_t end, std::vector<mgb::DataSpan>& out);
  std::vector<DataPiece> weights_;  // arena 0 contents so far
  uint64_t weightsBytes_ = 0;       // arena 0 size so far
  // Constants already in weights_, by name: a later entry point's constant
  // with the same name, type and bytes reads the same slot (prefill and
  // decode share their weights; so do train_step and infer).
  struct WrittenConstant {
    TensorType type;
    uint64_t offset = 0, size = 0;
    size_t piece = 0;  // in weights_
  };
  std::map<std::string, WrittenConstant> written_;
  std::map<std::string, StateSlot> state_;  // by name
  std::vector<std::string> stateOrder_;
  std::vector<DataPiece> stateInit_;  // states with nonzero initial values
  uint64_t stateInitBytes_ = 0;       // to the end of the last of them
  uint64_t stateBytes_ = 0;
  uint64_t activationBytes_ = 0;
  int totalBarriers_ = 0;
  std::vector<EntryPointStats> stats_;
  MemoryPlan firstPlan_;
};

}  // namespace mgc

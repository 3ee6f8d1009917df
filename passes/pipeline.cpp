#include "passes/pipeline.h"

#include "passes/passes.h"

namespace mgc {

const std::vector<Pass>& graphPipeline() {
  static const std::vector<Pass> kPipeline = {
      {"verify", verifyGraph},
      {"const-fold", constFold},
      {"canonicalize", canonicalize},
      {"dce", deadCodeElim},
  };
  return kPipeline;
}

}  // namespace mgc

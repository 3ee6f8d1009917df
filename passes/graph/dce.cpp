// dce: drops nodes whose results nothing uses (transitively), then the
// constants nothing uses any more (their data is released; the value stays
// as an unattached id so that ids remain stable).
//
//   %w = const f32[2] dense<[1.0, 2.0]>
//   %dead = mul(%x, %w) : f32[2]           →      %y = relu(%x) : f32[2]
//   %y = relu(%x) : f32[2]                        return %y
//   return %y
#include "passes/graph/passes.h"

namespace mgc {

void deadCodeElim(Graph& g) {
  g.removeDeadNodes();
  std::vector<int> uses = g.useCounts();
  for (size_t v = 0; v < g.values.size(); ++v)
    if (g.values[v].isConstant() && uses[v] == 0) g.values[v].constant.reset();
}

}  // namespace mgc

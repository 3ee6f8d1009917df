// mgc opt FILE.mgir [--pass NAME]... [--pipeline] [--print-ir-after-all]
//                   [--elide-constants]
// Text in, text out: parses a graph, runs the named passes in order (or the
// whole graph pipeline), verifies after each, prints the IR to stdout. This
// is what the FileCheck tests in tests/passes/graph/ drive.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <string>
#include <vector>

#include "compiler/cli/commands.h"
#include "formats/file_read.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "passes/graph/passes.h"
#include "passes/graph/pipeline.h"

namespace mgc {

namespace {

std::string passNames() {
  std::string names;
  for (const Pass& p : graphPipeline()) {
    if (names.find(std::string(p.name) + ",") != std::string::npos) continue;
    names += std::string(p.name) + ", ";
  }
  return names.substr(0, names.size() - 2);
}

}  // namespace

int optMain(int argc, char** argv) {
  CLI::App app{"Run graph passes on a text IR file and print the result", "mgc opt"};
  std::string input;
  std::vector<std::string> passes;
  bool wholePipeline = false, printAfterAll = false, elide = false;
  app.add_option("file", input, "text IR file (.mgir)")->required();
  auto* passOpt = app.add_option("--pass", passes, "run this pass (repeatable, in order): " + passNames());
  app.add_flag("--pipeline", wholePipeline, "run the whole graph pipeline")->excludes(passOpt);
  app.add_flag("--print-ir-after-all", printAfterAll, "print the IR to stderr after every pass");
  app.add_flag("--elide-constants", elide, "print large constants as dense_resource<elided>");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? kExitOk : kExitUsage;
  }

  std::vector<const Pass*> toRun;
  if (wholePipeline) {
    for (const Pass& p : graphPipeline()) toRun.push_back(&p);
  }
  for (const std::string& name : passes) {
    const Pass* p = findPass(name);
    if (!p) {
      std::fprintf(stderr, "mgc opt: error: unknown pass '%s' (known: %s)\n", name.c_str(), passNames().c_str());
      return kExitUsage;
    }
    toRun.push_back(p);
  }

  if (std::string problem = fileio::notAFile(input); !problem.empty()) {
    std::fprintf(stderr, "mgc opt: error: %s\n", problem.c_str());
    return kExitIo;
  }
  try {
    Graph g = parseGraphFile(input);
    verifyGraph(g);
    for (const Pass* p : toRun) {
      try {
        p->run(g);
        verifyGraph(g);
      } catch (const Error& e) {
        throw Error(std::string("pass '") + p->name + "': " + e.what());
      }
      if (printAfterAll)
        std::fprintf(stderr, "// ----- IR after %s -----\n%s", p->name, printGraph(g, elide).c_str());
    }
    std::fputs(printGraph(g, elide).c_str(), stdout);
  } catch (const Error& e) {
    std::fprintf(stderr, "mgc opt: error: %s\n", e.what());
    return kExitBadInput;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mgc opt: internal error on %s: %s\n", input.c_str(), e.what());
    return kExitBadInput;
  }
  return kExitOk;
}

}  // namespace mgc

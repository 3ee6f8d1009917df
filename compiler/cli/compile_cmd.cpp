// mgc compile MODEL -o OUT.mgb [--report FILE.json] [--print-ir-after-all]
#include <CLI/CLI.hpp>
#include <cstdio>
#include <fstream>

#include "compiler/cli/commands.h"
#include "compiler/driver.h"

namespace mgc {

namespace {

bool writeFileAtomically(const std::string& path, const void* data, size_t size, std::string* err) {
  std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!f) {
      *err = path + ": cannot write file";
      return false;
    }
    f.write(static_cast<const char*>(data), std::streamsize(size));
    if (!f) {
      *err = path + ": write failed";
      return false;
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    *err = path + ": cannot write file";
    return false;
  }
  return true;
}

}  // namespace

int compileMain(int argc, char** argv) {
  CLI::App app{"Compile an ONNX model or text IR into a .mgb bundle", "mgc compile"};
  std::string input, output, reportPath;
  bool printIr = false, quiet = false;
  app.add_option("model", input, "model file (.onnx or .mgir)")->required();
  app.add_option("-o,--output", output, "bundle to write (.mgb)")->required();
  app.add_option("--report", reportPath, "write a JSON report (ops, kernels, sizes, arenas, phase times)");
  app.add_flag("--print-ir-after-all", printIr, "print the IR to stderr after every pass");
  app.add_flag("-q,--quiet", quiet, "print nothing on success");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? kExitOk : kExitUsage;
  }

  if (std::FILE* probe = std::fopen(input.c_str(), "rb")) {
    std::fclose(probe);
  } else {
    std::fprintf(stderr, "mgc compile: error: %s: cannot open file\n", input.c_str());
    return kExitIo;
  }
  CompileOptions opts;
  opts.printIrAfterAll = printIr;
  CompileResult r;
  try {
    r = compileFile(input, opts);
  } catch (const Error& e) {
    std::fprintf(stderr, "mgc compile: error: %s\n", e.what());
    return kExitBadInput;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mgc compile: internal error while compiling %s: %s\n", input.c_str(), e.what());
    return kExitBadInput;
  }
  std::string err;
  if (!writeFileAtomically(output, r.bundle.data(), r.bundle.size(), &err) ||
      (!reportPath.empty() && !writeFileAtomically(reportPath, r.reportJson.data(), r.reportJson.size(), &err))) {
    std::fprintf(stderr, "mgc compile: error: %s\n", err.c_str());
    return kExitIo;
  }
  if (!quiet) std::printf("%s  wrote %s\n", r.summary.c_str(), output.c_str());
  return kExitOk;
}

}  // namespace mgc

// mgc inspect BUNDLE.mgb [--dispatches]: what is inside a bundle, read
// without a GPU. The bundle is verified structurally first.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "compiler/cli/bundle_file.h"
#include "compiler/cli/commands.h"
#include "compiler/cli/token_ids.h"
#include "compiler/tokenizer/sentencepiece_model.h"
#include "compiler/tokenizer/tokenizer.h"
#include "formats/bundle_layout.h"
#include "formats/dtype.h"
#include "formats/features.h"
#include "formats/file_read.h"
#include "formats/mgb_generated.h"
#include "ir/types.h"

namespace mgc {

namespace {

const char* kArenaNames[] = {"weights", "activations", "state"};

// "tokenizer.json 9084490 bytes, 128256 token ids, stops at 128001,128009"
// (or "tokenizer.model 499723 bytes, ..."), or why it does not load.
std::string tokenizerLine(const mgb::Bundle& b, const std::string& path) {
  const bool json = b.tokenizer() != nullptr;
  const std::string file = json ? "tokenizer.json" : "tokenizer.model";
  std::string line =
      file + " " + std::to_string(json ? b.tokenizer()->size() : b.tokenizer_model()->size()) + " bytes, ";
  try {
    std::unique_ptr<tok::TextTokenizer> t;
    if (json)
      t = std::make_unique<tok::Tokenizer>(b.tokenizer()->str(), path + ": " + file);
    else
      t = std::make_unique<tok::SentencePieceModel>(
          std::string(reinterpret_cast<const char*>(b.tokenizer_model()->data()), b.tokenizer_model()->size()),
          path + ": " + file);
    line += std::to_string(t->vocabSize()) + " token ids";
  } catch (const Error& e) {
    return line + "does not load: " + e.what();
  }
  if (b.eos_token_ids()) {
    std::vector<int64_t> eos(b.eos_token_ids()->begin(), b.eos_token_ids()->end());
    line += ", stops at " + joinIds(eos);
  }
  return line;
}

const char* dtypeStr(mgb::DType t) {
  unsigned i = unsigned(t);
  return mgb::dtype::isValid(i) ? mgb::dtype::name(mgb::dtype::DType(i)) : "?";
}

std::string shapeOf(const flatbuffers::Vector<int64_t>* s) {
  std::string r = "[";
  if (s)
    for (flatbuffers::uoffset_t i = 0; i < s->size(); ++i) r += (i ? "," : "") + std::to_string(s->Get(i));
  return r + "]";
}

}  // namespace

int inspectMain(int argc, char** argv) {
  CLI::App app{"Show what is inside a .mgb bundle", "mgc inspect"};
  std::string path;
  bool listDispatches = false;
  app.add_option("bundle", path, "bundle file (.mgb)")->required();
  app.add_flag("--dispatches", listDispatches, "list every dispatch");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? kExitOk : kExitUsage;
  }
  std::vector<uint8_t> file;
  std::string err;
  if (!fileio::readAll(path, &file, &err)) {
    std::fprintf(stderr, "mgc inspect: error: %s\n", err.c_str());
    return kExitIo;
  }
  const mgb::Bundle* b = openBundle(file, path, &err);
  if (!b) {
    std::fprintf(stderr, "mgc inspect: error: %s\n", err.c_str());
    return kExitBadInput;
  }
  mgb::Header h;
  std::memcpy(&h, file.data(), sizeof h);
  std::printf("%s: .mgb v%u, %zu bytes, producer %s\n", path.c_str(), h.version, file.size(),
              b->producer() ? b->producer()->c_str() : "?");
  std::printf("  manifest %llu bytes, weights %llu bytes at offset %llu\n", (unsigned long long)h.manifest_size,
              (unsigned long long)h.weights_size, (unsigned long long)h.weights_offset);
  if (b->tokenizer() || b->tokenizer_model()) std::printf("  %s\n", tokenizerLine(*b, path).c_str());
  if (const mgb::Check* c = b->check())  // the structure only: libmgrt checks its sizes at load
    std::printf("  self-check: entry point '%s', %u inputs, %u outputs, tolerance %g (mgc verify runs it)\n",
                c->entry_point() ? c->entry_point()->c_str() : "?", c->inputs() ? c->inputs()->size() : 0,
                c->outputs() ? c->outputs()->size() : 0, c->tolerance());
  if (b->arenas()) {
    std::printf("arenas:\n");
    for (flatbuffers::uoffset_t i = 0; i < b->arenas()->size(); ++i) {
      auto* a = b->arenas()->Get(i);
      unsigned k = unsigned(a->kind());
      std::printf("  %u %-12s %llu bytes\n", i, k < 3 ? kArenaNames[k] : "?", (unsigned long long)a->size());
    }
  }
  if (b->kernels()) {
    std::printf("kernels (%u):\n", b->kernels()->size());
    for (auto* k : *b->kernels()) {
      std::printf("  %-16s %u bindings\n", k->name() ? k->name()->c_str() : "?", k->num_bindings());
      if (!k->variants()) continue;
      for (auto* v : *k->variants()) {
        auto* ls = v->local_size();
        std::string needs = mgb::featureNames(uint32_t(v->features()));
        if (v->subgroup_size()) needs += ", subgroups of " + std::to_string(v->subgroup_size());
        if (auto* coop = v->cooperative_matrix(); coop && coop->size() == 3)
          needs += ", " + std::to_string(coop->Get(0)) + "x" + std::to_string(coop->Get(1)) + "x" +
                   std::to_string(coop->Get(2)) + " cooperative matrices";
        std::printf("    variant %-10s SPIR-V %6u bytes, MSL %6u bytes, local size %u,%u,%u, needs %s\n",
                    v->tag() ? v->tag()->c_str() : "?", v->spirv() ? v->spirv()->size() * 4 : 0,
                    v->msl() ? v->msl()->size() : 0, ls && ls->size() > 0 ? ls->Get(0) : 0,
                    ls && ls->size() > 1 ? ls->Get(1) : 0, ls && ls->size() > 2 ? ls->Get(2) : 0, needs.c_str());
      }
    }
  }
  auto tensorLine = [&](uint32_t ti) {
    if (!b->tensors() || ti >= b->tensors()->size()) return std::string("<bad tensor index>");
    auto* t = b->tensors()->Get(ti);
    return std::string(t->name() ? t->name()->c_str() : "?") + ": " + dtypeStr(t->dtype()) + shapeOf(t->shape());
  };
  if (b->entry_points()) {
    for (auto* e : *b->entry_points()) {
      uint32_t nd = e->dispatches() ? e->dispatches()->size() : 0, barriers = 0;
      for (uint32_t i = 0; i < nd; ++i) barriers += e->dispatches()->Get(i)->barrier();
      std::printf("entry point '%s': %u dispatches, %u barriers\n", e->name() ? e->name()->c_str() : "?", nd, barriers);
      if (e->inputs())
        for (uint32_t ti : *e->inputs()) std::printf("  input  %s\n", tensorLine(ti).c_str());
      if (e->outputs())
        for (uint32_t ti : *e->outputs()) std::printf("  output %s\n", tensorLine(ti).c_str());
      if (!listDispatches) continue;
      for (uint32_t i = 0; i < nd; ++i) {
        auto* d = e->dispatches()->Get(i);
        const char* kname = "?";
        if (b->kernels() && d->kernel() < b->kernels()->size() && b->kernels()->Get(d->kernel())->name())
          kname = b->kernels()->Get(d->kernel())->name()->c_str();
        auto* g = d->groups();
        std::printf("  %4u %s%-14s groups %u,%u,%u%s  node %s\n", i, d->barrier() ? "| " : "  ", kname,
                    g && g->size() > 0 ? g->Get(0) : 0, g && g->size() > 1 ? g->Get(1) : 0,
                    g && g->size() > 2 ? g->Get(2) : 0,
                    d->items() ? (" (" + std::to_string(d->items()) + " items)").c_str() : "",
                    d->node() ? d->node()->c_str() : "?");
      }
    }
  }
  return kExitOk;
}

}  // namespace mgc

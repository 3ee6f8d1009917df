#include "kernels/program_codegen.h"

#include <glslang/Public/ResourceLimits.h>
#include <glslang/Public/ShaderLang.h>
#include <glslang/SPIRV/GlslangToSpv.h>

#include <cctype>
#include <cstdio>
#include <mutex>
#include <map>
#include <memory>
#include <optional>

#include "ir/types.h"
#include "kernels/kernel_sources.h"
#include "kernels/src/eltwise_abi.h"

namespace mgc::kern {

namespace {

// Where each kernel's params hold the program (eltwise.comp, reduce_fused.comp).
struct ProgramAt {
  std::string_view kernel, source;
  size_t numInputs, numInstrs, outReg, program;
};
constexpr ProgramAt kKernels[] = {
    {"eltwise", "eltwise.comp", 1, 2, 3, EW_PARAM_PROGRAM},
    {"reduce_fused", "reduce_fused.comp", 17, 18, 19, 116},
};

const ProgramAt* programAt(std::string_view kernel) {
  for (const ProgramAt& k : kKernels)
    if (k.kernel == kernel) return &k;
  return nullptr;
}

std::string_view source(std::string_view name) {
  const std::optional<std::string_view> text = kernelSourceFile(name);
  if (!text) throw Error("kernel source " + std::string(name) + " is not embedded in this mgc");
  return *text;
}

// Opcode → the expression of its case in execute(), in terms of a, b, c
// (raw words), x = F(a), y = F(b), imm0, imm1: read from the sources, so the
// generated code and the interpreter cannot disagree.
// The text between `open` and the next `close` after position *at`; moves
// *at past it. nullopt when either is missing.
std::optional<std::string> between(std::string_view text, std::string_view open, std::string_view close, size_t* at) {
  const size_t start = text.find(open, *at);
  if (start == std::string_view::npos) return std::nullopt;
  const size_t end = text.find(close, start + open.size());
  if (end == std::string_view::npos) return std::nullopt;
  *at = end + close.size();
  return std::string(text.substr(start + open.size(), end - start - open.size()));
}

const std::map<uint32_t, std::string>& opExpressions() {
  static const std::map<uint32_t, std::string> table = [] {
    // EW_OP(NAME, CODE) lines.
    std::map<std::string, uint32_t> codes;
    const std::string_view def = source("eltwise_ops.def");
    for (size_t at = 0; std::optional<std::string> op = between(def, "EW_OP(", ")", &at);) {
      const size_t comma = op->find(',');
      const size_t digits = op->find_first_not_of(' ', comma == std::string::npos ? op->size() : comma + 1);
      if (digits == std::string::npos || !std::isdigit(static_cast<unsigned char>((*op)[digits])))
        continue;  // the comment's EW_OP(name, code)
      codes[op->substr(0, comma)] = uint32_t(std::stoul(op->substr(digits)));
    }
    // `case OP_NAME: return EXPR;` lines, one per line.
    std::map<uint32_t, std::string> out;
    const std::string_view exec = source("eltwise_exec.glsl");
    for (size_t at = 0; std::optional<std::string> line = between(exec, "case OP_", ";\n", &at);) {
      const size_t colon = line->find(": return ");
      if (colon == std::string::npos) throw Error("eltwise_exec.glsl: case OP_" + *line + " is not one return");
      auto c = codes.find(line->substr(0, colon));
      if (c == codes.end()) throw Error("eltwise_exec.glsl: case OP_" + line->substr(0, colon) + " is not in eltwise_ops.def");
      out[c->second] = line->substr(colon + 9);
    }
    return out;
  }();
  return table;
}

std::string hex(uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08xu", v);
  return buf;
}

// Serves the embedded sources, and "ew_program.glsl" (the generated program).
class Includer : public glslang::TShader::Includer {
 public:
  explicit Includer(const std::string& program) : program_(program) {}
  IncludeResult* includeLocal(const char* name, const char*, size_t) override { return include(name); }
  IncludeResult* includeSystem(const char* name, const char*, size_t) override { return include(name); }
  void releaseInclude(IncludeResult* r) override { delete r; }

 private:
  IncludeResult* include(const std::string& name) {
    if (name == "ew_program.glsl") return new IncludeResult(name, program_.data(), program_.size(), nullptr);
    if (std::optional<std::string_view> text = kernelSourceFile(name))
      return new IncludeResult(name, text->data(), text->size(), nullptr);
    return nullptr;
  }
  const std::string& program_;
};

}  // namespace

bool hasGeneratedProgram(std::string_view kernel, const std::vector<uint32_t>& params) {
  const ProgramAt* at = programAt(kernel);
  if (!at || params.size() <= at->numInstrs) return false;
  const uint32_t n = params[at->numInstrs];
  return n >= 1 && n <= EW_MAX_INSTRS && params.size() >= at->program + 3 * size_t(n) &&
         params[at->numInputs] <= EW_MAX_INPUTS;
}

std::string programGlsl(const uint32_t* program, uint32_t numInstrs, uint32_t numInputs, uint32_t outReg) {
  const uint32_t mask = EW_MAX_REGS - 1;
  if (numInputs > EW_MAX_INPUTS || numInstrs > EW_MAX_INSTRS)
    throw Error("elementwise program with " + std::to_string(numInputs) + " inputs and " + std::to_string(numInstrs) +
                " instructions (limits " + std::to_string(EW_MAX_INPUTS) + ", " + std::to_string(EW_MAX_INSTRS) + ")");
  const auto& ops = opExpressions();
  std::string s = "// Generated by kernels/program_codegen.cpp: this dispatch's program.\n";
  s += "uint programValue(uint off[EW_MAX_INPUTS]) {\n  uint";
  for (uint32_t r = 0; r < EW_MAX_REGS; ++r) s += (r ? ", r" : " r") + std::to_string(r) + " = 0u";
  s += ";\n";
  for (uint32_t k = 0; k < numInputs; ++k)
    s += "  r" + std::to_string(k) + " = in" + std::to_string(k) + "[off[" + std::to_string(k) + "]];\n";
  for (uint32_t j = 0; j < numInstrs; ++j) {
    const uint32_t w = program[3 * j], op = w & 255u;
    auto e = ops.find(op);
    if (e == ops.end()) throw Error("elementwise program: opcode " + std::to_string(op) + " has no case in execute()");
    auto reg = [&](int shift) { return "r" + std::to_string((w >> shift) & mask); };
    s += "  { uint a = " + reg(12) + ", b = " + reg(16) + ", c = " + reg(20) + ", imm0 = " + hex(program[3 * j + 1]) +
         ", imm1 = " + hex(program[3 * j + 2]) + "; float x = F(a), y = F(b); " + reg(8) + " = " + e->second +
         "; }\n";
  }
  s += "  return r" + std::to_string(outReg & mask) + ";\n}\n";
  return s;
}

std::vector<uint32_t> generatedProgramSpirv(std::string_view kernel, const std::vector<uint32_t>& params) {
  if (!hasGeneratedProgram(kernel, params))
    throw Error("kernel " + std::string(kernel) + ": its params hold no program to generate");
  const ProgramAt* at = programAt(kernel);
  const size_t numInstrs = params[at->numInstrs];
  const std::string program =
      programGlsl(params.data() + at->program, uint32_t(numInstrs), params[at->numInputs], params[at->outReg]);
  // One process-wide set-up; then shaders compile on any thread (each
  // parse allocates from its thread's pool).
  static const bool initialized = glslang::InitializeProcess();
  (void)initialized;
  const std::string text(source(at->source));
  const char* strings[] = {text.c_str()};
  const char* names[] = {at->source.data()};
  glslang::TShader shader(EShLangCompute);
  shader.setStringsWithLengthsAndNames(strings, nullptr, names, 1);
  shader.setPreamble("#extension GL_GOOGLE_include_directive : require\n#define EW_GENERATED 1\n");
  shader.setEnvInput(glslang::EShSourceGlsl, EShLangCompute, glslang::EShClientVulkan, 100);
  shader.setEnvClient(glslang::EShClientVulkan, glslang::EShTargetVulkan_1_0);
  shader.setEnvTarget(glslang::EShTargetSpv, glslang::EShTargetSpv_1_0);
  Includer includer(program);
  const EShMessages messages = EShMessages(EShMsgSpvRules | EShMsgVulkanRules);
  glslang::TProgram linked;
  if (!shader.parse(GetDefaultResources(), 450, false, messages, includer))
    throw Error("generating " + std::string(kernel) + ": " + shader.getInfoLog() + "\nprogram:\n" + program);
  linked.addShader(&shader);
  if (!linked.link(messages)) throw Error("generating " + std::string(kernel) + ": " + linked.getInfoLog());
  std::vector<uint32_t> spirv;
  glslang::SpvOptions options;
  options.disableOptimizer = true;
  options.validate = false;
  glslang::GlslangToSpv(*linked.getIntermediate(EShLangCompute), spirv, &options);
  return spirv;
}

void warmUpCodegen() {
  static std::once_flag once;
  std::call_once(once, [] {
    std::vector<uint32_t> params(EW_PARAM_PROGRAM + 3, 0);
    params[1] = 1, params[2] = 1, params[3] = 1;  // r1 = r0
    params[EW_PARAM_PROGRAM] = uint32_t(0) | 1u << 8;
    generatedProgramSpirv("eltwise", params);
  });
}

std::future<void> warmUpCodegenAsync() {
  return std::async(std::launch::async, [] {
    try {
      warmUpCodegen();
    } catch (const Error&) {  // the kernel that needs it reports the error
    }
  });
}

}  // namespace mgc::kern

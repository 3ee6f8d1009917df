// ONNX → IR: parse, check the opset, bind graph inputs and initializers,
// convert nodes in order (collecting every node that cannot be converted),
// bind graph outputs.
#include "compiler/onnx/import.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>

#include "compiler/onnx/importer.h"
#include "compiler/onnx/initializer_bytes.h"
#include "compiler/onnx/tensor_proto.h"
#include "formats/file_read.h"

namespace mgc {

using namespace onnximport;

namespace {

constexpr int kMinOpset = 1, kMaxOpset = 17;

bool isDefaultDomain(const std::string& d) { return d.empty() || d == "ai.onnx"; }

// The static tensor type of a graph input / value_info, or an error naming
// the value and the axis.
TensorType staticType(const onnx::ValueInfoProto& vi, const std::string& what) {
  if (!vi.type().has_tensor_type()) throw Error(what + " is not a tensor");
  const onnx::TypeProto::Tensor& tt = vi.type().tensor_type();
  TensorType t;
  if (!dtypeFromOnnx(tt.elem_type(), &t.dtype))
    throw Error(what + ": element type " + onnxTypeName(tt.elem_type()) + " is not supported");
  if (!tt.has_shape()) throw Error(what + " has no shape; mgc needs static shapes (re-export with fixed input shapes)");
  for (int k = 0; k < tt.shape().dim_size(); ++k) {
    const onnx::TensorShapeProto::Dimension& d = tt.shape().dim(k);
    if (d.has_dim_value()) {
      if (d.dim_value() < 0) throw Error(what + ": axis " + std::to_string(k) + " has negative size");
      t.shape.push_back(d.dim_value());
    } else if (d.has_dim_param()) {
      throw Error(what + ": axis " + std::to_string(k) + " is symbolic ('" + d.dim_param() +
                  "'); mgc needs static shapes (re-export with fixed input shapes)");
    } else {
      throw Error(what + ": axis " + std::to_string(k) + " has unknown size; mgc needs static shapes");
    }
  }
  checkedNumel(t.shape, what);
  return t;
}

// "[1,3,'N']" for messages; "[?]" when the model states no shape.
std::string declaredShape(const onnx::TypeProto::Tensor& tt) {
  if (!tt.has_shape()) return "[?]";
  std::string r = "[";
  for (int k = 0; k < tt.shape().dim_size(); ++k) {
    const auto& d = tt.shape().dim(k);
    r += (k ? "," : "") + (d.has_dim_value() ? std::to_string(d.dim_value()) : "'" + d.dim_param() + "'");
  }
  return r + "]";
}

class GraphImport {
 public:
  // `rawData`: the initializers' raw_data taken out before parsing
  // (SplitModel::rawData), or empty when the model was parsed whole.
  GraphImport(const std::string& source, const onnx::ModelProto& m,
              const std::vector<std::optional<std::string_view>>& rawData, const ImportOptions& opts)
      : im_(source), model_(m), rawData_(rawData) {
    im_.keepParameters = opts.keepParameters;
  }

  Graph run() {
    readOpsets();
    const onnx::GraphProto& gp = model_.graph();
    if (!gp.name().empty()) im_.g.name = gp.name();
    scanNames(gp);
    bindInitializers(gp);
    bindInputs(gp);
    for (const onnx::ValueInfoProto& vi : gp.value_info()) declared_[vi.name()] = &vi;
    for (const onnx::ValueInfoProto& vi : gp.output()) declared_[vi.name()] = &vi;
    for (const onnx::NodeProto& n : gp.node()) convertNode(n);
    reportProblems();
    bindOutputs(gp);
    im_.g.removeDeadNodes();
    return std::move(im_.g);
  }

 private:
  Importer im_;
  const onnx::ModelProto& model_;
  const std::vector<std::optional<std::string_view>>& rawData_;
  std::map<std::string, int> opsets_;  // domain ("" = default) → version
  std::map<std::string, const onnx::ValueInfoProto*> declared_;
  std::set<std::string> unknown_;  // values downstream of a node that failed
  std::vector<NodeProblem> problems_;

  const std::string& src() const { return im_.source; }

  void readOpsets() {
    for (const onnx::OperatorSetIdProto& o : model_.opset_import())
      opsets_[isDefaultDomain(o.domain()) ? "" : o.domain()] = int(std::min<int64_t>(o.version(), INT_MAX));
    // A model without the default domain (e.g. only ai.onnx.preview.training)
    // is read; each of its nodes then fails on its own as unsupported.
    auto it = opsets_.find("");
    if (it == opsets_.end()) return;
    if (it->second < kMinOpset || it->second > kMaxOpset)
      throw Error(src() + ": opset " + std::to_string(it->second) + " of the default ONNX domain is not supported (mgc supports " +
                  std::to_string(kMinOpset) + ".." + std::to_string(kMaxOpset) + ")");
  }

  void scanNames(const onnx::GraphProto& gp) {
    for (const auto& vi : gp.input()) im_.reserved.insert(vi.name());
    for (const auto& t : gp.initializer()) im_.reserved.insert(t.name());
    for (const auto& n : gp.node()) {
      for (const std::string& o : n.output()) im_.reserved.insert(o);
      for (const std::string& i : n.input())
        if (!i.empty()) ++im_.uses[i];
    }
    for (const auto& vi : gp.output()) {
      im_.graphOutputs.insert(vi.name());
      ++im_.uses[vi.name()];
    }
  }

  void bindInitializers(const onnx::GraphProto& gp) {
    if (gp.sparse_initializer_size() > 0) throw Error(src() + ": sparse initializers are not supported");
    if (!rawData_.empty() && rawData_.size() != size_t(gp.initializer_size()))
      throw Error(src() + ": internal error: the wire scan found " + std::to_string(rawData_.size()) +
                  " initializers, protobuf " + std::to_string(gp.initializer_size()));
    for (int k = 0; k < gp.initializer_size(); ++k) {
      const onnx::TensorProto& t = gp.initializer(k);
      std::string what = src() + ": initializer '" + t.name() + "'";
      if (im_.values.count(t.name())) throw Error(what + " is defined twice");
      const std::optional<std::string_view> raw = rawData_.empty() ? std::nullopt : rawData_[size_t(k)];
      ValueId v = im_.addConstant(t.name(), tensorFromProto(t, what, raw));
      im_.values[t.name()] = v;
      // Parameters (float, rank >= 1) stay unfolded in training imports.
      if (im_.keepParameters && isFloat(im_.g.type(v).dtype) && im_.g.type(v).rank() >= 1) {
        im_.keepUnfolded.insert(v);
        im_.g.parameterCandidates.insert(t.name());
      }
    }
  }

  void bindInputs(const onnx::GraphProto& gp) {
    for (const onnx::ValueInfoProto& vi : gp.input()) {
      if (im_.values.count(vi.name())) continue;  // shadowed by an initializer: a constant
      TensorType t = staticType(vi, src() + ": input '" + vi.name() + "'");
      im_.values[vi.name()] = im_.g.addInput(vi.name(), t);
    }
  }

  int opsetOf(const onnx::NodeProto& n) const {
    auto it = opsets_.find(isDefaultDomain(n.domain()) ? "" : n.domain());
    return it == opsets_.end() ? 0 : it->second;
  }

  void convertNode(const onnx::NodeProto& n) {
    NodeContext c(im_, n, opsetOf(n));
    try {
      const std::string domain = isDefaultDomain(n.domain()) ? "" : n.domain();
      if (c.opset == 0) c.unsupported("domain '" + (domain.empty() ? "ai.onnx" : domain) + "' is not imported by the model");
      auto conv = converters().find({domain, n.op_type()});
      if (conv == converters().end()) c.unsupported("op is not supported");
      // Downstream of a node that failed: its problem is already listed.
      for (const std::string& in : n.input())
        if (unknown_.count(in)) return markUnknown(n);
      for (const std::string& in : n.input())
        if (!in.empty() && !im_.values.count(in) && !im_.sequences.count(in))
          c.fail("input '" + in + "' is not defined before this node (graph not topologically sorted?)");
      conv->second(c);
    } catch (const NodeProblem& p) {
      problems_.push_back(p);
      placeholderOutputs(n);
    } catch (const std::exception& e) {  // from a shared helper (checkedNumel, tensorFromProto ...)
      problems_.emplace_back(src() + ": " + c.describe() + ": " + e.what(), e.what(), false);
      placeholderOutputs(n);
    }
  }

  void markUnknown(const onnx::NodeProto& n) {
    for (const std::string& o : n.output())
      if (!o.empty() && !im_.values.count(o)) unknown_.insert(o);
  }

  // Outputs of a failed node take their declared type (value_info) when it
  // is static, so that later nodes are still checked; otherwise they are
  // unknown and nodes using them are skipped.
  void placeholderOutputs(const onnx::NodeProto& n) {
    for (const std::string& o : n.output()) {
      if (o.empty() || im_.values.count(o) || im_.sequences.count(o)) continue;
      auto it = declared_.find(o);
      try {
        if (it == declared_.end()) throw Error("no declared type");
        im_.values[o] = im_.g.addValue(o, staticType(*it->second, o));
      } catch (const Error&) {
        unknown_.insert(o);
      }
    }
  }

  void reportProblems() {
    if (problems_.empty()) return;
    if (problems_.size() == 1) throw Error(problems_[0].what());
    std::string msg = src() + ": " + std::to_string(problems_.size()) + " nodes cannot be imported:";
    for (const NodeProblem& p : problems_) {
      std::string line = p.what();
      if (line.rfind(src() + ": ", 0) == 0) line = line.substr(src().size() + 2);
      msg += "\n  " + line;
    }
    throw Error(msg);
  }

  void bindOutputs(const onnx::GraphProto& gp) {
    for (const onnx::ValueInfoProto& vi : gp.output()) {
      auto it = im_.values.find(vi.name());
      if (it == im_.values.end() && im_.sequences.count(vi.name()))
        throw Error(src() + ": graph output '" + vi.name() + "' is a sequence; sequence outputs are not supported");
      if (it == im_.values.end()) throw Error(src() + ": graph output '" + vi.name() + "' is never computed");
      checkDeclaredType(vi, im_.g.type(it->second));
      im_.g.outputs.push_back(it->second);
    }
  }

  // The model's own declaration of an output must agree with what the
  // import computed (on every axis it states); a mismatch means the model
  // or the importer is wrong, and either must not pass silently.
  void checkDeclaredType(const onnx::ValueInfoProto& vi, const TensorType& got) {
    if (!vi.type().has_tensor_type()) return;
    const onnx::TypeProto::Tensor& tt = vi.type().tensor_type();
    DType dt;
    bool same = !dtypeFromOnnx(tt.elem_type(), &dt) || tt.elem_type() == 0 || dt == got.dtype;
    if (tt.has_shape()) {
      same = same && tt.shape().dim_size() == got.rank();
      for (int k = 0; same && k < tt.shape().dim_size(); ++k)
        if (tt.shape().dim(k).has_dim_value()) same = tt.shape().dim(k).dim_value() == got.shape[size_t(k)];
    }
    if (!same)
      throw Error(src() + ": graph output '" + vi.name() + "' is declared " + onnxTypeName(tt.elem_type()) +
                  declaredShape(tt) + " but imports as " + got.str());
  }
};

}  // namespace

Graph importOnnxBytes(const void* data, size_t size, const std::string& sourceName) {
  return importOnnxBytes(data, size, sourceName, ImportOptions{});
}

Graph importOnnxBytes(const void* data, size_t size, const std::string& sourceName, const ImportOptions& opts) {
  if (size > size_t(INT_MAX))
    throw Error(sourceName + ": file is larger than 2 GiB (ONNX external data is not supported)");
  // Protobuf parses the model without its weights; the weights are read
  // once, from `data`, into the graph's constants.
  SplitModel split;
  const std::string wireProblem = splitInitializerBytes(data, size, split);
  onnx::ModelProto model;
  bool parsed;
  if (wireProblem.empty() && !split.stripped.empty()) {
    parsed = model.ParseFromArray(split.stripped.data(), int(split.stripped.size()));
    std::string().swap(split.stripped);
  } else {
    // Nothing to take out, or bytes the scan does not accept: protobuf
    // reads them as they are (and fails on them as before).
    split.rawData.clear();
    parsed = model.ParseFromArray(data, int(size));
  }
  if (!parsed)
    throw Error(sourceName + ": not an ONNX model (protobuf parse failed" +
                (wireProblem.empty() ? std::string(": not ONNX, or truncated/corrupt") : " at " + wireProblem) + ")");
  if (!model.has_graph() || model.ir_version() <= 0)
    throw Error(sourceName + ": not an ONNX model (no graph or no ir_version)");
  return GraphImport(sourceName, model, split.rawData, opts).run();
}

Graph importOnnx(const std::string& path) { return importOnnx(path, ImportOptions{}); }

Graph importOnnx(const std::string& path, const ImportOptions& opts) {
  // Mapped, not read through a stream: a 600 MB model is then parsed
  // straight from the page cache, with no copy of the file in between.
  if (std::string problem = fileio::notAFile(path); !problem.empty()) throw Error(problem);
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw Error(path + ": cannot open file");
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw Error(path + ": not a regular file");
  }
  const size_t size = size_t(st.st_size);
  if (size == 0) {
    ::close(fd);
    return importOnnxBytes("", 0, path, opts);
  }
  void* map = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  ::close(fd);
  if (map == MAP_FAILED) throw Error(path + ": cannot map file: " + std::strerror(errno));
  ::madvise(map, size, MADV_SEQUENTIAL);
  struct Unmap {
    void* p;
    size_t n;
    ~Unmap() { ::munmap(p, n); }
  } unmap{map, size};
  return importOnnxBytes(map, size, path, opts);
}

}  // namespace mgc

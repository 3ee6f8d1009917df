// `import mgrt`: libmgrt from Python (pybind11; numpy arrays in and out).
// A thin layer over the C API in runtime/include/mgrt.h, nothing more: the
// same bundle checks, the same errors (raised as mgrt.Error with libmgrt's
// message), the same rules on who outlives whom, kept by references (a
// session keeps its model alive, a model its context).
//
//   m = mgrt.load("model.mgb")                 # its own context (default device)
//   s = m.session("infer")
//   out = s.run(x=np.ones((1, 3, 32, 32), np.float32))   # {"y": array}
//   m.state_names(); m.read_state(name); m.write_state(name, array)
//   m.save_state("ck.safetensors"); m.load_state("ck.safetensors")
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "runtime/include/mgrt.h"

namespace py = pybind11;

namespace {

struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

void check(mgrt_status s, const std::string& what) {
  if (s != MGRT_OK) throw Error(what + ": " + mgrt_status_string(s) + ": " + mgrt_last_error());
}

py::dtype numpyType(mgrt_dtype t) {
  switch (t) {
    case MGRT_F32: return py::dtype("float32");
    case MGRT_F16: return py::dtype("float16");
    case MGRT_F64: return py::dtype("float64");
    case MGRT_I64: return py::dtype("int64");
    case MGRT_I32: return py::dtype("int32");
    case MGRT_I8: return py::dtype("int8");
    case MGRT_U8: return py::dtype("uint8");
    case MGRT_BOOL: return py::dtype("bool");
    case MGRT_I16: return py::dtype("int16");
    case MGRT_U16: return py::dtype("uint16");
    case MGRT_U32: return py::dtype("uint32");
    case MGRT_U64: return py::dtype("uint64");
    case MGRT_BF16: break;  // numpy has no bfloat16
  }
  throw Error("tensor dtype bf16 has no numpy equivalent");
}

struct TensorInfo {
  std::string name;
  std::string dtype;
  std::vector<int64_t> shape;
};

TensorInfo describe(const mgrt_tensor_info& i) {
  return {i.name, py::str(numpyType(i.dtype)), std::vector<int64_t>(i.shape, i.shape + i.rank)};
}

// `value` as a C-contiguous array of the tensor's dtype and shape (converted
// like numpy.asarray(value, dtype)); a shape mismatch names the tensor.
py::array conform(const py::handle& value, const mgrt_tensor_info& info, const char* what) {
  py::array a = py::array::ensure(value);
  if (!a) throw py::type_error(std::string(what) + " '" + info.name + "' is not array-like");
  a = py::array::ensure(a.attr("astype")(numpyType(info.dtype), py::arg("copy") = false),
                        py::array::c_style | py::array::forcecast);
  std::vector<int64_t> want(info.shape, info.shape + info.rank), got(a.shape(), a.shape() + a.ndim());
  if (want != got) {
    auto str = [](const std::vector<int64_t>& s) {
      std::string r = "(";
      for (size_t k = 0; k < s.size(); ++k) r += (k ? ", " : "") + std::to_string(s[k]);
      return r + (s.size() == 1 ? ",)" : ")");
    };
    throw py::value_error(std::string(what) + " '" + info.name + "' has shape " + str(got) + ", the bundle expects " +
                          str(want));
  }
  return a;
}

class Context {
 public:
  Context(int device, bool validation) {
    mgrt_context_options o{device, validation ? 1 : 0, 0};
    check(mgrt_context_create(&o, &ctx_), "cannot open a Vulkan device");
  }
  ~Context() { mgrt_context_destroy(ctx_); }
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;
  mgrt_context* get() const { return ctx_; }
  std::string deviceName() const { return mgrt_context_device_name(ctx_); }
  int validationMessages() const { return mgrt_context_validation_messages(ctx_); }

 private:
  mgrt_context* ctx_ = nullptr;
};

class Model;

class Session {
 public:
  Session(std::shared_ptr<Model> model, mgrt_session* s) : model_(std::move(model)), s_(s) {}
  ~Session() { mgrt_session_destroy(s_); }
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  std::vector<TensorInfo> inputs() const {
    std::vector<TensorInfo> r;
    for (int i = 0; i < mgrt_session_input_count(s_); ++i) r.push_back(describe(info(i, false)));
    return r;
  }
  std::vector<TensorInfo> outputs() const {
    std::vector<TensorInfo> r;
    for (int i = 0; i < mgrt_session_output_count(s_); ++i) r.push_back(describe(info(i, true)));
    return r;
  }

  // Sets every input (all must be given), runs, returns every output.
  py::dict run(const py::dict& given) {
    const int n = mgrt_session_input_count(s_);
    size_t used = 0;
    for (int i = 0; i < n; ++i) {
      mgrt_tensor_info in = info(i, false);
      if (!given.contains(in.name))
        throw py::value_error(std::string("input '") + in.name + "' not given (the entry point takes " +
                              std::to_string(n) + " inputs)");
      py::array a = conform(given[in.name], in, "input");
      check(mgrt_session_set_input(s_, in.name, a.data(), size_t(a.nbytes())), std::string("input '") + in.name + "'");
      ++used;
    }
    if (used != given.size()) {
      for (auto item : given) {
        std::string name = py::str(item.first);
        bool known = false;
        for (int i = 0; i < n; ++i) known |= name == info(i, false).name;
        if (!known) throw py::value_error("the entry point has no input '" + name + "'");
      }
    }
    {
      py::gil_scoped_release unlocked;  // other Python threads run while the GPU does
      check(mgrt_session_run(s_), "run");
    }
    py::dict out;
    for (int i = 0; i < mgrt_session_output_count(s_); ++i) {
      mgrt_tensor_info o = info(i, true);
      py::array a(numpyType(o.dtype), std::vector<py::ssize_t>(o.shape, o.shape + o.rank));
      check(mgrt_session_get_output(s_, o.name, a.mutable_data(), size_t(a.nbytes())),
            std::string("output '") + o.name + "'");
      out[py::str(o.name)] = a;
    }
    return out;
  }
  double lastGpuMs() const { return mgrt_session_last_gpu_ms(s_); }

 private:
  mgrt_tensor_info info(int i, bool output) const {
    mgrt_tensor_info t{};
    check(output ? mgrt_session_output_info(s_, i, &t) : mgrt_session_input_info(s_, i, &t), "tensor info");
    return t;
  }
  std::shared_ptr<Model> model_;
  mgrt_session* s_;
};

class Model : public std::enable_shared_from_this<Model> {
 public:
  Model(std::shared_ptr<Context> ctx, const std::string& path) : ctx_(std::move(ctx)) {
    check(mgrt_model_load_file(ctx_->get(), path.c_str(), &m_), path);
  }
  ~Model() { mgrt_model_destroy(m_); }
  Model(const Model&) = delete;
  Model& operator=(const Model&) = delete;

  std::vector<std::string> entryPoints() const {
    std::vector<std::string> r;
    for (int i = 0; i < mgrt_model_entry_point_count(m_); ++i) r.push_back(mgrt_model_entry_point_name(m_, i));
    return r;
  }
  std::shared_ptr<Session> session(const std::string& entry) {
    mgrt_session* s = nullptr;
    check(mgrt_session_create(m_, entry.c_str(), &s), "entry point '" + entry + "'");
    return std::make_shared<Session>(shared_from_this(), s);
  }
  std::vector<TensorInfo> state() const {
    std::vector<TensorInfo> r;
    for (int i = 0; i < mgrt_model_state_count(m_); ++i) r.push_back(describe(stateInfo(i)));
    return r;
  }
  py::array readState(const std::string& name) {
    mgrt_tensor_info t = stateInfo(indexOf(name));
    py::array a(numpyType(t.dtype), std::vector<py::ssize_t>(t.shape, t.shape + t.rank));
    check(mgrt_model_read_state(m_, name.c_str(), a.mutable_data(), size_t(a.nbytes())), "state '" + name + "'");
    return a;
  }
  void writeState(const std::string& name, const py::handle& value) {
    py::array a = conform(value, stateInfo(indexOf(name)), "state");
    check(mgrt_model_write_state(m_, name.c_str(), a.data(), size_t(a.nbytes())), "state '" + name + "'");
  }
  void saveState(const std::string& path) { check(mgrt_model_save_state(m_, path.c_str()), path); }
  void loadState(const std::string& path) { check(mgrt_model_load_state(m_, path.c_str()), path); }
  std::shared_ptr<Context> context() const { return ctx_; }
  bool hasCheck() const { return mgrt_model_has_check(m_) != 0; }
  // The self-check (mgc compile --embed-check) on this device, as a dict.
  py::dict verify(py::object tolerance) {
    const double tol = tolerance.is_none() ? -1.0 : tolerance.cast<double>();
    std::vector<mgrt_check_output> outs(64);
    mgrt_verify_report r{};
    check(mgrt_model_verify(m_, tol, &r, outs.data(), int(outs.size())), "verify");
    if (size_t(r.outputs) > outs.size()) {  // rare: run it again with room for every output
      outs.resize(size_t(r.outputs));
      check(mgrt_model_verify(m_, tol, &r, outs.data(), int(outs.size())), "verify");
    }
    py::list outputs;
    for (int i = 0; i < r.outputs; ++i) {
      py::dict o;
      o["name"] = outs[size_t(i)].name;
      o["max_abs_error"] = outs[size_t(i)].max_abs_error;
      o["max_rel_error"] = outs[size_t(i)].max_rel_error;
      o["worst_error"] = outs[size_t(i)].worst_error;
      o["passed"] = outs[size_t(i)].passed != 0;
      outputs.append(o);
    }
    py::dict d;
    d["passed"] = r.passed != 0;
    d["entry_point"] = r.entry_point;
    d["tolerance"] = r.tolerance;
    d["worst_error"] = r.worst_error;
    d["failed_outputs"] = r.failed_outputs;
    d["outputs"] = outputs;
    return d;
  }

 private:
  mgrt_tensor_info stateInfo(int i) const {
    mgrt_tensor_info t{};
    check(mgrt_model_state_info(m_, i, &t), "state info");
    return t;
  }
  int indexOf(const std::string& name) const {
    for (int i = 0; i < mgrt_model_state_count(m_); ++i)
      if (name == stateInfo(i).name) return i;
    throw py::key_error("the model has no state tensor '" + name + "'");
  }
  std::shared_ptr<Context> ctx_;
  mgrt_model* m_ = nullptr;
};

}  // namespace

PYBIND11_MODULE(mgrt, mod) {
  mod.doc() = "libmgrt: run and train .mgb bundles on Vulkan (see docs/python.md)";
  py::register_exception<Error>(mod, "Error", PyExc_RuntimeError);

  py::class_<TensorInfo>(mod, "TensorInfo")
      .def_readonly("name", &TensorInfo::name)
      .def_readonly("dtype", &TensorInfo::dtype)
      .def_readonly("shape", &TensorInfo::shape)
      .def("__repr__", [](const TensorInfo& t) {
        std::string s;
        for (size_t k = 0; k < t.shape.size(); ++k) s += (k ? ", " : "") + std::to_string(t.shape[k]);
        return "TensorInfo('" + t.name + "', " + t.dtype + ", (" + s + (t.shape.size() == 1 ? ",))" : "))");
      });

  py::class_<Context, std::shared_ptr<Context>>(mod, "Context")
      .def(py::init<int, bool>(), py::arg("device") = -1, py::arg("validation") = false,
           "A Vulkan device (-1: MGRT_DEVICE, else the first GPU, else any).")
      .def_property_readonly("device_name", &Context::deviceName)
      .def_property_readonly("validation_messages", &Context::validationMessages)
      .def("load",
           [](std::shared_ptr<Context> self, const std::string& path) { return std::make_shared<Model>(self, path); },
           py::arg("path"), "Loads a .mgb bundle (verified before anything reaches the GPU).");

  py::class_<Model, std::shared_ptr<Model>>(mod, "Model")
      .def_property_readonly("entry_points", &Model::entryPoints)
      .def_property_readonly("state", &Model::state, "State tensors (training bundles, KV caches)")
      .def_property_readonly("context", &Model::context)
      .def("session", &Model::session, py::arg("entry_point") = "infer")
      .def("read_state", &Model::readState, py::arg("name"))
      .def("write_state", &Model::writeState, py::arg("name"), py::arg("value"))
      .def("save_state", &Model::saveState, py::arg("path"), "Every state tensor as one safetensors file (atomic)")
      .def("load_state", &Model::loadState, py::arg("path"))
      .def_property_readonly("has_check", &Model::hasCheck, "True if the bundle carries a self-check (--embed-check)")
      .def("verify", &Model::verify, py::arg("tolerance") = py::none(),
           "Runs the bundle's self-check on this device: {'passed', 'worst_error', 'tolerance', 'outputs': [...]}");

  py::class_<Session, std::shared_ptr<Session>>(mod, "Session")
      .def_property_readonly("inputs", &Session::inputs)
      .def_property_readonly("outputs", &Session::outputs)
      .def("run", [](Session& s, py::kwargs kw) { return s.run(kw); },
           "run(name=array, ...) -> {output name: array}; every input must be given")
      .def("run_dict", &Session::run, py::arg("inputs"), "run with a {name: array} dict (names that are not identifiers)")
      .def_property_readonly("last_gpu_ms", &Session::lastGpuMs);

  mod.def(
      "load",
      [](const std::string& path, int device, bool validation) {
        return std::make_shared<Model>(std::make_shared<Context>(device, validation), path);
      },
      py::arg("path"), py::arg("device") = -1, py::arg("validation") = false,
      "Loads a bundle on its own context.");
}

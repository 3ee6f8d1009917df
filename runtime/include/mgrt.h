/* libmgrt: load a .mgb bundle and run it on a GPU (Vulkan).
 *
 * Every fallible call returns an mgrt_status; MGRT_OK is 0. On failure the
 * message is available from mgrt_last_error() (per thread). The runtime
 * never aborts or exits on bad input: a bundle is untrusted data.
 *
 * Typical use:
 *   mgrt_context* ctx;  mgrt_context_create(&opts, &ctx);
 *   mgrt_model* m;      mgrt_model_load_file(ctx, "model.mgb", &m);
 *   mgrt_session* s;    mgrt_session_create(m, "infer", &s);
 *   mgrt_session_set_input(s, "x", data, bytes);
 *   mgrt_session_run(s);
 *   mgrt_session_get_output(s, "y", out, bytes);
 *
 * Threads (tested by tests/runtime/test_load.cpp under the validation
 * layer): sessions of one model on one context may run at the same time
 * from different threads, and models may be loaded and destroyed, sessions
 * created and destroyed, from different threads at once. One session is
 * used by one thread at a time; a model outlives its sessions and a context
 * its models. Sessions of a training model share its state: do not run two
 * of them at once, nor move state while one runs (see State below).
 */
#ifndef MGRT_H_
#define MGRT_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum mgrt_status {
  MGRT_OK = 0,
  MGRT_INVALID_ARGUMENT = 1, /* bad call: null pointer, unknown name, wrong size */
  MGRT_INVALID_BUNDLE = 2,   /* the bundle failed verification */
  MGRT_UNSUPPORTED = 3,      /* the device lacks something the bundle needs */
  MGRT_NO_DEVICE = 4,        /* no Vulkan loader or no usable device */
  MGRT_OUT_OF_MEMORY = 5,
  MGRT_DEVICE_ERROR = 6,     /* a Vulkan call failed (including device loss) */
  MGRT_IO_ERROR = 7
} mgrt_status;

/* Element types; new ones are only ever appended. BF16 is bfloat16 (the top
 * 16 bits of an f32), converted rounding to nearest even like F16. The
 * compiler keeps I16, U16, U32 and U64 tensors as 32-bit signed words on the
 * device: an input value outside [-2^31, 2^31) is refused with
 * MGRT_INVALID_ARGUMENT, and outputs wrap to their width like a C cast. */
typedef enum mgrt_dtype {
  MGRT_F32 = 0, MGRT_F16 = 1, MGRT_F64 = 2, MGRT_I64 = 3,
  MGRT_I32 = 4, MGRT_I8 = 5, MGRT_U8 = 6, MGRT_BOOL = 7,
  MGRT_BF16 = 8, MGRT_I16 = 9, MGRT_U16 = 10, MGRT_U32 = 11,
  MGRT_U64 = 12
} mgrt_dtype;

typedef struct mgrt_context mgrt_context;
typedef struct mgrt_model mgrt_model;
typedef struct mgrt_session mgrt_session;

/* Optional device features that kernel variants may need (bit flags; the
 * bundle format's Feature values). A bundle kernel carries variants in
 * order of preference, ending with a portable one; each model runs, per
 * kernel, the first variant whose features the context enabled. */
enum {
  MGRT_FEATURE_FLOAT16 = 1,     /* 16-bit float arithmetic */
  MGRT_FEATURE_INT8 = 2,        /* 8-bit integer arithmetic */
  MGRT_FEATURE_STORAGE16 = 4,   /* 16-bit storage buffer access */
  MGRT_FEATURE_STORAGE8 = 8,    /* 8-bit storage buffer access */
  MGRT_FEATURE_BFLOAT16 = 16,   /* bfloat16 type */
  MGRT_FEATURE_SUBGROUP = 32,   /* subgroup operations in compute */
  MGRT_FEATURE_COOPERATIVE_MATRIX_NV = 64,
  MGRT_FEATURE_COOPERATIVE_MATRIX_KHR = 128,
  MGRT_FEATURE_ATOMIC_FLOAT32_ADD = 256, /* atomicAdd on floats in storage buffers */
  /* In-stream waits: the device starts a command buffer's dispatches in
   * order, so a dispatch may wait on counters earlier ones increment
   * instead of a barrier (on for NVIDIA GPUs and CPU devices; no variant
   * requires it). */
  MGRT_FEATURE_STREAM_SYNC = 512,
  /* Not a kernel feature (no bundle names it): timeline semaphores, for
   * mgrt_session_vulkan_timeline / _wait (mgrt_vulkan.h). Enabled on
   * libmgrt's own device where Vulkan 1.2 offers timelineSemaphore. */
  MGRT_FEATURE_TIMELINE_SEMAPHORE = 1 << 16
};

typedef struct mgrt_context_options {
  int device_index;      /* -1: pick (env MGRT_DEVICE, else first discrete GPU, else any GPU, else CPU) */
  int enable_validation; /* enable VK_LAYER_KHRONOS_validation; messages become errors */
  uint32_t disable_features; /* MGRT_FEATURE_* bits not to enable even if the device has them
                                (0: enable all; e.g. to run the portable kernels) */
} mgrt_context_options;

typedef struct mgrt_tensor_info {
  const char* name;
  mgrt_dtype dtype;
  int rank;
  const int64_t* shape;
  size_t bytes; /* in the external dtype */
} mgrt_tensor_info;

const char* mgrt_last_error(void);
const char* mgrt_status_string(mgrt_status s);

mgrt_status mgrt_context_create(const mgrt_context_options* opts, mgrt_context** out);
void mgrt_context_destroy(mgrt_context* ctx);
/* Human-readable device name, e.g. "NVIDIA H200 (Vulkan 1.4)". */
const char* mgrt_context_device_name(const mgrt_context* ctx);
/* Number of validation-layer messages seen so far (0 unless enabled). */
int mgrt_context_validation_messages(const mgrt_context* ctx);
/* MGRT_FEATURE_* bits the device has and the context enabled (kernel
 * features and MGRT_FEATURE_TIMELINE_SEMAPHORE). */
uint32_t mgrt_context_features(const mgrt_context* ctx);

/* Pipeline cache: the driver's compiled kernels kept in a file between
 * launches, so that loading a model again on the same device and driver
 * skips most of the compile work. `path` is a file the app chooses (its
 * folder must exist; NULL turns the cache off). An existing file is read
 * now and handed to the driver only if its header names this device
 * (vendor and device id, pipelineCacheUUID, driver version) and its size
 * and checksum match; a missing file starts an empty cache, and a damaged
 * or foreign one is ignored (MGRT_PIPELINE_CACHE_IGNORED, the reason in
 * mgrt_context_pipeline_cache_note) and replaced at the next save. Every
 * mgrt_model_load that compiled new pipelines then writes the file
 * atomically (temporary file in the same folder + rename). Problems with
 * the file are never errors, only notes: the cache saves time, nothing
 * else. Call it before loading models, not concurrently with other calls
 * on ctx. Fails only if the driver cannot create a pipeline cache at all.
 * (A separate call, not a field of mgrt_context_options, so that apps
 * built against an older mgrt.h keep working.) */
mgrt_status mgrt_context_set_pipeline_cache(mgrt_context* ctx, const char* path);
enum {
  MGRT_PIPELINE_CACHE_OFF = 0,     /* no cache set */
  MGRT_PIPELINE_CACHE_EMPTY = 1,   /* no file yet: the cache started empty */
  MGRT_PIPELINE_CACHE_LOADED = 2,  /* the file's pipelines were given to the driver */
  MGRT_PIPELINE_CACHE_IGNORED = 3  /* the file was unusable: started empty (see the note) */
};
int mgrt_context_pipeline_cache_state(const mgrt_context* ctx);
/* Why the file was ignored or could not be saved, for a warning; "" when
 * there is nothing to report. Valid until the next call on ctx. */
const char* mgrt_context_pipeline_cache_note(const mgrt_context* ctx);

/* Verifies the whole bundle before creating any GPU object. The data is
 * not retained (the model keeps a copy of the manifest only; weights are
 * uploaded during the call): the caller may free it after the call. */
mgrt_status mgrt_model_load(mgrt_context* ctx, const void* data, size_t size, mgrt_model** out);
mgrt_status mgrt_model_load_file(mgrt_context* ctx, const char* path, mgrt_model** out);
void mgrt_model_destroy(mgrt_model* m);

/* Entry points of the model ("infer", "train_step", ...). The name is owned
 * by the model; NULL for an index out of range. */
int mgrt_model_entry_point_count(const mgrt_model* m);
const char* mgrt_model_entry_point_name(const mgrt_model* m, int i);

/* Kernels of the model and, for each, the tag of the variant this device
 * runs ("portable", "f16s", ...). Owned by the model; NULL out of range. */
int mgrt_model_kernel_count(const mgrt_model* m);
const char* mgrt_model_kernel_name(const mgrt_model* m, int i);
const char* mgrt_model_kernel_variant(const mgrt_model* m, int i);

/* State (training bundles): tensors that persist across runs and are shared
 * by every session of the model: weights, optimizer moments, BatchNorm
 * running statistics, the step counter ("opt.step"). A run of a session
 * reads and updates them on the device; these calls move them to and from
 * the host between runs (not while another thread runs a session of the
 * same model). Sizes are in the external dtype, as for inputs. */
int mgrt_model_state_count(const mgrt_model* m);
mgrt_status mgrt_model_state_info(const mgrt_model* m, int i, mgrt_tensor_info* out);
mgrt_status mgrt_model_read_state(mgrt_model* m, const char* name, void* data, size_t bytes);
mgrt_status mgrt_model_write_state(mgrt_model* m, const char* name, const void* data, size_t bytes);
/* Every state tensor as one safetensors file. The write is atomic: a
 * temporary file in the same folder, fsync, then rename over `path`; a crash
 * leaves the previous checkpoint intact. */
mgrt_status mgrt_model_save_state(mgrt_model* m, const char* path);
/* Loads a checkpoint written by mgrt_model_save_state (or any safetensors
 * file with exactly the model's state tensors, same dtypes and shapes).
 * Everything is checked before anything is written; a missing, extra,
 * mismatched or truncated tensor is refused with a message naming it
 * (MGRT_INVALID_ARGUMENT), and the state stays as it was. */
mgrt_status mgrt_model_load_state(mgrt_model* m, const char* path);

/* Self-check (bundles compiled with `mgc compile --embed-check`): the bundle
 * carries inputs for one entry point and the outputs the compiler's CPU
 * reference computed for them. mgrt_model_verify runs that entry point on
 * this device in a session of its own and compares: an element passes when
 * |got - want| <= tolerance * max(1, |want|); integer and bool outputs must
 * be equal; NaN matches only NaN, an infinity only the same infinity. The
 * check's entry point binds no state, so it neither reads nor changes the
 * model's state. A damaged check section is refused at load
 * (MGRT_INVALID_BUNDLE) like any other part of the bundle. */
typedef struct mgrt_check_output {
  const char* name;     /* the output, owned by the model */
  double max_abs_error; /* max |got - want| (inf on a NaN or infinity mismatch) */
  double max_rel_error; /* max |got - want| / |want| over elements with want != 0 */
  double worst_error;   /* max |got - want| / max(1, |want|), compared with the
                           tolerance; inf where an integer differs or a NaN or
                           infinity does not match */
  int passed;           /* worst_error <= tolerance */
} mgrt_check_output;

typedef struct mgrt_verify_report {
  const char* entry_point; /* the entry point the check ran, owned by the model */
  double tolerance;        /* the one applied: the bundle's, or the caller's */
  double worst_error;      /* the largest worst_error of any output */
  int outputs;             /* outputs compared */
  int failed_outputs;      /* outputs with worst_error > tolerance */
  int passed;              /* 1: every output passed */
} mgrt_verify_report;

/* 1 if the bundle carries a self-check, else 0. */
int mgrt_model_has_check(const mgrt_model* m);
/* Runs the self-check. tolerance < 0 applies the bundle's own; >= 0
 * replaces it. `outputs` (may be NULL) receives up to `capacity` per-output
 * results, in the entry point's output order (report->outputs of them in
 * all). MGRT_OK means the check ran, whatever its verdict (report->passed);
 * report and outputs are complete only then. A bundle without a check is
 * MGRT_INVALID_ARGUMENT; a failed run returns its status. The check runs in
 * a session of its own, so other sessions of the model may run meanwhile. */
mgrt_status mgrt_model_verify(mgrt_model* m, double tolerance, mgrt_verify_report* report,
                              mgrt_check_output* outputs, int capacity);

/* A session runs one entry point; it owns the activation arena and the
 * recorded command buffer. */
mgrt_status mgrt_session_create(mgrt_model* m, const char* entry_point, mgrt_session** out);
void mgrt_session_destroy(mgrt_session* s);
int mgrt_session_input_count(const mgrt_session* s);
int mgrt_session_output_count(const mgrt_session* s);
mgrt_status mgrt_session_input_info(const mgrt_session* s, int i, mgrt_tensor_info* out);
mgrt_status mgrt_session_output_info(const mgrt_session* s, int i, mgrt_tensor_info* out);
/* bytes must equal the tensor's size in its external dtype. */
mgrt_status mgrt_session_set_input(mgrt_session* s, const char* name, const void* data, size_t bytes);
mgrt_status mgrt_session_run(mgrt_session* s);
/* Asynchronous runs: mgrt_session_submit starts the recorded work and
 * returns at once; mgrt_session_wait blocks until it has finished (then
 * outputs are readable and last_gpu_ms is set). mgrt_session_run is the
 * two together. While a run is in flight, the session refuses set_input,
 * get_output and another submit (MGRT_INVALID_ARGUMENT: its staging memory
 * is the GPU's), the model's state calls must wait too (see State), and
 * mgrt_session_destroy waits for it. Several sessions may be in flight at
 * once. With Vulkan (mgrt_vulkan.h), mgrt_session_vulkan_fence gives the
 * fence of the last submission and mgrt_session_vulkan_timeline a timeline
 * semaphore value, to wait on with the app's own work. */
mgrt_status mgrt_session_submit(mgrt_session* s);
mgrt_status mgrt_session_wait(mgrt_session* s);
mgrt_status mgrt_session_get_output(mgrt_session* s, const char* name, void* data, size_t bytes);
/* GPU time of the last run in milliseconds (timestamp queries), or < 0 if unknown. */
double mgrt_session_last_gpu_ms(const mgrt_session* s);

/* Profiling: the GPU time of every dispatch of a run. Off by default, and
 * then costs nothing. Turning it on (or off) re-records the session's
 * commands, with a GPU timestamp after each dispatch; it fails with
 * MGRT_UNSUPPORTED, and the session stays as it was, if the device's
 * compute queue has no timestamps. Each run then replaces the records. */
mgrt_status mgrt_session_set_profiling(mgrt_session* s, int enable);

/* One dispatch of the last profiled run. Strings are owned by the model;
 * the estimates come from the compiler (0 / "" when the bundle has none). */
typedef struct mgrt_dispatch_profile {
  const char* kernel;   /* kernel family, e.g. "conv2d" */
  const char* variant;  /* the variant this device runs, e.g. "portable" */
  const char* node;     /* the IR node it computes */
  const char* shape;    /* the node's output, e.g. "f32[1,64,32,32]" */
  uint64_t start_ns;    /* GPU time since the run's first dispatch began */
  uint64_t end_ns;      /* >= start_ns; the next dispatch starts here */
  uint64_t flops;       /* estimated arithmetic operations */
  uint64_t bytes;       /* estimated bytes read + written */
  int barrier;          /* a full barrier waits for earlier dispatches first */
} mgrt_dispatch_profile;

/* Records of the last run, one per dispatch in execution order; 0 when
 * profiling is off or nothing has run since it was turned on. */
int mgrt_session_profile_count(const mgrt_session* s);
mgrt_status mgrt_session_profile_get(const mgrt_session* s, int i, mgrt_dispatch_profile* out);

#ifdef __cplusplus
}
#endif

#endif /* MGRT_H_ */

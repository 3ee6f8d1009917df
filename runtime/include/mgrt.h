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
 * 16 bits of an f32), converted rounding to nearest even like F16. */
typedef enum mgrt_dtype {
  MGRT_F32 = 0, MGRT_F16 = 1, MGRT_F64 = 2, MGRT_I64 = 3,
  MGRT_I32 = 4, MGRT_I8 = 5, MGRT_U8 = 6, MGRT_BOOL = 7,
  MGRT_BF16 = 8
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
  MGRT_FEATURE_COOPERATIVE_MATRIX_KHR = 128
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
/* MGRT_FEATURE_* bits the device has and the context enabled. */
uint32_t mgrt_context_features(const mgrt_context* ctx);

/* Verifies the whole bundle before creating any GPU object. The data is
 * copied; the caller may free it after the call. */
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
mgrt_status mgrt_session_get_output(mgrt_session* s, const char* name, void* data, size_t bytes);
/* GPU time of the last run in milliseconds (timestamp queries), or < 0 if unknown. */
double mgrt_session_last_gpu_ms(const mgrt_session* s);

#ifdef __cplusplus
}
#endif

#endif /* MGRT_H_ */

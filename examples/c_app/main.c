/* The smallest complete libmgrt app: load a bundle, fill its inputs, run the
 * "infer" entry point and print the outputs. Built against the installed SDK
 * (see README.md here and docs/sdk.md):
 *
 *   c_app MODEL.mgb [PIPELINE_CACHE_FILE]
 *
 * Float inputs get x[i] = 0.5 * i - 1, other inputs zeros (a real app would
 * pass its own data). With a cache file, compiled pipelines are kept between
 * launches. Exit status: 0 ok, 1 usage, 2 a libmgrt call failed. */
#include <mgrt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failed(const char* what, mgrt_status s) {
  fprintf(stderr, "c_app: %s: %s: %s\n", what, mgrt_status_string(s), mgrt_last_error());
  return 2;
}

static void printShape(const mgrt_tensor_info* t) {
  printf("[");
  for (int d = 0; d < t->rank; ++d) printf(d ? ",%lld" : "%lld", (long long)t->shape[d]);
  printf("]");
}

/* Fills and sets every input of the session. */
static int setInputs(mgrt_session* s) {
  for (int i = 0; i < mgrt_session_input_count(s); ++i) {
    mgrt_tensor_info t;
    mgrt_status st = mgrt_session_input_info(s, i, &t);
    if (st) return failed("input info", st);
    unsigned char* data = calloc(t.bytes ? t.bytes : 1, 1);
    if (!data) return failed("input buffer", MGRT_OUT_OF_MEMORY);
    if (t.dtype == MGRT_F32)
      for (size_t k = 0; k < t.bytes / 4; ++k) ((float*)data)[k] = 0.5f * (float)k - 1.0f;
    st = mgrt_session_set_input(s, t.name, data, t.bytes);
    free(data);
    if (st) return failed(t.name, st);
    printf("input %s ", t.name);
    printShape(&t);
    printf("\n");
  }
  return 0;
}

/* Prints every output: float outputs value by value (at most 16). */
static int printOutputs(mgrt_session* s) {
  for (int i = 0; i < mgrt_session_output_count(s); ++i) {
    mgrt_tensor_info t;
    mgrt_status st = mgrt_session_output_info(s, i, &t);
    if (st) return failed("output info", st);
    unsigned char* data = malloc(t.bytes ? t.bytes : 1);
    if (!data) return failed("output buffer", MGRT_OUT_OF_MEMORY);
    st = mgrt_session_get_output(s, t.name, data, t.bytes);
    if (st) {
      free(data);
      return failed(t.name, st);
    }
    printf("output %s ", t.name);
    printShape(&t);
    if (t.dtype == MGRT_F32) {
      printf(" =");
      for (size_t k = 0; k < t.bytes / 4 && k < 16; ++k) printf(" %g", ((const float*)data)[k]);
    } else {
      printf(" (%zu bytes)", t.bytes);
    }
    printf("\n");
    free(data);
  }
  return 0;
}

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3) {
    fprintf(stderr, "usage: c_app MODEL.mgb [PIPELINE_CACHE_FILE]\n");
    return 1;
  }
  mgrt_context_options opts;
  memset(&opts, 0, sizeof opts);
  opts.device_index = -1; /* env MGRT_DEVICE, else the first discrete GPU, else any */
  mgrt_context* ctx = NULL;
  mgrt_model* model = NULL;
  mgrt_session* session = NULL;
  int rc = 0;
  mgrt_status st = mgrt_context_create(&opts, &ctx);
  if (st) return failed("no Vulkan device", st);
  printf("device: %s\n", mgrt_context_device_name(ctx));

  if (argc == 3) {
    st = mgrt_context_set_pipeline_cache(ctx, argv[2]);
    if (st) {
      rc = failed("pipeline cache", st);
      goto done;
    }
    if (*mgrt_context_pipeline_cache_note(ctx)) fprintf(stderr, "c_app: %s\n", mgrt_context_pipeline_cache_note(ctx));
  }
  if ((st = mgrt_model_load_file(ctx, argv[1], &model))) {
    rc = failed("loading the model", st);
    goto done;
  }
  if ((st = mgrt_session_create(model, "infer", &session))) {
    rc = failed("entry point 'infer'", st);
    goto done;
  }
  if ((rc = setInputs(session))) goto done;
  if ((st = mgrt_session_run(session))) {
    rc = failed("run", st);
    goto done;
  }
  rc = printOutputs(session);

done:
  mgrt_session_destroy(session);
  mgrt_model_destroy(model);
  mgrt_context_destroy(ctx);
  return rc;
}

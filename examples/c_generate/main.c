/* Greedy text generation through libmgrt alone: a generation bundle
 * (`mgc compile FOLDER --max-seq N`, docs/llm.md) holds two entry points
 * over one KV cache kept as model state, `prefill` (a chunk of T tokens)
 * and `decode` (one token). Built against the installed SDK like c_app:
 *
 *   c_generate GEN.mgb PROMPT_IDS NEW_TOKENS      e.g. c_generate gen.mgb 1,5,9 16
 *
 * Prints the generated ids, comma-separated, on the last line (as
 * `mgc generate --temperature 0 --print-ids`). Tokenizing text is the
 * app's business (or `mgc tokenize`): libmgrt stays a runtime.
 * Exit status: 0 ok, 1 usage, 2 a libmgrt call failed. */
#include <mgrt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failed(const char* what, mgrt_status s) {
  fprintf(stderr, "c_generate: %s: %s: %s\n", what, mgrt_status_string(s), mgrt_last_error());
  return 2;
}

/* "1,5,9" → ids; returns the count, or -1 on a malformed list. */
static int parseIds(const char* text, int64_t* ids, int cap) {
  int n = 0;
  while (*text) {
    char* end = NULL;
    long long v = strtoll(text, &end, 10);
    if (end == text || v < 0 || n == cap || (*end && *end != ',')) return -1;
    ids[n++] = (int64_t)v;
    text = *end ? end + 1 : end;
  }
  return n;
}

/* T of the session's input `input_ids` [1, T] (0 when absent). */
static int64_t chunkTokens(mgrt_session* s) {
  for (int i = 0; i < mgrt_session_input_count(s); ++i) {
    mgrt_tensor_info t;
    if (mgrt_session_input_info(s, i, &t) == MGRT_OK && strcmp(t.name, "input_ids") == 0 && t.rank == 2)
      return t.shape[1];
  }
  return 0;
}

static int64_t argmax(const float* v, int64_t n) {
  int64_t best = 0;
  for (int64_t i = 1; i < n; ++i)
    if (v[i] > v[best]) best = i;
  return best;
}

/* One run of `s` on `count` ids at `position`; the logits of row `row`
 * (vocab floats) into `out`. */
static int step(mgrt_session* s, const int64_t* ids, int64_t count, int64_t position, int64_t row, float* logits,
                size_t logitsBytes, float* out, int64_t vocab) {
  mgrt_status st;
  if ((st = mgrt_session_set_input(s, "input_ids", ids, (size_t)count * sizeof(int64_t)))) return failed("input_ids", st);
  if ((st = mgrt_session_set_input(s, "position", &position, sizeof position))) return failed("position", st);
  if ((st = mgrt_session_run(s))) return failed("run", st);
  if ((st = mgrt_session_get_output(s, "logits", logits, logitsBytes))) return failed("logits", st);
  memcpy(out, logits + row * vocab, (size_t)vocab * sizeof(float));
  return 0;
}

int main(int argc, char** argv) {
  enum { kMaxIds = 4096 };
  static int64_t prompt[kMaxIds];
  int promptLen = argc == 4 ? parseIds(argv[2], prompt, kMaxIds) : -1;
  long newTokens = argc == 4 ? strtol(argv[3], NULL, 10) : 0;
  if (promptLen < 1 || newTokens < 1) {
    fprintf(stderr, "usage: c_generate GEN.mgb PROMPT_IDS NEW_TOKENS   (PROMPT_IDS like 1,5,9)\n");
    return 1;
  }
  mgrt_context_options opts;
  memset(&opts, 0, sizeof opts);
  opts.device_index = -1;
  mgrt_context* ctx = NULL;
  mgrt_model* model = NULL;
  mgrt_session *prefill = NULL, *decode = NULL;
  float *logits = NULL, *last = NULL;
  int64_t* chunk = NULL;
  int rc = 0;
  mgrt_status st = mgrt_context_create(&opts, &ctx);
  if (st) return failed("no Vulkan device", st);
  if ((st = mgrt_model_load_file(ctx, argv[1], &model))) {
    rc = failed("loading the model", st);
    goto done;
  }
  if ((st = mgrt_session_create(model, "prefill", &prefill)) || (st = mgrt_session_create(model, "decode", &decode))) {
    rc = failed("a generation bundle has entry points prefill and decode", st);
    goto done;
  }
  mgrt_tensor_info out;
  if ((st = mgrt_session_output_info(prefill, 0, &out))) {
    rc = failed("output info", st);
    goto done;
  }
  const int64_t T = chunkTokens(prefill), vocab = out.shape[out.rank - 1];
  /* The cache holds kv.0.k [1, kv_heads, max_seq, head_dim]: its axis 2. */
  int64_t maxSeq = 0;
  for (int i = 0; i < mgrt_model_state_count(model); ++i) {
    mgrt_tensor_info t;
    if (mgrt_model_state_info(model, i, &t) == MGRT_OK && strncmp(t.name, "kv.", 3) == 0 && t.rank == 4) maxSeq = t.shape[2];
  }
  if (T < 1 || maxSeq < 1 || promptLen + newTokens > maxSeq) {
    fprintf(stderr, "c_generate: %d prompt + %ld new tokens need more than the bundle's %lld positions\n", promptLen,
            newTokens, (long long)maxSeq);
    rc = 1;
    goto done;
  }
  logits = malloc(out.bytes);
  last = malloc((size_t)vocab * sizeof(float));
  chunk = calloc((size_t)T, sizeof(int64_t));
  if (!logits || !last || !chunk) {
    rc = failed("buffers", MGRT_OUT_OF_MEMORY);
    goto done;
  }
  /* The prompt in chunks of T at positions 0, T, 2T... (the last one padded:
   * the mask hides the padding, and the next write overwrites it). */
  for (int64_t start = 0; start < promptLen; start += T) {
    int64_t n = promptLen - start < T ? promptLen - start : T;
    memset(chunk, 0, (size_t)T * sizeof(int64_t));
    memcpy(chunk, prompt + start, (size_t)n * sizeof(int64_t));
    if ((rc = step(prefill, chunk, T, start, n - 1, logits, out.bytes, last, vocab))) goto done;
  }
  for (long k = 0; k < newTokens; ++k) {
    int64_t token = argmax(last, vocab);
    printf(k ? ",%lld" : "%lld", (long long)token);
    if (k + 1 < newTokens && (rc = step(decode, &token, 1, promptLen + k, 0, logits, (size_t)vocab * sizeof(float),
                                        last, vocab)))
      goto done;
  }
  printf("\n");

done:
  free(chunk);
  free(last);
  free(logits);
  mgrt_session_destroy(decode);
  mgrt_session_destroy(prefill);
  mgrt_model_destroy(model);
  mgrt_context_destroy(ctx);
  return rc;
}

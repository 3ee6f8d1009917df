/* libsentencepiece behind a small C ABI: the shared library
 * libmgc_sentencepiece.so, which compiler/tokenizer/sentencepiece_library.cpp
 * loads with dlmopen into a link-map namespace of its own.
 *
 * Why not link libsentencepiece into mgc: Debian's libsentencepiece.so.0
 * carries its own copy of protobuf-lite 3.14 and exports its symbols (1296 of
 * them clash with libprotobuf.so.32, the 3.21 that the ONNX importer needs).
 * In one namespace one copy interposes the other: a process linking both
 * dies before main (protobuf's version check, or a segfault, depending on
 * link order). In a namespace of its own, libsentencepiece binds to its own
 * copy, and mgc's libprotobuf is untouched.
 *
 * Across the boundary go only C types: the two namespaces have separate
 * C++ runtimes and heaps, so no std:: object, exception or allocation
 * crosses it. Results come back through sinks, called once with memory the
 * library owns, which the caller copies. */
#ifndef MGC_SENTENCEPIECE_H
#define MGC_SENTENCEPIECE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped whenever a signature below changes; the loader refuses a library
 * with another value. */
#define MGC_SPM_ABI_VERSION 1

typedef struct mgc_spm mgc_spm;
typedef void (*mgc_spm_ids_sink)(void* ctx, const int32_t* ids, size_t count);
typedef void (*mgc_spm_text_sink)(void* ctx, const char* text, size_t size);

/* mgc_spm_piece_kind bits (sentencepiece's piece types). */
enum { MGC_SPM_CONTROL = 1, MGC_SPM_UNKNOWN = 2, MGC_SPM_BYTE = 4, MGC_SPM_UNUSED = 8 };

int mgc_spm_abi_version(void);
/* A serialized ModelProto (a tokenizer.model file's bytes). Null on failure,
 * with sentencepiece's reason in error[0..error_size) (NUL-terminated). */
mgc_spm* mgc_spm_load(const void* data, size_t size, char* error, size_t error_size);
void mgc_spm_free(mgc_spm* m);
int32_t mgc_spm_piece_count(const mgc_spm* m);
int32_t mgc_spm_bos_id(const mgc_spm* m); /* -1: the model has none */
/* id in [0, piece_count): the piece, valid while m lives, and its kind. */
const char* mgc_spm_piece(const mgc_spm* m, int32_t id, size_t* size);
uint32_t mgc_spm_piece_kind(const mgc_spm* m, int32_t id);
/* 0: the sink got the result once; else nonzero, with the reason in error. */
int mgc_spm_encode(const mgc_spm* m, const char* text, size_t size, mgc_spm_ids_sink sink, void* ctx, char* error,
                   size_t error_size);
/* ids must be in [0, piece_count). */
int mgc_spm_decode(const mgc_spm* m, const int32_t* ids, size_t count, mgc_spm_text_sink sink, void* ctx, char* error,
                   size_t error_size);

#ifdef __cplusplus
}
#endif

#endif /* MGC_SENTENCEPIECE_H */

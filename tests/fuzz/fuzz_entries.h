// One entry point per untrusted-input reader, shared by the libFuzzer
// targets (fuzz_<name>.cpp) and the regression test that replays saved
// inputs in the normal build. Each returns normally for any input the
// reader handles correctly (accepted, or refused with its documented error)
// and lets anything else escape: a crash, a sanitizer report, or an
// exception of a type the reader promises never to throw.
#pragma once

#include <cstddef>
#include <cstdint>

namespace mgc_fuzz {

// libmgrt: header, checksum, FlatBuffers, semantics, device limits, then the
// host half of model load and session creation (no VkDevice).
void bundle(const uint8_t* data, size_t size);
// compiler/onnx: importOnnxBytes; only mgc::Error may escape the importer.
void onnx(const uint8_t* data, size_t size);
// compiler/ir: parseGraph; only mgc::Error may escape the parser.
void ir(const uint8_t* data, size_t size);
// formats/npy: read, and for an accepted array, write + read it back.
void npy(const uint8_t* data, size_t size);
// formats/safetensors: parseHeader, every accepted range inside the file,
// and for an accepted file, serialize + parse it back.
void safetensors(const uint8_t* data, size_t size);
// libmgrt's pipeline cache file check (runtime/vulkan/pipeline_cache_file.h),
// on the raw input and on the input sealed as a valid file's payload.
void pipelineCache(const uint8_t* data, size_t size);

// compiler/hf: the input as config.json (parseConfig) and as
// model.safetensors.index.json (parseShardIndex); only mgc::Error may
// escape, and an accepted config is self-consistent.
void hfJson(const uint8_t* data, size_t size);

// compiler/tokenizer: the input as tokenizer.json; when it loads, a fixed
// text (ASCII, CJK, emoji, an added-token-like "<|x|>") encoded, decoded,
// and streamed id by id. Only mgc::Error may escape.
void tokenizer(const uint8_t* data, size_t size);
// compiler/tokenizer: the input as a SentencePiece tokenizer.model (through
// libmgc_sentencepiece.so); when it loads, the same text encoded with and
// without BOS, decoded with and without special tokens, and streamed id by
// id. Only mgc::Error may escape.
void sentencepiece(const uint8_t* data, size_t size);

// formats/idx: parse (from bytes), and for an accepted rank-1 array, the
// dataset step that turns it into labels (makeDataset).
void idx(const uint8_t* data, size_t size);
// compiler/cli: `mgc run` / `mgc train` argument parsing and what sits
// behind it without a device: NAME=FILE specs, the .npy (or IDX) file they
// name checked against a fixed set of bundle inputs. Input: one selector
// byte (bit 0: run or train), then argv as '\n'-separated words, then an
// optional '\0' and the bytes of every named file.
void cli(const uint8_t* data, size_t size);

}  // namespace mgc_fuzz

// What mgc checks in a tokenizer.model before libsentencepiece reads it.
// sentencepiece trusts the normalizer's precompiled character map (a
// Darts-clone double-array trie and a pool of NUL-terminated strings) that
// the file carries: a crafted one makes its encoder (and the self-test that
// runs while loading) read outside the map. This walks the ModelProto's
// wire format to every normalizer_spec and denormalizer_spec
// precompiled_charsmap and checks that each lookup sentencepiece can make,
// for any input bytes, stays inside the map:
//
//   blob = u32 trie size | trie (u32 units) | strings
//   every trie state reachable through matching labels: all 256 next
//   units inside the trie; every leaf value an offset into the strings
//   whose string ends (NUL) inside them.
//
// The rest of the file is left to sentencepiece (which builds its own
// tries from the pieces).
#pragma once

#include <string>

namespace mgc::tok {

// Throws mgc::Error starting with `name` and saying what is wrong.
void checkSentencePieceModel(const std::string& bytes, const std::string& name);

}  // namespace mgc::tok

"""Small SentencePiece tokenizer.model files for the tests, trained with
python3-sentencepiece (Debian's, the reference of sentencepiece_reference.py)
on the strings of corpus.jsonl, seeded and on one thread so a rerun gives
the same bytes:

  bpe_byte_fallback.model  BPE with Llama 2's trainer options: byte
                           fallback, split digits, whitespace-only pieces,
                           identity normalization, extra whitespace kept
  unigram.model            unigram, sentencepiece's defaults but identity
                           normalization (nmt_nfkc's table would add 237 KB):
                           unknown characters become <unk>, whitespace runs
                           are squeezed
  bpe_small.model          BPE of 250 pieces from the ASCII strings, no
                           byte fallback: fits the vocab_size 256 of
                           tests/compiler/hf's checkpoints

Regenerate (the files are committed) with:

    /usr/bin/python3 tests/compiler/tokenizer/make_sentencepiece.py
"""
import io
import json
import os

import sentencepiece as spm

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "sentencepiece")

COMMON = dict(hard_vocab_limit=False, num_threads=1, minloglevel=2,
              normalization_rule_name="identity")
MODELS = {
    "bpe_byte_fallback": dict(model_type="bpe", vocab_size=600, character_coverage=0.98, byte_fallback=True, split_digits=True,
                              allow_whitespace_only_pieces=True, remove_extra_whitespaces=False),
    "unigram": dict(model_type="unigram", vocab_size=400, character_coverage=0.98),
    # At most 256 pieces: hf_generate.sh compiles it with the test
    # checkpoints (vocab_size 256); trained on the ASCII strings only, so
    # that the characters fit (coverage must be at least 0.98).
    "bpe_small": dict(model_type="bpe", vocab_size=250, character_coverage=0.98, ascii_only=True),
}


def main():
    with open(os.path.join(HERE, "corpus.jsonl"), encoding="utf-8") as f:
        strings = [json.loads(line) for line in f if line.strip()]
    # One sentence per line: sentencepiece reads lines.
    sentences = [s.replace("\r", " ").replace("\n", " ") for s in strings if s.strip()]
    os.makedirs(OUT, exist_ok=True)
    for name, options in MODELS.items():
        options = dict(options)
        text = [s for s in sentences if s.isascii()] if options.pop("ascii_only", False) else sentences
        spm.set_random_generator_seed(1)
        model = io.BytesIO()
        spm.SentencePieceTrainer.train(sentence_iterator=iter(text), model_writer=model, **COMMON, **options)
        with open(os.path.join(OUT, name + ".model"), "wb") as f:
            f.write(model.getvalue())
        print(f"{name}.model: {len(model.getvalue())} bytes")


if __name__ == "__main__":
    main()

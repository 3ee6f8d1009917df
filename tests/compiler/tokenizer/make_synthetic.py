"""Small hand-made tokenizer.json files for the components the three real
vocabularies of the reference test do not use: Metaspace, Digits, Split
with every behavior and invert, string patterns, ByteLevel with its own
regex and prefix space, unk / fuse_unk, added tokens with lstrip / rstrip /
single_word / normalized, TemplateProcessing after ByteLevel, Strip.
reference.mjs compares mgc with the tokenizers crate on each, as on the
real ones. Regenerate (the files are committed) with:

    python3 tests/compiler/tokenizer/make_synthetic.py
"""
import json
import os

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "synthetic")


def bpe(vocab, words, merge_form="string", **kw):
    """A BPE model over `vocab` (list of base symbols) with the merges that
    build each of `words` left to right."""
    ids = {t: i for i, t in enumerate(vocab)}
    merges = []
    for w in words:
        cur = w[0]
        for ch in w[1:]:
            pair = (cur, ch)
            if list(pair) not in merges:
                merges.append(list(pair))
            cur += ch
            ids.setdefault(cur, len(ids))
    if merge_form == "string":
        merges = [" ".join(m) for m in merges]
    m = {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": None,
         "end_of_word_suffix": None, "fuse_unk": False, "byte_fallback": False, "vocab": ids, "merges": merges}
    m.update(kw)
    return m


def added(id, content, special, **kw):
    t = {"id": id, "content": content, "single_word": False, "lstrip": False, "rstrip": False,
         "normalized": not special, "special": special}
    t.update(kw)
    return t


def metaspace_digits():
    base = ["<unk>", "<s>", "\u2581"] + [chr(c) for c in range(ord("a"), ord("z") + 1)] + \
           [chr(c) for c in range(ord("A"), ord("Z") + 1)] + list("0123456789.,!?'-")
    model = bpe(base, ["\u2581the", "\u2581hello", "ing", "\u2581world", "\u2581a", "er", "\u2581I", "'s"],
                merge_form="array", unk_token="<unk>", fuse_unk=True)
    n = len(model["vocab"])
    return {
        "version": "1.0", "truncation": None, "padding": None,
        "added_tokens": [added(0, "<unk>", True), added(1, "<s>", True), added(n, "[MASK]", True, lstrip=True, rstrip=True),
                         added(n + 1, "<w>", False, single_word=True, normalized=False), added(n + 2, "cat", False)],
        "normalizer": {"type": "Replace", "pattern": {"Regex": "\\s{2,}"}, "content": " "},
        "pre_tokenizer": {"type": "Sequence", "pretokenizers": [
            {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "first", "split": True},
            {"type": "Digits", "individual_digits": True}]},
        "model": model,
        "post_processor": {"type": "TemplateProcessing",
                           "single": [{"SpecialToken": {"id": "<s>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}],
                           "pair": [{"Sequence": {"id": "A", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 1}}],
                           "special_tokens": {"<s>": {"id": "<s>", "ids": [1], "tokens": ["<s>"]}}},
        "decoder": {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "first", "split": True},
    }


def byte_alphabet():
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(0xA1, 0xAD)) + list(range(0xAE, 0x100))
    cs, n = bs[:], 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return [chr(c) for c in cs]


def split_behaviors():
    model = bpe(byte_alphabet(), ["\u0120the", "\u0120and", "ing", "\u0120hello", "er", "th", "\u0120\u0120", "12"])
    n = len(model["vocab"])
    return {
        "version": "1.0", "truncation": None, "padding": None,
        "added_tokens": [added(n, "<|bos|>", True), added(n + 1, "<|sep|>", True, lstrip=True)],
        "normalizer": {"type": "Sequence", "normalizers": [{"type": "NFC"},
                                                           {"type": "Replace", "pattern": {"String": "``"}, "content": "\""}]},
        "pre_tokenizer": {"type": "Sequence", "pretokenizers": [
            {"type": "Split", "pattern": {"String": "-"}, "behavior": "MergedWithPrevious", "invert": False},
            {"type": "Split", "pattern": {"Regex": "\\d"}, "behavior": "Contiguous", "invert": False},
            {"type": "Split", "pattern": {"Regex": "[aeiou]"}, "behavior": "MergedWithNext", "invert": True},
            {"type": "Split", "pattern": {"String": "."}, "behavior": "Removed", "invert": False},
            {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True}]},
        "model": model,
        "post_processor": {"type": "Sequence", "processors": [
            {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": False, "use_regex": True},
            {"type": "TemplateProcessing",
             "single": [{"SpecialToken": {"id": "<|bos|>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}],
             "pair": [{"Sequence": {"id": "A", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 1}}],
             "special_tokens": {"<|bos|>": {"id": "<|bos|>", "ids": [n], "tokens": ["<|bos|>"]}}}]},
        "decoder": {"type": "Sequence", "decoders": [{"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True,
                                                      "use_regex": True},
                                                     {"type": "Strip", "content": " ", "start": 1, "stop": 0}]},
    }


def main():
    os.makedirs(HERE, exist_ok=True)
    for name, make in (("metaspace_digits", metaspace_digits), ("split_behaviors", split_behaviors)):
        with open(os.path.join(HERE, name + ".json"), "w") as f:
            json.dump(make(), f, ensure_ascii=False, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()

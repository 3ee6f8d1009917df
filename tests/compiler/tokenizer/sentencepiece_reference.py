"""mgc's SentencePiece tokenizer against the reference: python3-sentencepiece
(the same libsentencepiece, through its own Python binding). For each
tokenizer.model and each string of the corpus (JSON lines), with and
without BOS:
  - the ids of `mgc tokenize MODEL --batch` equal [BOS] + sentencepiece's
    encode (BOS when adding special tokens and the model has one),
  - mgc's decode of those ids equals the reference's: with special tokens
    skipped, sentencepiece's decode of the ids that are not control or
    <unk>; without, each control piece as its text between the decodes of
    the ids around it (sentencepiece_model.h),
  - the text mgc's stream decoder prints, one id at a time, equals that
    decode wherever it ends in a complete character,
  - decode(encode(s)) == s for every string, for each model named with
    --round-trip (byte fallback, no normalization: sentencepiece loses
    nothing).
Fails, saying so, when python3-sentencepiece is missing (tools/setup.sh
installs it). Usage:
  sentencepiece_reference.py MGC CORPUS.jsonl [--round-trip] MODEL [[--round-trip] MODEL...]
"""
import json
import os
import subprocess
import sys

try:
    import sentencepiece as spm
except ImportError:
    print("sentencepiece_reference.py: python3-sentencepiece is not installed (tools/setup.sh installs it)")
    sys.exit(1)


def reference_decode(sp, ids, skip):
    n = sp.get_piece_size()
    ids = [i for i in ids if 0 <= i < n]
    if skip:
        return sp.decode([i for i in ids if not (sp.is_control(i) or sp.is_unknown(i))])
    text, run = "", []
    for i in ids:
        if sp.is_control(i):
            text += sp.decode(run) + sp.id_to_piece(i)
            run = []
        else:
            run.append(i)
    return text + sp.decode(run)


def main():
    if len(sys.argv) < 4:
        print(__doc__)
        return 2
    mgc, corpus_path = sys.argv[1], sys.argv[2]
    models, round_trip = [], False
    for a in sys.argv[3:]:
        if a == "--round-trip":
            round_trip = True
            continue
        models.append((a, round_trip))
        round_trip = False
    with open(corpus_path, encoding="utf-8") as f:
        corpus = [json.loads(line) for line in f if line.strip()]
    passed = failed = 0

    def check(model, what, ok, detail):
        nonlocal passed, failed
        if ok:
            passed += 1
            return
        failed += 1
        if failed <= 20:
            print(f"FAIL {os.path.basename(model)}: {what}: {detail}")

    for model, must_round_trip in models:
        if not os.path.isfile(model):
            print(f"sentencepiece_reference.py: {model}: no such file")
            return 1
        sp = spm.SentencePieceProcessor(model_file=model)
        tokens = byte_tokens = round_trips = 0
        for add_special in (True, False):
            args = [mgc, "tokenize", model, "--batch", corpus_path] + ([] if add_special else ["--no-special-tokens"])
            out = subprocess.run(args, capture_output=True, check=False)
            if out.returncode != 0:
                check(model, "mgc tokenize --batch", False, f"exit {out.returncode}: {out.stderr.decode()}")
                continue
            lines = [line for line in out.stdout.decode("utf-8").split("\n") if line]
            if len(lines) != len(corpus):
                check(model, "batch", False, f"{len(lines)} output lines for {len(corpus)} strings")
                continue
            for s, line in zip(corpus, lines):
                got = json.loads(line)
                want = ([sp.bos_id()] if add_special and sp.bos_id() >= 0 else []) + sp.encode(s)
                label = ("" if add_special else "(no BOS) ") + json.dumps(s)[:60]
                check(model, label, got["ids"] == want, f"ids {got['ids']} != reference {want}")
                tokens += len(want)
                byte_tokens += sum(1 for i in want if sp.is_byte(i))
                dec, dec_skip = reference_decode(sp, want, False), reference_decode(sp, want, True)
                check(model, label, got["decoded"] == dec, f"decode {got['decoded']!r} != {dec!r}")
                check(model, label, got["decoded_skip"] == dec_skip,
                      f"decode (skip special) {got['decoded_skip']!r} != {dec_skip!r}")
                if not dec_skip.endswith("\ufffd"):
                    check(model, label, got["streamed"] == dec_skip, f"streamed {got['streamed']!r} != {dec_skip!r}")
                if add_special:
                    round_trips += got["decoded_skip"] == s
                    if must_round_trip:
                        check(model, label, got["decoded_skip"] == s, f"round trip {got['decoded_skip']!r} != {s!r}")
        print(f"{model}: {len(corpus)} strings, {tokens} tokens ({byte_tokens} byte fallback), "
              f"{round_trips} round-trip exactly")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed or not passed else 0


if __name__ == "__main__":
    sys.exit(main())

// mgc's tokenizer against the reference: the Hugging Face tokenizers crate
// (Rust, what transformers' fast tokenizers run) through its Node binding,
// the npm package `tokenizers`. For each tokenizer.json and each string of
// the corpus (JSON lines), with and without the special tokens the
// post-processor adds:
//   - the ids of `mgc tokenize --batch` equal the reference's encode,
//   - mgc's decode of those ids equals the reference's decode, with and
//     without special tokens (so decode(encode(s)) round-trips exactly where
//     the reference's does),
//   - the text mgc's stream decoder prints, one id at a time, equals the
//     full decode wherever that ends in a complete character.
// Usage: node reference.mjs MGC NPM_PREFIX CORPUS.jsonl TOKENIZER.json...
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

const [mgc, npmPrefix, corpusPath, ...tokenizers] = process.argv.slice(2);
if (!tokenizers.length) {
  console.error("usage: node reference.mjs MGC NPM_PREFIX CORPUS.jsonl TOKENIZER.json...");
  process.exit(2);
}
if (!existsSync(path.join(npmPrefix, "node_modules", "tokenizers", "package.json"))) {
  console.error(`reference.mjs: the reference is not installed in ${npmPrefix}: run tools/setup.sh ` +
                "(it installs the pinned npm packages into build/npm)");
  process.exit(1);
}
for (const file of tokenizers)
  if (!existsSync(file)) {
    console.error(`reference.mjs: ${file}: no such file: run tools/setup.sh`);
    process.exit(1);
  }
const require = createRequire(path.join(path.resolve(npmPrefix), "package.json"));
const { Tokenizer } = require("tokenizers");
const corpus = readFileSync(corpusPath, "utf8").split("\n").filter((l) => l.length).map((l) => JSON.parse(l));

let passed = 0, failed = 0;
const shown = new Map();
function check(file, what, ok, detail) {
  if (ok) return passed++;
  failed++;
  const n = (shown.get(file) ?? 0) + 1;
  shown.set(file, n);
  if (n <= 10) console.log(`FAIL ${path.basename(path.dirname(path.dirname(file)))}/${path.basename(file)}: ${what}: ${detail}`);
}

for (const file of tokenizers) {
  const ref = Tokenizer.fromFile(file);
  let roundTrips = 0, tokens = 0;
  for (const addSpecial of [true, false]) {
    const args = ["tokenize", file, "--batch", corpusPath, ...(addSpecial ? [] : ["--no-special-tokens"])];
    const lines = execFileSync(mgc, args, { encoding: "utf8", maxBuffer: 1 << 28 }).split("\n").filter((l) => l.length);
    if (lines.length !== corpus.length) {
      check(file, "batch", false, `${lines.length} output lines for ${corpus.length} strings`);
      continue;
    }
    for (let i = 0; i < corpus.length; i++) {
      const s = corpus[i], got = JSON.parse(lines[i]);
      const enc = await ref.encode(s, null, { addSpecialTokens: addSpecial });
      const want = Array.from(enc.getIds());
      const label = `${addSpecial ? "" : "(no special) "}${JSON.stringify(s).slice(0, 60)}`;
      check(file, label, JSON.stringify(got.ids) === JSON.stringify(want), `ids ${got.ids} != reference ${want}`);
      tokens += want.length;
      const dec = await ref.decode(want, false), decSkip = await ref.decode(want, true);
      check(file, label, got.decoded === dec, `decode ${JSON.stringify(got.decoded)} != ${JSON.stringify(dec)}`);
      check(file, label, got.decoded_skip === decSkip,
            `decode (skip special) ${JSON.stringify(got.decoded_skip)} != ${JSON.stringify(decSkip)}`);
      if (!decSkip.endsWith("\uFFFD"))
        check(file, label, got.streamed === decSkip, `streamed ${JSON.stringify(got.streamed)} != ${JSON.stringify(decSkip)}`);
      if (addSpecial && decSkip === s) roundTrips++;
    }
  }
  console.log(`${file}: ${corpus.length} strings, ${tokens} tokens, ${roundTrips} round-trip exactly`);
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);

#!/usr/bin/python3
"""Turns mgc-conformance --json output into the Markdown tables of
docs/conformance.md: counts per category, then failed and unsupported tests
grouped by reason (test-specific names and numbers masked, so one missing
op or one kernel bug is one line).

  /usr/bin/python3 tools/conformance/summarize.py build-x/conformance.json [--examples 6]
"""
import argparse
import collections
import json
import re


def reason_key(test):
    r = test.get("reason", "")
    r = r.split("\n")[0]                          # multi-node errors: the first line is the summary
    r = re.sub(r"\S*/model\.onnx:?\s*", "", r)    # the model path
    r = re.sub(r"'[^']*'", "'…'", r)              # tensor / node names
    r = re.sub(r"\[[-0-9, ]*\]", "[…]", r)        # shapes
    r = re.sub(r"-?\d+(\.\d+)?(e[-+]?\d+)?", "N", r)
    return f"{test.get('stage', '?')}: {r.strip()}"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("json")
    ap.add_argument("--examples", type=int, default=6, help="test names listed per reason")
    args = ap.parse_args()
    with open(args.json) as f:
        data = json.load(f)

    print(f"Device: {data['device']}; wall time {data['seconds']:.1f} s\n")
    print("| category | passed | failed | unsupported | total |")
    print("|---|---:|---:|---:|---:|")
    for cat, c in sorted(data["categories"].items()):
        print(f"| {cat} | {c['passed']} | {c['failed']} | {c['unsupported']} | {sum(c.values())} |")
    t = data["total"]
    print(f"| **total** | **{t['passed']}** | **{t['failed']}** | **{t['unsupported']}** | **{sum(t.values())}** |")

    for status in ("failed", "unsupported"):
        groups = collections.defaultdict(list)
        for test in data["tests"]:
            if test["status"] == status:
                groups[reason_key(test)].append(f"{test['category']}/{test['name']}")
        if not groups:
            continue
        print(f"\n### {status.capitalize()} ({sum(len(v) for v in groups.values())}), grouped by reason\n")
        print("| count | reason | tests |")
        print("|---:|---|---|")
        for key, names in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])):
            shown = ", ".join(n.split("/", 1)[1] for n in names[: args.examples])
            more = f", … (+{len(names) - args.examples})" if len(names) > args.examples else ""
            key = key.replace("|", "\\|")
            print(f"| {len(names)} | {key} | {shown}{more} |")


if __name__ == "__main__":
    main()

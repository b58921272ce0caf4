#!/usr/bin/env python3
"""Where each rule's examples come from, as the README's "Where the examples come from" lists.

    python3 scripts/example-sources.py             # print the lists
    python3 scripts/example-sources.py --check     # fail if README.md does not hold them
    python3 scripts/example-sources.py --update    # rewrite them in README.md

A rule's examples that must match are counted by where they came from:
  recorded   a log recorded on this machine by a script in examples/ (examples/recording/record.py,
             examples/recording/cpu_failures/record.py): real PyTorch output
  threads    a log someone pasted into a public thread (tests/corpus/ holds its label and address)
  written    an example written by hand (inline in the rule file, or a file from neither source)
"""
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BEGIN = "<!-- example-sources: begin (scripts/example-sources.py --update) -->"
END = "<!-- example-sources: end -->"


def recorded_files():
    """Paths (relative to the repository) that a recorder script writes."""
    out = set()
    text = (REPO / "examples/recording/record.py").read_text()
    out.update(re.findall(r'"(tests/rules/[^"]+\.log)"', text))
    cpu = (REPO / "examples/recording/cpu_failures/record.py").read_text()
    # CASES: rule id -> (short name, text); written as tests/rules/<id>/match/cpu-<short>.log
    for rule_id, short in re.findall(r'^\s+"([a-z0-9-]+)": \("([a-z0-9-]+)",', cpu, re.M):
        out.add(f"tests/rules/{rule_id}/match/cpu-{short}.log")
    return out


def thread_logs():
    names = set()
    # the corpus and every held-out round (tests/corpus/holdout, holdout2, ...)
    for folder in sorted(p for p in (REPO / "tests/corpus").iterdir() if p.is_dir()):
        for label in folder.glob("*.label.yaml"):
            if re.search(r"^source: https?://", label.read_text(), re.M):
                names.add(label.name[: -len(".label.yaml")] + ".log")
    return names


def inline_match_count(rule_file):
    """The number of inline `examples: match:` entries of a rule file."""
    text = rule_file.read_text()
    m = re.search(r"^examples:\n((?:[ #].*\n|\n)*)", text, re.M)
    if not m:
        return 0
    block = m.group(1)
    inline = re.search(r"^  match:\s*\[(.*)\]\s*$", block, re.M)
    if inline:  # a flow list: count its top-level strings
        return len(re.findall(r"'(?:[^']|'')*'|\"(?:[^\"\\\\]|\\\\.)*\"", inline.group(1)))
    items = re.search(r"^  match:\n((?:    .*\n|\n)*)", block, re.M)
    return len(re.findall(r"^    - ", items.group(1), re.M)) if items else 0


def classify():
    recorded, threads = recorded_files(), thread_logs()
    rows = []
    for rule_file in sorted((REPO / "rules").rglob("*.yaml")):
        rule_id = rule_file.stem
        counts = {"recorded": 0, "threads": 0, "written": inline_match_count(rule_file)}
        match_dir = REPO / "tests/rules" / rule_id / "match"
        for f in sorted(match_dir.glob("*")) if match_dir.is_dir() else []:
            rel = f.relative_to(REPO).as_posix()
            if rel in recorded:
                counts["recorded"] += 1
            elif f.name in threads:
                counts["threads"] += 1
            else:
                counts["written"] += 1
        rows.append((rule_id, counts))
    return rows


def torchrun_rules():
    """Rule ids found in the recorded torchrun runs (their golden JSON outputs)."""
    found = set()
    for golden in (REPO / "tests/golden/expected").glob("tests_distributed_*.json"):
        found.update(re.findall(r'^      "rule": "([a-z0-9-]+)"', golden.read_text(), re.M))
    return found


def render(rows):
    rows = sorted(rows)
    recorded = [r for r, c in rows if c["recorded"]]
    threads = [r for r, c in rows if c["threads"] and not c["recorded"]]
    written = [r for r, c in rows if not c["recorded"] and not c["threads"]]
    torchrun = sorted(torchrun_rules())
    ids = lambda xs: ", ".join(f"`{x}`" for x in xs) if xs else "none"
    return "\n".join([
        BEGIN,
        f"- **Recorded here from real PyTorch runs** ({len(recorded)} rules): {ids(recorded)}.",
        f"- **Real logs from public threads, none recorded here** ({len(threads)} rules): {ids(threads)}.",
        f"- **Only hand-written examples** ({len(written)} rules): {ids(written)}.",
        f"- The recorded torchrun runs (`tests/distributed/`) are also diagnosed with {ids(torchrun)}.",
        END,
    ])


def main():
    block = render(classify())
    readme = REPO / "README.md"
    text = readme.read_text()
    if "--check" in sys.argv or "--update" in sys.argv:
        start, end = text.find(BEGIN), text.find(END)
        if start < 0 or end < 0:
            sys.exit(f"README.md has no {BEGIN!r} ... {END!r} block")
        current = text[start:end + len(END)]
        if "--update" in sys.argv:
            readme.write_text(text.replace(current, block))
            return
        if current != block:
            sys.exit("README.md's list of where the examples come from is out of date; run "
                     "python3 scripts/example-sources.py --update\n\nexpected:\n" + block)
        print("README.md: where the examples come from is up to date")
        return
    print(block)


if __name__ == "__main__":
    main()

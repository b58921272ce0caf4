#!/usr/bin/env python3
"""Prints one grep -E pattern per pattern signal of the rules in RULES_DIR (default rules/).

This is the fair reference for the throughput benchmark: the same failure strings denpex looks
for, written in the extended syntax GNU grep and ripgrep both read. RE2-only syntax is
rewritten to its equivalent: \\d as [0-9], named and non-capturing groups as plain groups, lazy
quantifiers as greedy ones (same lines match), (?i) by spelling each letter in both cases. A
leading ^ is dropped, since denpex anchors it after the line's rank prefix.
   grep_patterns.py [RULES_DIR]
"""
import glob
import os
import re
import sys

import yaml

root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "rules")


def both_cases(text):
    out, i = [], 0
    while i < len(text):
        c = text[i]
        if c == "\\" and i + 1 < len(text):
            out.append(text[i:i + 2])
            i += 2
            continue
        if c == "[":  # a bracket: add the other case of every letter inside
            j = text.index("]", i + 2)
            body = text[i + 1:j]
            out.append("[" + body + "".join(ch.swapcase() for ch in body if ch.isalpha()) + "]")
            i = j + 1
            continue
        out.append(f"[{c.lower()}{c.upper()}]" if c.isalpha() else c)
        i += 1
    return "".join(out)


def group_end(p, i):
    """The index of the ')' closing the group that opens at p[i]."""
    depth, j = 0, i
    while j < len(p):
        if p[j] == "\\":
            j += 2
            continue
        if p[j] == "[":
            j = p.index("]", j + 2) + 1
            continue
        depth += {"(": 1, ")": -1}.get(p[j], 0)
        if depth == 0:
            return j
        j += 1
    raise ValueError(p)


def to_ere(p):
    caseless = p.startswith("(?i)")
    if caseless:
        p = p[4:]
    p = p.lstrip("^")
    while "(?i:" in p:  # a caseless group
        i = p.index("(?i:")
        j = group_end(p, i)
        p = p[:i] + "(" + both_cases(p[i + 4:j]) + p[j:]
    p = re.sub(r"\(\?P<\w+>", "(", p)
    p = p.replace("(?:", "(")
    p = re.sub(r"(?<!\\)([+*?}])\?", r"\1", p)
    p = re.sub(r"\[([^]]*)\\d", r"[\g<1>0-9", p)  # \d inside a bracket
    p = p.replace(r"\d", "[0-9]")
    return both_cases(p) if caseless else p


for path in sorted(glob.glob(os.path.join(root, "**", "*.yaml"), recursive=True)):
    with open(path) as f:
        rule = yaml.safe_load(f)
    for value in (rule.get("signals") or {}).values():
        pattern = value if isinstance(value, str) else (value or {}).get("pattern")
        if pattern:
            print(to_ere(pattern))

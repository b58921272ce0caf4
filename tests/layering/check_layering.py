#!/usr/bin/env python3
"""The include directions of ARCHITECTURE.md ("Invariants"), checked on every source file.

Dependencies point one way: tool -> {cli, lsp} -> io -> core. cli and lsp never include each
other. Inside core the pipeline's rooms point one way too: base <- parse <- rules <- analyze <-
fix <- check <- render. Core includes no header that reaches files, sockets, clocks, threads or
terminals. Prints every edge that breaks a rule, and the edges it saw, per folder pair.

Also: a function-local static whose destructor frees memory (a compiled pattern, a string, a
container) is never destroyed (`static const T& x = *new T(...)`), because a worker thread may
still read it while another thread's exit() runs the destructors of statics.

usage: check_layering.py [REPO_ROOT]
"""
import os
import re
import sys
from collections import Counter

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", ".."))

# Which project folders each folder may include (itself included).
ALLOWED = {
    "core": {"core"},
    "io": {"io", "core"},
    "cli": {"cli", "io", "core"},
    "lsp": {"lsp", "io", "core"},
    "tool": {"tool", "cli", "lsp", "io", "core"},
}
# The order of core's rooms: a room may include itself and the rooms before it.
CORE_ROOMS = ["base", "parse", "rules", "analyze", "fix", "check", "render"]
# System headers core must not use: core does no I/O, keeps no clock, starts no thread.
CORE_FORBIDDEN = {
    "fstream", "iostream", "filesystem", "thread", "mutex", "condition_variable", "future", "chrono", "ctime",
    "unistd.h", "fcntl.h", "sys/socket.h", "sys/stat.h", "sys/wait.h", "signal.h",
}
CORE_FORBIDDEN_PREFIXES = ("spdlog/", "boost/")

INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
# An indented (function-local) static of a type with a destructor, held by value.
DESTROYED_STATIC = re.compile(
    r'^\s+static\s+(?:const\s+)?((?:RE2|std::(?:string|vector|set|map|unordered_map|unordered_set|deque|list|regex|'
    r'function|shared_ptr|unique_ptr))\b(?:<.*>)?)\s+(\w+)\s*(?:[={]|\(\s*R?")')


def sources():
    for top in ALLOWED:
        base = os.path.join(ROOT, top)
        for dirpath, _, files in os.walk(base):
            for f in files:
                if f.endswith((".h", ".cpp")):
                    path = os.path.join(dirpath, f)
                    yield top, os.path.relpath(path, ROOT)


def main():
    problems = []
    edges = Counter()
    files = 0
    for top, rel in sorted(sources()):
        files += 1
        room = rel.split(os.sep)[1] if top == "core" and rel.count(os.sep) >= 2 else None
        with open(os.path.join(ROOT, rel), encoding="utf-8") as fh:
            for number, line in enumerate(fh, 1):
                d = DESTROYED_STATIC.match(line)
                if d:
                    problems.append(f"{rel}:{number}: the static {d.group(2)} ({d.group(1)}) is destroyed at exit() while "
                                    "other threads may read it: hold it as `static const T& x = *new T(...)`")
                m = INCLUDE.match(line)
                if not m:
                    continue
                quote, target = m.groups()
                where = f"{rel}:{number}"
                if quote == "<":
                    if top == "core" and (target in CORE_FORBIDDEN or target.startswith(CORE_FORBIDDEN_PREFIXES)):
                        problems.append(f"{where}: core includes <{target}>: core does no I/O, keeps no clock, starts no thread")
                    continue
                to = target.split("/")[0]
                if to not in ALLOWED:
                    continue  # a generated or test header
                edges[(top, to)] += 1
                if to not in ALLOWED[top]:
                    problems.append(f"{where}: {top}/ includes {target}: {top}/ may include only {', '.join(sorted(ALLOWED[top]))}")
                if top == "core" and to == "core" and room in CORE_ROOMS:
                    parts = target.split("/")
                    to_room = parts[1] if len(parts) > 2 else None
                    if to_room not in CORE_ROOMS:
                        problems.append(f"{where}: includes {target}, which is in no room of core")
                    elif CORE_ROOMS.index(to_room) > CORE_ROOMS.index(room):
                        problems.append(f"{where}: core/{room} includes core/{to_room} ({target}): the pipeline's rooms point one way "
                                        + " <- ".join(CORE_ROOMS))
                elif top == "core" and room not in CORE_ROOMS:
                    problems.append(f"{where}: {rel} is in no room of core ({', '.join(CORE_ROOMS)})")
    for (a, b), n in sorted(edges.items()):
        print(f"edge {a} -> {b}: {n} includes")
    for p in problems:
        print(p)
    print(f"layering: {files} files checked, {len(problems)} problems")
    if files == 0:
        print("layering: no source file found: is the repository root right?")
        return 1
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

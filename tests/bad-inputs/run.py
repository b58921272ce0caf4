#!/usr/bin/env python3
"""Runs the hostile-input corpus (cases.py) against a built denpex binary.

    tests/bad-inputs/run.py [--no-memory-bounds] BUILD/denpex [NAME_SUBSTRING]

Every case makes its input in a scratch folder (big ones are generated, sparse where they can
be), runs the real binary over real pipes, and checks its exit status, what it printed, its peak
memory (the child's maximum resident set, from wait4) and that it finished in time. Prints one
line per case and the peak memory of the bounded ones; exits 1 if any case failed.
--no-memory-bounds: the binary is built with sanitizers, whose shadow memory and quarantine make
peak memory meaningless; every other check still holds.
"""
import json
import os
import resource
import signal
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cases as corpus  # noqa: E402


def frame(body):
    data = body.encode() if isinstance(body, str) else body
    return b"Content-Length: %d\r\n\r\n" % len(data) + data


def lsp_frames(messages):
    """Messages to bytes: a dict is a JSON-RPC message, bytes are sent as they are."""
    out = b""
    for m in messages:
        out += m if isinstance(m, bytes) else frame(json.dumps(m))
    return out


def replies(stdout):
    """The JSON messages in the server's framed output."""
    out, at = [], 0
    while True:
        at = stdout.find(b"Content-Length: ", at)
        if at < 0:
            return out
        end = stdout.find(b"\r\n\r\n", at)
        n = int(stdout[at + 16:end])
        out.append(json.loads(stdout[end + 4:end + 4 + n]))
        at = end + 4 + n


def run_child(argv, cwd, stdin_bytes, stdin_stream, timeout):
    """Runs argv; returns (code, stdout, stderr, peak_rss_kib, seconds, timed_out). The peak comes
    from /usr/bin/time, a small process that execs the binary: a child of this (big) Python
    process would inherit its high-water mark across exec."""
    start = time.monotonic()
    rss_file = os.path.join(cwd, ".peak-rss")
    argv = ["/usr/bin/time", "-f", "%M", "-o", rss_file] + argv
    proc = subprocess.Popen(argv, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)
    out, err = [], []

    def drain(stream, sink):
        while True:
            chunk = stream.read(65536)
            if not chunk:
                return
            if sum(len(c) for c in sink) < (64 << 20):
                sink.append(chunk)

    readers = [threading.Thread(target=drain, args=(proc.stdout, out)), threading.Thread(target=drain, args=(proc.stderr, err))]
    for r in readers:
        r.start()

    def feed():
        try:
            if stdin_bytes:
                proc.stdin.write(stdin_bytes)
            if stdin_stream:
                for chunk in stdin_stream():
                    proc.stdin.write(chunk)
            proc.stdin.close()
        except (BrokenPipeError, ValueError):
            pass

    writer = threading.Thread(target=feed)
    writer.start()
    timed_out = False
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid == proc.pid:
            break
        if time.monotonic() - start > timeout:
            timed_out = True
            os.killpg(proc.pid, signal.SIGKILL)
            pid, status, usage = os.wait4(proc.pid, 0)
            break
        time.sleep(0.01)
    seconds = time.monotonic() - start
    for r in readers:
        r.join()
    writer.join(timeout=5)
    code = os.waitstatus_to_exitcode(status)
    peak = 0
    try:
        with open(rss_file) as f:
            lines = [l for l in f.read().split("\n") if l.strip().isdigit()]
            peak = int(lines[-1]) if lines else 0
    except OSError:
        pass
    return code, b"".join(out), b"".join(err), peak, seconds, timed_out


MEMORY_BOUNDS = True


def check(case, binary, scratch):
    setup = case.get("setup")
    if setup:
        setup(scratch)
    argv = [binary] + [a.replace("{dir}", scratch) for a in case["run"]]
    stdin_bytes = case.get("stdin", b"")
    if "lsp" in case:
        stdin_bytes = lsp_frames(case["lsp"])
    code, out, err, rss, seconds, timed_out = run_child(argv, scratch, stdin_bytes, case.get("stdin_stream"),
                                                       case.get("max_seconds", 30))
    problems = []
    expect = case["expect"]
    text_out, text_err = out.decode("utf-8", "replace"), err.decode("utf-8", "replace")
    if timed_out:
        problems.append("did not finish within %ss" % case.get("max_seconds", 30))
    if "code" in expect and code != expect["code"]:
        problems.append("exit status %d, expected %d" % (code, expect["code"]))
    for s in expect.get("stdout", []):
        if s not in text_out:
            problems.append("stdout lacks %r" % s)
    for s in expect.get("stderr", []):
        if s not in text_err:
            problems.append("stderr lacks %r" % s)
    for s in expect.get("not_stdout", []):
        if s in text_out:
            problems.append("stdout has %r" % s)
    if expect.get("json"):
        try:
            json.loads(out)
        except ValueError as e:
            problems.append("stdout is not JSON: %s" % e)
    if "replies" in expect:
        got = {}
        try:
            for m in replies(out):
                if "id" in m and ("result" in m or "error" in m):
                    key = m["id"] if not isinstance(m["id"], dict) else json.dumps(m["id"])
                    got.setdefault(key, m)
        except (ValueError, json.JSONDecodeError) as e:
            problems.append("unreadable server output: %s" % e)
        for rid, want in expect["replies"].items():
            m = got.get(rid)
            if m is None:
                problems.append("no reply to request %r" % rid)
            elif want == "result" and "result" not in m:
                problems.append("request %r: %s" % (rid, json.dumps(m)[:200]))
            elif isinstance(want, int) and m.get("error", {}).get("code") != want:
                problems.append("request %r: expected error %d, got %s" % (rid, want, json.dumps(m)[:200]))
    if "check" in expect:
        why = expect["check"](out, err, scratch)
        if why:
            problems.append(why)
    limit = case.get("max_rss_mib")
    if MEMORY_BOUNDS and limit is not None and rss > limit * 1024:
        problems.append("peak memory %.0f MiB, over %d MiB" % (rss / 1024, limit))
    return problems, rss, seconds


def main():
    global MEMORY_BOUNDS
    args = sys.argv[1:]
    if args and args[0] == "--no-memory-bounds":
        MEMORY_BOUNDS = False
        args = args[1:]
    if not args:
        print(__doc__)
        return 2
    binary = os.path.abspath(args[0])
    only = args[1] if len(args) > 1 else None
    failed = 0
    count = 0
    for case in corpus.CASES:
        if only and only not in case["name"]:
            continue
        count += 1
        with tempfile.TemporaryDirectory(prefix="denpex-bad-") as scratch:
            try:
                problems, rss, seconds = check(case, binary, scratch)
            except Exception as e:  # the harness itself: report, do not hide
                problems, rss, seconds = ["harness error: %r" % e], 0, 0
        bound = " (bound %d MiB)" % case["max_rss_mib"] if "max_rss_mib" in case else ""
        status = "ok  " if not problems else "FAIL"
        print("%s %-44s %6.2fs  peak %6.1f MiB%s" % (status, case["name"], seconds, rss / 1024, bound))
        for p in problems:
            print("       " + p)
        failed += bool(problems)
    print("%d cases, %d failed" % (count, failed))
    if count == 0:
        print("no case ran: is the case list, or the name asked for, right?")
        return 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

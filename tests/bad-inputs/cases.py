"""The hostile-input corpus: inputs an attacker, a broken cluster or a confused editor can hand to
denpex, each with the clear error or the result expected. run.py runs them.

A case: name; about (what went wrong before, or what could); setup(scratch) writing its files;
run (the arguments, {dir} being the scratch folder); stdin bytes, a stdin_stream generator, or
lsp (messages framed for `denpex lsp --stdio`: dicts, or raw bytes); expect (code, stdout and
stderr substrings, json, replies by request id: "result" or an error code, or a check function);
max_rss_mib and max_seconds for the bounded ones.
"""
import json
import os
import random

MIB = 1 << 20


def write(path, data, mode="wb"):
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, mode) as f:
        f.write(data if isinstance(data, bytes) else data.encode())


def sparse(path, size, tail=b""):
    """A file of `size` zero bytes that takes no disk, then `tail`."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.truncate(size)
        f.seek(size)
        f.write(tail)


def files(mapping):
    def setup(scratch):
        for name, data in mapping.items():
            write(os.path.join(scratch, name), data() if callable(data) else data)
    return setup


OOM = b"RuntimeError: CUDA out of memory. Tried to allocate 2.00 MiB\n"
TRACEBACK = b'Traceback (most recent call last):\n  File "train.py", line 3, in <module>\n'


def log_case(name, about, data, expect, args=("diagnose", "{dir}/in.log"), **kw):
    case = {"name": name, "about": about, "setup": files({"in.log": data}), "run": list(args), "expect": expect}
    case.update(kw)
    return case


def rule_case(name, about, text, expect, **kw):
    case = {"name": name, "about": about, "setup": files({"team/r.yaml": text}), "run": ["rules", "lint", "{dir}/team"],
            "expect": expect}
    case.update(kw)
    return case


def lsp_case(name, about, messages, replies, stderr=(), setup=None, **kw):
    case = {"name": name, "about": about, "run": ["lsp", "--stdio"], "setup": setup,
            "lsp": [INIT, INITIALIZED] + messages + [SHUTDOWN, EXIT] if messages is not None else [],
            "expect": {"replies": {**replies, 0: "result", 99: "result"} if messages is not None else replies,
                       "stderr": list(stderr)}}
    case.update(kw)
    return case


INIT = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"capabilities": {}, "rootUri": None}}
INITIALIZED = {"jsonrpc": "2.0", "method": "initialized", "params": {}}
SHUTDOWN = {"jsonrpc": "2.0", "id": 99, "method": "shutdown"}
EXIT = {"jsonrpc": "2.0", "method": "exit"}


def request(rid, method, params):
    return {"jsonrpc": "2.0", "id": rid, "method": method, "params": params}


def diagnose_text(rid, text):
    return request(rid, "workspace/executeCommand", {"command": "denpex.diagnose", "arguments": [{"text": text}]})


def hover(rid, uri, line):
    return request(rid, "textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": line, "character": 0}})


def did_open(uri, text):
    return {"jsonrpc": "2.0", "method": "textDocument/didOpen",
            "params": {"textDocument": {"uri": uri, "languageId": "log", "version": 1, "text": text}}}


def frame_raw(data):
    return b"Content-Length: %d\r\n\r\n" % len(data) + data


def frame_bytes(body):
    return frame_raw(body.encode())


def seeded_bytes(n, seed=7):
    rng = random.Random(seed)
    return bytes(rng.getrandbits(8) for _ in range(n))


def json_has_rule(rule):
    def check(out, err, scratch):
        try:
            d = json.loads(out)
        except ValueError as e:
            return "stdout is not JSON: %s" % e
        rules = [f["rule"] for f in d["findings"]]
        return None if rule in rules else "no %s finding (got %s)" % (rule, rules)
    return check


CASES = [
    # --- ranks: a rank needs a plausible number, and the table has a cap -------------------
    log_case("ranks/srun-labels-100k", "100,000 distinct 'N: ' labels once took 11 s and 2.2 GB",
             lambda: "".join("%d: loss=0.5\n" % i for i in range(1, 100001)),
             {"code": 0, "stdout": ["lines named ranks the run cannot have"]}, max_rss_mib=100, max_seconds=20),
    log_case("ranks/torchrun-tags-100k", "[rankN]: took any number",
             lambda: "".join("[rank%d]: step 1 | loss 0.5\n" % i for i in range(100000)),
             {"code": 0, "stdout": ["lines named ranks the run cannot have"]}, max_rss_mib=100, max_seconds=20),
    log_case("ranks/past-the-world-size", "a log that states its world size has no rank beyond it",
             b"WORLD_SIZE=4\n[rank7]: " + OOM + b"[rank2]: " + OOM,
             {"code": 1, "stdout": ["lines named ranks the run cannot have"]}),
    log_case("ranks/mpirun-tags-100k", "[1,N]<stderr>: with every N",
             lambda: "".join("[1,%d]<stderr>:warning\n" % i for i in range(100000)),
             {"code": 0}, max_rss_mib=100, max_seconds=20),
    log_case("ranks/absurd-rank-number", "a rank past 2^20 is not a rank",
             b"[rank99999999]: " + OOM, {"code": 1, "stdout": ["cuda-out-of-memory"], "not_stdout": ["99999999 "]}),
    log_case("ranks/negative-looking", "'-3: x' is no rank label", b"-3: " + OOM, {"code": 1, "stdout": ["cuda-out-of-memory"]}),
    # --- long lines and endless input -----------------------------------------------------------
    {"name": "lines/300-mib-line", "about": "a line with no end kept growing the pending buffer",
     "setup": lambda s: sparse(os.path.join(s, "in.log"), 300 * MIB, b"\n" + OOM), "run": ["diagnose", "{dir}/in.log"],
     "expect": {"code": 1, "stdout": ["cuda-out-of-memory"]}, "max_rss_mib": 100, "max_seconds": 30},
    {"name": "lines/2-gib-sparse-file", "about": "a 2 GB sparse file once reached 4.2 GB of memory",
     "setup": lambda s: sparse(os.path.join(s, "in.log"), 2048 * MIB), "run": ["diagnose", "{dir}/in.log"],
     "expect": {"code": 0}, "max_rss_mib": 100, "max_seconds": 60},
    {"name": "lines/500-mib-of-zeros-on-stdin", "about": "/dev/zero on stdin grew until bad_alloc",
     "run": ["diagnose", "-"], "stdin_stream": lambda: (b"\0" * MIB for _ in range(500)),
     "expect": {"code": 0}, "max_rss_mib": 100, "max_seconds": 60},
    log_case("lines/cr-only-endings", "old Mac line endings: one 8 MiB line of \\r-separated records",
             lambda: b"\r".join(b"step %d | loss 0.5" % i for i in range(400000)) + b"\n" + OOM,
             {"code": 1, "stdout": ["cuda-out-of-memory"]}, max_rss_mib=100),
    log_case("lines/nul-bytes", "NUL bytes inside lines", b"loss\0=\0nan\n" + TRACEBACK + b"RuntimeError: a\0b\n",
             {"code": 1}, args=("diagnose", "--format", "json", "{dir}/in.log")),
    # --- bytes that are not UTF-8 ----------------------------------------------------------------
    log_case("utf8/invalid-byte-json", "one invalid byte made --format json print nothing (type_error.316)",
             TRACEBACK + b"RuntimeError: bad \xff byte\n", {"code": 1, "json": True},
             args=("diagnose", "--format", "json", "{dir}/in.log")),
    log_case("utf8/invalid-byte-sarif", "the same for SARIF", TRACEBACK + b"RuntimeError: bad \xc3\x28 byte\n",
             {"code": 1, "json": True}, args=("diagnose", "--format", "sarif", "{dir}/in.log")),
    log_case("utf8/overlong-and-surrogates", "overlong forms and encoded surrogates are not UTF-8",
             TRACEBACK + b"RuntimeError: \xc0\xaf \xed\xa0\x80 \xf4\x90\x80\x80 \xe0\x80\x80\n",
             {"code": 1, "json": True}, args=("diagnose", "--format", "json", "{dir}/in.log")),
    log_case("utf8/truncated-at-end", "a sequence cut by the end of the file", OOM + b"\xe8\xae",
             {"code": 1, "json": True}, args=("diagnose", "--format", "json", "{dir}/in.log")),
    log_case("utf8/markdown-and-text", "every format prints", TRACEBACK + b"RuntimeError: \xfe\xff\n",
             {"code": 1, "stdout": ["Unrecognized failure"]}, args=("diagnose", "--format", "markdown", "{dir}/in.log")),
    log_case("utf8/random-binary", "a megabyte of random bytes", lambda: seeded_bytes(MIB), {"json": True},
             args=("diagnose", "--format", "json", "{dir}/in.log"), max_rss_mib=100),
    # --- terminal noise --------------------------------------------------------------------------
    log_case("noise/escape-bomb", "a million unfinished escape sequences", lambda: b"\x1b[" * 1000000 + b"\n" + OOM,
             {"code": 1, "stdout": ["cuda-out-of-memory"]}, max_rss_mib=100),
    log_case("noise/osc-without-end", "an OSC sequence that never ends", lambda: b"\x1b]0;title" + b"x" * 500000 + b"\n" + OOM,
             {"code": 1, "stdout": ["cuda-out-of-memory"]}),
    log_case("noise/backspace-storm", "backspaces everywhere", lambda: (b"a\b" * 300000) + b"\n" + OOM, {"code": 1}),
    log_case("noise/progress-bar-redraws", "a progress bar redrawn 200,000 times on one line",
             lambda: b"".join(b"\r%d%%|#####     | %d/200000" % (i % 100, i) for i in range(200000)) + b"\n" + OOM,
             {"code": 1, "stdout": ["cuda-out-of-memory"]}, max_rss_mib=100),
    # --- tracebacks and exceptions ---------------------------------------------------------------
    log_case("tracebacks/100k-frames", "a traceback 100,000 frames deep (a recursion error)",
             lambda: b"Traceback (most recent call last):\n" + b'  File "m.py", line 1, in f\n    f()\n' * 100000 +
             b"RecursionError: maximum recursion depth exceeded\n", {"code": 1}, max_rss_mib=100),
    log_case("tracebacks/100k-distinct", "100,000 different exceptions",
             lambda: b"".join(TRACEBACK + b"ValueError: bad value %d\n" % i for i in range(100000)), {"code": 1},
             max_rss_mib=100, max_seconds=30),
    log_case("tracebacks/chained-10k", "10,000 chained exceptions",
             lambda: (TRACEBACK + b"KeyError: 'x'\n\nDuring handling of the above exception, another exception occurred:\n\n") * 10000 +
             TRACEBACK + b"RuntimeError: last\n", {"code": 1}, max_rss_mib=100),
    log_case("tracebacks/unterminated", "a traceback that never gets its exception line",
             lambda: b"Traceback (most recent call last):\n" + b'  File "m.py", line 1, in f\n' * 1000, {}),
    # --- numbers -------------------------------------------------------------------------------
    log_case("metrics/huge-exponents", "1e99999 and a 10,000-digit number",
             lambda: b"step 1 | loss 1e99999 | grad_norm " + b"9" * 10000 + b"\n{'loss': -1e-99999, 'grad_norm': nan}\n", {}),
    log_case("metrics/million-nan-lines", "a million metric lines", lambda: b"step 1 | loss nan | grad_norm nan\n" * 1000000,
             {"code": 1, "stdout": ["nan-loss"]}, max_rss_mib=100, max_seconds=30),
    # --- files and folders ---------------------------------------------------------------------
    log_case("files/empty", "an empty log", b"", {"code": 0, "stdout": ["No known failure found in 0 lines."]}),
    {"name": "files/missing", "about": "a file that is not there", "run": ["diagnose", "{dir}/nope.log"],
     "expect": {"code": 2, "stderr": ["nope.log: no such file"]}},
    {"name": "files/folder-without-logs", "about": "a folder with no log files", "setup": files({"x/readme.md": "hi"}),
     "run": ["diagnose", "{dir}/x"], "expect": {"code": 2, "stderr": ["a folder with no log files"]}},
    {"name": "files/folder-with-a-fifo", "about": "a FIFO among rank logs is not read (it would block)",
     "setup": lambda s: (write(os.path.join(s, "run/rank1.log"), OOM), os.mkfifo(os.path.join(s, "run/rank0.log"))),
     "run": ["diagnose", "{dir}/run"], "expect": {"code": 1, "stdout": ["cuda-out-of-memory"]}, "max_seconds": 10},
    {"name": "files/folder-with-a-dangling-link", "about": "a link to nowhere among rank logs",
     "setup": lambda s: (write(os.path.join(s, "run/rank1.log"), OOM), os.symlink("/nonexistent/x", os.path.join(s, "run/rank0.log"))),
     "run": ["diagnose", "{dir}/run"], "expect": {"code": 1, "stdout": ["cuda-out-of-memory"]}},
    {"name": "files/folder-with-a-huge-rank-file", "about": "one rank's log is 1 GiB (sparse)",
     "setup": lambda s: (write(os.path.join(s, "run/rank1.log"), OOM), sparse(os.path.join(s, "run/rank0.log"), 1024 * MIB)),
     "run": ["diagnose", "{dir}/run"], "expect": {"code": 1, "stdout": ["cuda-out-of-memory"]}, "max_rss_mib": 100, "max_seconds": 60},
    log_case("files/secrets", "keys on evidence lines are never printed",
             TRACEBACK + b"RuntimeError: hf_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789 https://u:Pa55w0rd@h.example/x\n",
             {"code": 1, "stdout": ["hf_****"], "not_stdout": ["AbCdEfGhIjKl", "Pa55w0rd"]}),
    log_case("files/markdown-injection", "HTML and links from a log are inert in Markdown",
             TRACEBACK + b"RuntimeError: <script>alert(1)</script> [x](https://evil.example)\n",
             {"code": 1, "stdout": ["`RuntimeError: <script>alert(1)</script> [x](https://evil.example)`"], "not_stdout": ["\n<script>"]},
             args=("diagnose", "--format", "markdown", "{dir}/in.log")),
    # --- rule files --------------------------------------------------------------------------------
    rule_case("rules/condition-100k-deep", "a condition nested 100,000 deep crashed the loader",
              "id: r\ntitle: R\ncategory: t\nsummary: s\nsignals:\n  a: x\ncondition: " + "(" * 100000 + "a" + ")" * 100000 + "\n",
              {"code": 1, "stdout": ["is longer than 4096 characters"]}),
    rule_case("rules/condition-100-nots", "a chain of 100 nots", "id: r\ntitle: R\ncategory: t\nsummary: s\nsignals:\n  a: x\ncondition: " +
              "not " * 100 + "a\n", {"code": 1, "stdout": ["nests deeper than 64 levels"]}),
    rule_case("rules/yaml-billion-laughs", "300 KB of YAML aliases took 7.8 GB",
              "id: r\ntitle: R\ncategory: t\nsummary: s\n" + "".join(
                  "l%d: &l%d [%s]\n" % (i, i, ", ".join(["*l%d" % (i - 1)] * 9 if i else ["lol"] * 9)) for i in range(12)),
              {"code": 1, "stdout": ["YAML aliases (*name) are not allowed in rule files"]}, max_rss_mib=100),
    rule_case("rules/yaml-nested-10k", "YAML nested 10,000 deep", "id: r\nx: " + "[" * 10000 + "]" * 10000 + "\n",
              {"code": 1, "stdout": ["YAML nests deeper than 32 levels"]}),
    rule_case("rules/two-mib-file", "a rule file of 2 MiB", "id: r\n# " + "x" * (2 * MIB) + "\n",
              {"code": 1, "stdout": ["a rule file may be at most 1024 KiB"]}),
    rule_case("rules/invalid-regex", "a pattern RE2 cannot compile", "id: r\ntitle: R\ncategory: t\nsummary: s\nsignals:\n  a: '(unclosed'\ncondition: a\n",
              {"code": 1, "stdout": ["invalid regex"]}),
    rule_case("rules/dfa-hostile-pattern", "a pattern that made all scanning 130x slower, with no warning",
              "id: r\ntitle: R\ncategory: t\nsummary: s\nsignals:\n  a: '[ab]*a[ab]{20}z'\ncondition: a\n",
              {"stdout": ["warning: rule 'r': signal 'a' scans slowly"]}),
    rule_case("rules/edit-value-is-code", "an edit's value planted code in train.py",
              "id: r\ntitle: R\ncategory: t\nsummary: s\nsignals:\n  a: x\ncondition: a\nedits:\n  - kind: python-keyword\n"
              "    callees: [torch.optim.AdamW]\n    keyword: eps\n    type: float\n    value: '__import__(\"os\").system(\"id\") or 1e-5'\n"
              "    range: [1e-6, 1e-3]\n", {"code": 1, "stdout": ["is not a float literal"]}),
    rule_case("rules/shipped-id-without-overrides", "a repository's rule silently replaced a shipped one",
              "id: cuda-out-of-memory\ntitle: R\ncategory: t\nsummary: s\nsignals:\n  a: x\ncondition: a\n",
              {"code": 1, "stdout": ["a user rule replaces it only when it says so with 'overrides: cuda-out-of-memory'"]}),
    {"name": "rules/duplicate-ids-across-folders", "about": "two folders defining one id: which won depended on order",
     "setup": files({"a/r.yaml": "id: r\ntitle: R\ncategory: t\nsummary: s\nsignals:\n  a: x\ncondition: a\n",
                     "b/r.yaml": "id: r\ntitle: R2\ncategory: t\nsummary: s\nsignals:\n  a: x\ncondition: a\n", "in.log": "x\n"}),
     "run": ["diagnose", "--rules", "{dir}/a", "--rules", "{dir}/b", "{dir}/in.log"],
     "expect": {"stderr": ["duplicate rule id 'r' (also defined in"]}},
    rule_case("rules/binary-garbage", "a rule file of random bytes", seeded_bytes(4096).decode("latin-1"), {"code": 1}),
    rule_case("rules/tab-indentation", "YAML with a tab where indentation goes", "id: r\nsignals:\n\ta: x\n", {"code": 1, "stdout": ["r.yaml:"]}),
    rule_case("rules/2000-signals", "a rule with 2,000 signals",
              "id: r\ntitle: R\ncategory: t\nsummary: s\nsignals:\n" + "".join("  s%d: 'word%d'\n" % (i, i) for i in range(2000)) +
              "condition: s0\n", {"code": 1}, max_rss_mib=200, max_seconds=30),
    {"name": "rules/folder-with-a-link-loop", "about": "a rule folder that links to itself",
     "setup": lambda s: (os.makedirs(os.path.join(s, "team")), os.symlink(os.path.join(s, "team"), os.path.join(s, "team/loop"))),
     "run": ["rules", "lint", "{dir}/team"], "expect": {"code": 0}, "max_seconds": 10},
    # --- the language server over real pipes ---------------------------------------------------
    lsp_case("lsp/bad-length-then-requests", "after a bad Content-Length every later message was dropped",
             [b"Content-Length: nope\r\n\r\n{}", diagnose_text(1, OOM.decode())], {1: "result"},
             stderr=["Content-Length 'nope' is not a length"]),
    lsp_case("lsp/negative-length", "a negative Content-Length", [b"Content-Length: -5\r\n\r\n{\"a\":1}", diagnose_text(1, "x\n")],
             {1: "result"}, stderr=["Content-Length '-5' is not a length"]),
    lsp_case("lsp/too-small-length", "a body longer than its header said",
             [b"Content-Length: 3\r\n\r\n{\"jsonrpc\":\"2.0\",\"method\":\"x\"}", diagnose_text(1, "x\n")], {1: "result"},
             stderr=["bytes that were not a message"]),
    lsp_case("lsp/terabyte-length", "Content-Length 10^12 was preallocated",
             [b"Content-Length: 1000000000000\r\n\r\n{}", diagnose_text(1, "x\n")], {1: "result"},
             stderr=["is over the limit of 256 MiB"], max_rss_mib=100),
    {"name": "lsp/200-mib-claim-then-eof", "about": "the server preallocated whatever Content-Length said",
     "run": ["lsp", "--stdio"], "stdin": b"Content-Length: 209715200\r\n\r\n{\"jsonrpc\":",
     "expect": {"code": 1}, "max_rss_mib": 100},
    lsp_case("lsp/nested-70k-deep", "70,000 nested arrays in params overflowed the stack",
             [frame_bytes("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"textDocument/hover\",\"params\":" + "[" * 70000 + "]" * 70000 + "}"),
              diagnose_text(2, "x\n")], {None: -32600, 2: "result"}, stderr=["levels deep; the limit is 128"]),
    lsp_case("lsp/invalid-json", "a body that is not JSON", [b"Content-Length: 5\r\n\r\n{nope", diagnose_text(1, "x\n")],
             {1: "result"}, stderr=["malformed message skipped"]),
    lsp_case("lsp/invalid-utf8-in-json", "a JSON string with a byte that is not UTF-8",
             [frame_raw(b"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"shutdown\",\"x\":\"\xff\xfe\"}"), diagnose_text(1, "x\n")],
             {None: -32700, 1: "result"}),
    lsp_case("lsp/header-without-length", "headers with no Content-Length",
             [b"Content-Type: application/json\r\n\r\n", diagnose_text(1, "x\n")], {1: "result"},
             stderr=["a header without Content-Length"]),
    lsp_case("lsp/id-is-an-object", "a request id that is neither string nor integer",
             [{"jsonrpc": "2.0", "id": {"x": 1}, "method": "shutdown"}, diagnose_text(1, "x\n")], {1: "result"}),
    lsp_case("lsp/unknown-method", "a method nobody knows", [request(1, "denpex/nope", {})], {1: -32601}),
    lsp_case("lsp/bad-params", "params of the wrong shape", [request(1, "textDocument/hover", {"textDocument": 3}),
                                                             request(2, "workspace/executeCommand", {"command": "denpex.diagnose", "arguments": [42]})],
             {1: -32602, 2: -32602}),
    {"name": "lsp/request-before-initialize", "about": "a request before initialize", "run": ["lsp", "--stdio"],
     "lsp": [diagnose_text(1, "x\n"), EXIT], "expect": {"replies": {1: -32002}}},
    {"name": "lsp/empty-input", "about": "the client goes away at once", "run": ["lsp", "--stdio"], "stdin": b"",
     "expect": {"code": 1}, "max_seconds": 10},
    lsp_case("lsp/fifo-uri", "denpex.diagnose on a FIFO blocked the whole server",
             [request(1, "workspace/executeCommand", {"command": "denpex.diagnose", "arguments": [{"uri": "file:///tmp/denpex-bad-fifo"}]})],
             {1: -32602}, setup=lambda s: _fifo_setup(s), max_seconds=10),
    lsp_case("lsp/dev-zero-uri", "denpex.diagnose on /dev/zero read until it died",
             [request(1, "workspace/executeCommand", {"command": "denpex.diagnose", "arguments": [{"uri": "file:///dev/zero"}]})],
             {1: -32602}, max_rss_mib=100, max_seconds=10),
    lsp_case("lsp/rank-labels-in-a-document", "a 2.5 MB document of rank labels took 31 s and 4.5 GB",
             [did_open("file:///w/ranks.log", "".join("%d: loss=0.5\n" % i for i in range(1, 100001))),
              hover(1, "file:///w/ranks.log", 5)], {1: "result"}, max_rss_mib=53, max_seconds=30),  # 1.5 x 2.5 MB + 50 MiB
    lsp_case("lsp/10k-request-burst", "10,000 requests at once",
             [hover(1000 + i, "file:///w/none.log", 0) for i in range(10000)], {1000: "result", 10999: "result"}, max_seconds=60),
    lsp_case("lsp/cancel-storm", "a thousand cancellations of unknown requests",
             [{"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": 5000 + i}} for i in range(1000)] + [diagnose_text(1, "x\n")],
             {1: "result"}),
    lsp_case("lsp/edit-out-of-range", "an edit past the end of the document",
             [did_open("file:///w/a.log", "one\n"),
              {"jsonrpc": "2.0", "method": "textDocument/didChange",
               "params": {"textDocument": {"uri": "file:///w/a.log", "version": 2},
                          "contentChanges": [{"range": {"start": {"line": 90, "character": 4}, "end": {"line": 2, "character": 0}}, "text": "x"}]}},
              hover(1, "file:///w/a.log", 0)], {1: "result"}),
    # --- denpex run ----------------------------------------------------------------------------
    {"name": "run/200-mib-without-a-newline", "about": "1 GB of output without a newline held 2.1 GB",
     "run": ["run", "--log", "{dir}/out.log", "--", "python3", "-c",
             "import sys\nfor _ in range(200): sys.stdout.buffer.write(b'x' * (1 << 20))\nsys.exit(3)"],
     "expect": {"code": 3}, "max_rss_mib": 100, "max_seconds": 60},
]


def _fifo_setup(scratch):
    path = "/tmp/denpex-bad-fifo"
    if os.path.exists(path):
        os.remove(path)
    os.mkfifo(path)


"""`torchrun` for PyTorch 1.13 on Python 3.11.

    python3 torchrun_py311.py [torchrun arguments...]

Why this exists: torchrun 1.13 parses --redirects/--tee with `Std.from_str`
(torch/distributed/elastic/multiprocessing/api.py), which finds the value by
iterating the `Std` IntFlag (`for s in Std: if s == v`). Since Python 3.11,
iterating a Flag yields only its single-bit members (OUT=1, ERR=2), so "0"
(NONE, the default) and "3" (ALL) are never found, `from_str` returns None, and
torchrun dies before starting any worker with
`AttributeError: 'NoneType' object has no attribute 'get'` (in `to_map`).

This wrapper replaces only that lookup with `Std(int(value))` and then calls
`torch.distributed.run.main()` the way the `torchrun` console script does, so
the launcher's output is that of `torchrun` (its log lines come from the
`torch.distributed.run` logger, as with the real `torchrun`; under
`python -m torch.distributed.run` they would say `__main__`). The only visible
difference: when a worker fails, the launcher's own traceback starts in this
file instead of in the `torchrun` script. Newer torch releases fixed the
lookup upstream.
"""
import re
import sys

from torch.distributed.elastic.multiprocessing import api


def _from_str(cls, vm):
    if re.match(api._VALUE_REGEX, vm):  # a single value, e.g. "3"
        return cls(int(vm))
    if re.match(api._MAPPING_REGEX, vm):  # a per-local-rank mapping, e.g. "0:3,1:0"
        return {int(i): cls(int(v)) for i, v in (m.split(":") for m in vm.split(","))}
    raise ValueError(f"{vm} does not match: <{api._VALUE_REGEX}> or <{api._MAPPING_REGEX}>")


api.Std.from_str = classmethod(_from_str)

if __name__ == "__main__":
    from torch.distributed.run import main

    sys.exit(main())

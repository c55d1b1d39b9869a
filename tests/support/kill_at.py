"""Run the kgbuild CLI and SIGKILL it right after the n-th return of one of its functions.

``python tests/support/kill_at.py kgbuild.export.publish.swap_in 2 export …`` is ``kgbuild
export …`` killed the moment its second format folder has been swapped in. A poller that
watches files from outside lands its kill wherever the machine's scheduling lets it (on a
loaded 2-core run, often after the whole short swap phase); this lands it at one exact step,
with the same SIGKILL (no clean-up, no ``finally``) a user's ``kill -9`` or the OOM killer
sends. The function must be looked up through its module by its callers (``publish.swap_in``),
which is how the exporter calls it."""

import importlib
import os
import signal
import sys


def main() -> None:
    where, nth, *args = sys.argv[1:]
    module_name, name = where.rsplit(".", 1)
    module = importlib.import_module(module_name)
    original = getattr(module, name)
    calls = 0

    def killed_after_nth(*a, **kw):
        nonlocal calls
        result = original(*a, **kw)
        calls += 1
        if calls == int(nth):
            os.kill(os.getpid(), signal.SIGKILL)
        return result

    setattr(module, name, killed_after_nth)
    sys.argv = ["kgbuild", *args]
    from kgbuild.cli import main as cli

    cli()


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Run the integration tests.

    python3 tests/integration/run.py [FILTER...]

Runs every test_*() function of every test_*.py beside this file whose name,
"module.function", contains one of the FILTERs (all of them without one).
Prints PASS/FAIL/SKIP per test and ends with "N passed, N failed"; exits 0
only if nothing failed (and something was selected).
"""

import importlib
import os
import signal
import sys
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # leave no __pycache__ in the source tree

from testpmd import Skip, TestPmd  # noqa: E402


def discover(filters):
    """Yield (name, function or import error) in file, then source, order."""
    for filename in sorted(os.listdir(HERE)):
        if not (filename.startswith("test_") and filename.endswith(".py")):
            continue
        modname = filename[:-3]
        try:
            module = importlib.import_module(modname)
        except Exception as exc:  # a broken file fails, it does not stop the run
            yield modname, exc
            continue
        tests = [f for n, f in vars(module).items()
                 if n.startswith("test_") and callable(f)
                 and getattr(f, "__module__", None) == modname]
        tests.sort(key=lambda f: f.__code__.co_firstlineno)
        for test in tests:
            name = "%s.%s" % (modname, test.__name__)
            if not filters or any(f in name for f in filters):
                yield name, test


def indent_tail(exc, lines=30):
    text = "".join(traceback.format_exception(exc)).rstrip("\n").splitlines()
    return "\n".join("    " + line for line in text[-lines:])


def main(filters):
    # Turn SIGTERM into an exception so with-blocks and close_all still run.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(128 + signal.SIGTERM))
    passed = failed = skipped = 0
    for name, test in discover(filters):
        if isinstance(test, Exception):
            failed += 1
            print("FAIL %s: cannot import: %s\n%s" % (name, test, indent_tail(test)), flush=True)
            continue
        try:
            test()
        except Skip as exc:
            skipped += 1
            print("SKIP %s: %s" % (name, exc), flush=True)
        except Exception as exc:
            failed += 1
            reason = (str(exc).splitlines() or [""])[0]
            print("FAIL %s: %s: %s\n%s" % (name, type(exc).__name__, reason,
                                          indent_tail(exc)), flush=True)
        else:
            passed += 1
            print("PASS %s" % name, flush=True)
        finally:
            TestPmd.close_all()  # a test that forgot to close leaks no process
    if passed + failed + skipped == 0:
        print("no test matched %s" % " ".join(filters), file=sys.stderr)
    summary = "%d passed, %d failed" % (passed, failed)
    if skipped:
        summary += ", %d skipped" % skipped
    print(summary)
    return 0 if failed == 0 and passed + skipped > 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

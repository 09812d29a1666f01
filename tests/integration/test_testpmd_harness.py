"""The testpmd harness itself: what testpmd's other threads print may land
anywhere around a prompt, and a command must still return at its prompt.

A stand-in for testpmd (run through the harness's `wrapper`) answers each
command the way the real one was seen to interleave its output, in one write
as when the threads' output reaches the pty together, so every layout is
tried on every run, not only when a race happens to produce it.
"""

import sys
import textwrap

from testpmd import TestPmd

EVENT = "Port 0: link state change event\n"

# For each command, what the stand-in prints after the echo.
LAYOUTS = {
    # stdio flushes the event's leading newline alone; the prompt follows it.
    "split": "\n" + "testpmd> " + EVENT,
    # The event before the prompt, whole.
    "before": "\n" + EVENT + "testpmd> ",
    # The event in the middle of the prompt.
    "inside": "done\nt\n" + EVENT + "estpmd> ",
    # A PMD log line from the interrupt thread after the prompt.
    "log": "done\ntestpmd> refnic: port 0 recovered\n",
    # Two events inside the prompt, their lone newlines elsewhere inside it
    # (seen: `set link-up port 0` on a pair).
    "scattered": "done\nt\nestpmd" + EVENT + ">\n Port 1: link state change event\n",
    # Two events, one on each side of the prompt.
    "both": "\n" + EVENT + "testpmd> " + "\nPort 1: link state change event\n",
}

STAND_IN = textwrap.dedent("""
    import os, sys
    layouts = %r
    def put(text):
        os.write(1, text.encode())
    put("startup\\ntestpmd> ")
    for line in sys.stdin:
        command = line.strip()
        if command == "quit":
            break
        put(layouts.get(command, "unknown\\ntestpmd> "))
""")


def run(tmp_path, commands):
    script = tmp_path / "stand_in.py"
    script.write_text(STAND_IN % (LAYOUTS,))
    with TestPmd([], plugins=[], timeout=5, wrapper=[sys.executable, str(script)]) as tp:
        assert tp.startup.strip() == "startup"
        return [tp.cmd(c) for c in commands]


def test_each_layout_returns_at_its_prompt(tmp_path):
    outputs = run(tmp_path, list(LAYOUTS))
    for name, out in zip(LAYOUTS, outputs):
        assert "event" not in out, (name, out)
        assert "testpmd>" not in out, (name, out)


def test_output_survives_around_async_lines(tmp_path):
    inside, log, after = run(tmp_path, ["inside", "log", "nothing-known"])
    assert inside.strip() == "done"
    assert log.splitlines()[0] == "done"   # the log line may follow
    assert after.strip() == "unknown"   # the next command is still in step

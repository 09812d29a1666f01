"""Forwarding never stalls: many short stock-testpmd runs in which nothing is
typed while traffic flows (no stats query wakes anything), in every lcore
layout a user may pick, with device work inline and on the engine thread.
A stall shows as a run that moved almost nothing."""

import time

import pytest

RUNS = 3
RUN_S = 1.2
MIN_PACKETS = 10000

LAYOUTS = {
    # every CPU an lcore: the engine shares the main lcore's CPU
    "all-cpus": ("-l", "0-1"),
    # both lcores on CPU 0: CPU 1 is the engine's alone
    "free-cpu": ("--lcores", "0@0,1@0"),
    # lcores free to float over both CPUs, as under a busy scheduler
    "floating": ("--lcores", "0@(0-1),1@(0-1)"),
}

EXEC = {
    "inline": "",                                   # the defaults
    "thread": ",profile=baremetal,exec=thread",
}


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@pytest.mark.parametrize("mode", sorted(EXEC))
def test_forwarding_never_stalls(refnic_testpmd, layout, mode):
    vdevs = ["net_refnic0,cable=ns" + EXEC[mode], "net_refnic1,cable=ns" + EXEC[mode]]
    for run in range(RUNS):
        tp = refnic_testpmd(vdevs, lcores=LAYOUTS[layout])
        tp.cmd("start tx_first", check=True)
        time.sleep(RUN_S)           # nothing typed meanwhile
        fwd = tp.stop()
        tp.close()
        moved = fwd[0]["RX-packets"] + fwd[1]["RX-packets"]
        assert moved >= MIN_PACKETS, \
            "run %d (%s, %s): %d packets in %.1f s: %s" % (run, layout, mode, moved, RUN_S, fwd)

"""pytest set-up for the integration tests: fixtures for testpmd processes
and refnic ports, clean-up after every test, and the one-line summary
devtools/test.sh adds up.

    python3 -m pytest tests/integration [-k EXPR] [-x]

Fixtures:
    refnic_pmd      path of the net_refnic PMD to load with -d (skips without one)
    testpmd         start(vdevs, **TestPmd kwargs) -> a running interactive
                    testpmd; every one started is closed after the test
    refnic_testpmd  the same with the refnic PMD loaded
    pair            testpmd with two refnic ports wired back to back (PAIR)
    loopback_port   testpmd with one refnic port on cable=loopback
    measured        measured(text): a figure a test measured (never asserted
                    against a number), shown after the run
    hugepages       (module) HUGEPAGES_NEEDED free 2 MiB pages and hugetlbfs
                    mounted, reserved as root if need be and given back
                    after; skips without them (secondary processes)

devtools/test.sh exports REFNIC_PMD, REFNIC_BUILD and REFNIC_SDK; tests that
need one of them skip without it.
"""

import os
import re
import signal
import sys

import pytest

from helpers import PAIR, pmd_path
from testpmd import TestPmd

sys.dont_write_bytecode = True  # leave no __pycache__ in the source tree


def _sigterm(*_):
    # `timeout` ends a run with SIGTERM: unwind, so with-blocks and fixture
    # finalizers close their processes.
    raise KeyboardInterrupt("SIGTERM")


signal.signal(signal.SIGTERM, _sigterm)


@pytest.fixture(autouse=True)
def _close_leftover_testpmds():
    """A test that forgot to close a testpmd leaks no process into the next."""
    yield
    TestPmd.close_all()


@pytest.fixture
def refnic_pmd():
    return pmd_path()


@pytest.fixture
def testpmd():
    started = []

    def start(vdevs, **kwargs):
        tp = TestPmd(vdevs, **kwargs)
        started.append(tp)
        return tp.start()

    yield start
    for tp in started:
        tp.close()


@pytest.fixture
def refnic_testpmd(refnic_pmd, testpmd):
    def start(vdevs, **kwargs):
        return testpmd(vdevs, plugins=[refnic_pmd], **kwargs)
    return start


@pytest.fixture
def pair(refnic_testpmd):
    return refnic_testpmd(PAIR)


@pytest.fixture
def loopback_port(refnic_testpmd):
    return refnic_testpmd(["net_refnic0"])


HUGEPAGES_NEEDED = 256      # 2 MiB pages: a primary's -m 256, then some


def _meminfo(key):
    with open("/proc/meminfo") as f:
        m = re.search(r"^%s:\s+(\d+)" % key, f.read(), re.M)
    return int(m.group(1)) if m else 0


def _hugetlbfs_mounted():
    with open("/proc/mounts") as f:
        return any(line.split()[2] == "hugetlbfs" for line in f)


@pytest.fixture(scope="module")
def hugepages():
    """Secondary processes need hugepages (EAL refuses --no-huge ones):
    reserve them as root for the module, give them back after."""
    nr_path = "/proc/sys/vm/nr_hugepages"
    before = _meminfo("HugePages_Total")
    changed = False
    if _meminfo("HugePages_Free") < HUGEPAGES_NEEDED or not _hugetlbfs_mounted():
        if os.geteuid() != 0:
            pytest.skip("multi-process needs %d free 2 MiB hugepages and hugetlbfs "
                        "mounted (or root to set them up)" % HUGEPAGES_NEEDED)
        if not _hugetlbfs_mounted():
            os.makedirs("/dev/hugepages", exist_ok=True)
            if os.system("mount -t hugetlbfs nodev /dev/hugepages") != 0:
                pytest.skip("cannot mount hugetlbfs on /dev/hugepages")
        want = before + HUGEPAGES_NEEDED - _meminfo("HugePages_Free")
        if want > before:
            with open(nr_path, "w") as f:
                f.write(str(want))
            changed = True
        if _meminfo("HugePages_Free") < HUGEPAGES_NEEDED:
            pytest.skip("the kernel gave %d free hugepages, %d needed"
                        % (_meminfo("HugePages_Free"), HUGEPAGES_NEEDED))
    yield
    if changed:
        with open(nr_path, "w") as f:
            f.write(str(before))


_measured = []


@pytest.fixture
def measured(request):
    def note(text):
        _measured.append("%s: %s" % (request.node.name, text))
    return note


# The summary line: "N passed, N failed" and ", N skipped" when any did.
# One outcome per test: a test whose teardown fails after its body passed
# counts as failed, not as both; a test file that cannot be imported counts
# as one failure.
_outcomes = {}


def pytest_runtest_logreport(report):
    if report.failed:
        _outcomes[report.nodeid] = "failed"
    elif report.skipped and _outcomes.get(report.nodeid) != "failed":
        _outcomes[report.nodeid] = "skipped"
    elif report.when == "call" and report.passed:
        _outcomes.setdefault(report.nodeid, "passed")


def pytest_collectreport(report):
    if report.failed:
        _outcomes["collect:" + report.nodeid] = "failed"


def pytest_terminal_summary(terminalreporter):
    counts = {k: list(_outcomes.values()).count(k) for k in ("passed", "failed", "skipped")}
    line = "%(passed)d passed, %(failed)d failed" % counts
    if counts["skipped"]:
        line += ", %(skipped)d skipped" % counts
    if _measured:
        terminalreporter.write_sep("-", "measured (this machine, this run)")
        for text in _measured:
            terminalreporter.write_line(text)
    terminalreporter.ensure_newline()
    terminalreporter.write_line(line)

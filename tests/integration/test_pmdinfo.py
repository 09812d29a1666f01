"""What DPDK's own tools say about the PMD: dpdk-pmdinfo.py lists net_refnic
and its devargs, and those are exactly the keys the driver accepts.

The devargs are checked three ways, none of them taken from the listing
itself: every listed key is recognised by a probe (testpmd's `port attach`,
with a value no key accepts, so that a recognised key fails on its value and
an unknown one on its name), a key that is not listed is refused as unknown,
and every devarg key the sources define (a `#define ..._ARG_... "key"` in
drivers/ or device/) is listed.
"""

import json
import os
import re
import shutil
import subprocess

import pytest

from helpers import REPO, env_path
from testpmd import TestPmd
BAD_VALUE = "zzz"       # no devarg of refnic takes it as a value
_UNKNOWN = re.compile(r"unknown|unrecogni[sz]ed", re.I)


def pmdinfo():
    """dpdk-pmdinfo.py's JSON for the built PMD."""
    tool = shutil.which("dpdk-pmdinfo.py")
    if tool is None:
        pytest.skip("dpdk-pmdinfo.py is not installed (Debian: dpdk)")
    pmd = os.path.join(env_path("REFNIC_BUILD"), "drivers", "librte_net_refnic.so")
    res = subprocess.run([tool, pmd], capture_output=True, text=True, timeout=60)
    assert res.returncode == 0, res.stdout + res.stderr
    return json.loads(res.stdout)


def listed_keys(params):
    """Keys of a PMD param string: 'key=<what> key2=a|b' -> ['key', 'key2']."""
    return [word.split("=", 1)[0] for word in params.split()]


def source_keys():
    """Devarg key names the sources define as macros, wherever they live."""
    keys = set()
    define = re.compile(r'^#define\s+\w*_ARG_\w*\s+"([a-z][a-z0-9_]*)"', re.M)
    for top in ("drivers", "device"):
        for root, _, files in os.walk(os.path.join(REPO, top)):
            for name in files:
                if name.endswith((".c", ".h")):
                    with open(os.path.join(root, name)) as f:
                        keys.update(define.findall(f.read()))
    return keys


def attach_verdict(tp, port_name, key):
    """'accepted', 'unknown' or 'unclear' for KEY=BAD_VALUE on a new port."""
    devargs = "%s,%s=%s" % (port_name, key, BAD_VALUE)
    out = tp.cmd("port attach " + devargs)
    if re.search(r"Port \d+ is attached", out):
        return "accepted", out          # a value it takes as a name (cable=)
    if _UNKNOWN.search(out):
        return "unknown", out
    if "%s=%s" % (key, BAD_VALUE) in out:
        return "accepted", out          # refused for its value, named
    return "unclear", out


def test_pmdinfo_lists_net_refnic():
    drivers = pmdinfo()
    names = [d.get("name") for d in drivers]
    assert names == ["net_refnic"], drivers
    assert listed_keys(drivers[0].get("params", "")), drivers


def test_pmdinfo_devargs_are_the_keys_the_driver_accepts():
    params = pmdinfo()[0]["params"]
    listed = listed_keys(params)
    assert len(listed) == len(set(listed)), "a key listed twice: %s" % params

    # Every key the sources define is listed.
    defined = source_keys()
    assert defined, "no devarg key macros found in drivers/ or device/"
    assert defined <= set(listed), "defined but not listed: %s (listed: %s)" % (
        sorted(defined - set(listed)), params)

    # Every listed key is accepted by the probe; one that is not listed is not.
    unlisted = "not_a_refnic_key"
    assert unlisted not in listed
    with TestPmd([], plugins=[env_path("REFNIC_PMD")]) as tp:
        verdicts = {}
        for i, key in enumerate(listed + [unlisted]):
            verdicts[key] = attach_verdict(tp, "net_refnic%d" % (i + 1), key)
    assert verdicts[unlisted][0] == "unknown", verdicts[unlisted]
    refused = {k: v for k, v in verdicts.items() if k != unlisted and v[0] != "accepted"}
    assert not refused, "listed by dpdk-pmdinfo.py but not accepted: %s" % refused

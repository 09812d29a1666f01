"""The build as a user meets it: install location, loading without -d, and a
clear stop when the staged SDK headers do not match the installed DPDK.

These need the environment devtools/test.sh exports: REFNIC_BUILD (the
configured build tree), REFNIC_SDK (the staged SDK headers), REFNIC_PMD.
"""

import os
import shutil
import subprocess
import tempfile

import pytest

from helpers import PMD_NAME, REPO, eal_plugin_dir, env_path
from testpmd import TestPmd
def test_meson_install_lands_in_eal_plugin_dir():
    build = env_path("REFNIC_BUILD")
    with tempfile.TemporaryDirectory() as dest:
        subprocess.run(["meson", "install", "-C", build, "--destdir", dest, "--quiet"],
                       check=True, capture_output=True)
        installed = dest + os.path.join(eal_plugin_dir(), PMD_NAME)
        assert os.path.isfile(installed), "not at %s: %s" % (
            installed, subprocess.run(["find", dest], capture_output=True, text=True).stdout)


def test_testpmd_finds_installed_pmd_without_d():
    """What `meson install` gives a user: --vdev net_refnic0 with no -d.

    The system plugin directory is not touched: a private mount namespace
    lays a copy of it, plus the PMD, over it for this one testpmd.
    """
    pmd = env_path("REFNIC_PMD")
    plugin_dir = eal_plugin_dir()
    if os.geteuid() != 0 or not shutil.which("unshare"):
        pytest.skip("needs root and unshare to lay a plugin directory over %s" % plugin_dir)
    # EAL refuses plugins below world-writable directories: stay beside the PMD.
    stage = tempfile.mkdtemp(dir=os.path.dirname(pmd))
    try:
        os.chmod(stage, 0o755)
        subprocess.run(["cp", "-a", plugin_dir + "/.", stage], check=True)
        shutil.copy(pmd, stage)
        script = 'mount --bind "$0" "$1" && shift && exec "$@"'
        wrapper = ["unshare", "-m", "sh", "-c", script, stage, plugin_dir]
        with TestPmd(["net_refnic0"], plugins=[], wrapper=wrapper) as tp:
            info = tp.port_info(0)
        assert info.get("Driver name") == "net_refnic", info
    finally:
        shutil.rmtree(stage)


def test_sdk_version_mismatch_stops_the_build():
    sdk = env_path("REFNIC_SDK")
    with tempfile.TemporaryDirectory() as tmp:
        fake = os.path.join(tmp, "sdk")
        shutil.copytree(sdk, fake)
        with open(os.path.join(fake, "VERSION"), "w") as f:
            f.write("22.11.99\n")
        res = subprocess.run(["meson", "setup", os.path.join(tmp, "build"), REPO,
                              "-Ddpdk_sdk=" + fake], capture_output=True, text=True)
    assert res.returncode != 0, "meson accepted mismatched SDK headers"
    assert "SDK headers are version 22.11.99 but the installed DPDK is" in res.stdout + res.stderr, \
        res.stdout + res.stderr

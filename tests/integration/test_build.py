"""The build as a user meets it: install location, loading without -d, and a
clear stop when the staged SDK headers do not match the installed DPDK.

These need the environment devtools/test.sh exports: REFNIC_BUILD (the
configured build tree), REFNIC_SDK (the staged SDK headers), REFNIC_PMD.
"""

import os
import shutil
import subprocess
import tempfile

from helpers import PMD_NAME, REPO, eal_plugin_dir, env_path, installed_pmd
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
    """What `meson install` gives a user: --vdev net_refnic0 with no -d."""
    with installed_pmd(env_path("REFNIC_PMD")) as wrapper:
        with TestPmd(["net_refnic0"], plugins=[], wrapper=wrapper) as tp:
            info = tp.port_info(0)
    assert info.get("Driver name") == "net_refnic", info


def _series(version):
    return ".".join(version.split(".")[:2])


def _installed_dpdk():
    return subprocess.run(["pkg-config", "--modversion", "libdpdk"], capture_output=True,
                          text=True, check=True).stdout.strip()


def test_sdk_version_mismatch_stops_the_build():
    """SDK headers of another series than the installed DPDK's: meson stops,
    saying both; another point release of the same series is accepted."""
    sdk = env_path("REFNIC_SDK")
    installed = _installed_dpdk()
    other = "23.07.0" if _series(installed) != "23.07" else "22.11.0"
    with tempfile.TemporaryDirectory() as tmp:
        fake = os.path.join(tmp, "sdk")
        shutil.copytree(sdk, fake)
        with open(os.path.join(fake, "VERSION"), "w") as f:
            f.write(other + "\n")
        res = subprocess.run(["meson", "setup", os.path.join(tmp, "build"), REPO,
                              "-Ddpdk_sdk=" + fake], capture_output=True, text=True)
        assert res.returncode != 0, "meson accepted SDK headers of DPDK %s" % other
        assert "SDK headers in %s are version %s but the installed DPDK is %s" % (
            fake, other, installed) in res.stdout + res.stderr, res.stdout + res.stderr
        with open(os.path.join(fake, "VERSION"), "w") as f:
            f.write(_series(installed) + ".99\n")
        res = subprocess.run(["meson", "setup", os.path.join(tmp, "build2"), REPO,
                              "-Ddpdk_sdk=" + fake], capture_output=True, text=True)
        assert res.returncode == 0, res.stdout + res.stderr


def test_unsupported_dpdk_release_stops_the_build():
    """A DPDK release refnic is not built for (here a libdpdk.pc that says
    23.11, Ubuntu 24.04's): meson stops and names the supported ones."""
    sdk = env_path("REFNIC_SDK")
    with tempfile.TemporaryDirectory() as tmp:
        pcdir = os.path.join(tmp, "pkgconfig")
        os.mkdir(pcdir)
        with open(os.path.join(pcdir, "libdpdk.pc"), "w") as f:
            f.write("Name: DPDK\nDescription: a release refnic does not support\n"
                    "Version: 23.11.1\nLibs: -lrte_eal\nCflags: -I/usr/include/dpdk\n")
        env = dict(os.environ, PKG_CONFIG_PATH=pcdir)
        res = subprocess.run(["meson", "setup", os.path.join(tmp, "build"), REPO,
                              "-Ddpdk_sdk=" + sdk], capture_output=True, text=True, env=env)
    out = res.stdout + res.stderr
    assert res.returncode != 0, "meson accepted DPDK 23.11"
    assert ("DPDK 23.11.1 is not a supported release: refnic builds against "
            "DPDK 22.11, 24.11, 25.11") in out, out


def _stage_sdk(tree):
    """setup.sh's stage_sdk with REFNIC_DPDK_SRC=tree, in a scratch cache."""
    with tempfile.TemporaryDirectory() as cache:
        script = 'source "$0/devtools/setup.sh" && stage_sdk'
        env = dict(os.environ, REFNIC_DPDK_SRC=tree, REFNIC_CACHE=cache)
        return subprocess.run(["bash", "-c", script, REPO], capture_output=True, text=True,
                              env=env)


def test_dpdk_src_tree_is_checked():
    """REFNIC_DPDK_SRC names the tree the SDK files come from: one of
    another series, or not a DPDK tree, is one clear error saying what to
    set; a tree of the installed series is staged."""
    sdk = env_path("REFNIC_SDK")
    installed = _installed_dpdk()
    with tempfile.TemporaryDirectory() as tmp:
        res = _stage_sdk(tmp)
        assert res.returncode != 0
        assert "REFNIC_DPDK_SRC=%s is not a DPDK source tree" % tmp in res.stderr, res.stderr
        # A tree laid out as DPDK's, from the staged SDK.
        paths = {"include/ethdev_driver.h": "lib/ethdev/ethdev_driver.h",
                 "include/ethdev_vdev.h": "lib/ethdev/ethdev_vdev.h",
                 "include/bus_vdev_driver.h": "drivers/bus/vdev/bus_vdev_driver.h",
                 "include/dev_driver.h": "lib/eal/include/dev_driver.h",
                 "include/bus_driver.h": "lib/eal/include/bus_driver.h",
                 "buildtools/gen-pmdinfo-cfile.py": "buildtools/gen-pmdinfo-cfile.py",
                 "buildtools/pmdinfogen.py": "buildtools/pmdinfogen.py",
                 "buildtools/coff.py": "buildtools/coff.py",
                 "ABI_VERSION": "ABI_VERSION"}
        for staged, at in paths.items():
            os.makedirs(os.path.dirname(os.path.join(tmp, at)), exist_ok=True)
            shutil.copy(os.path.join(sdk, staged), os.path.join(tmp, at))
        with open(os.path.join(tmp, "VERSION"), "w") as f:
            f.write("21.11.9\n")
        res = _stage_sdk(tmp)
        assert res.returncode != 0
        assert ("REFNIC_DPDK_SRC=%s is DPDK 21.11.9 but the installed DPDK is %s: set "
                "REFNIC_DPDK_SRC to a DPDK %s source tree" % (tmp, installed, _series(installed))
                ) in res.stderr, res.stderr
        with open(os.path.join(tmp, "VERSION"), "w") as f:
            f.write(_series(installed) + ".99\n")
        res = _stage_sdk(tmp)
        assert res.returncode == 0, res.stderr
        assert "/dpdk-sdk-tree-%s.99-" % _series(installed) in res.stdout, res.stdout

"""The Debian package as a user meets it: dpdk-pmd-refnic built from the
tree's debian/ with dpkg-buildpackage, installed with apt-get; then stock
dpdk-testpmd finds net_refnic with no -d and forwards on it, a program built
with `pkg-config --cflags --libs refnic` calls the PMD's API, the apps run
from /usr/bin; and apt-get purge leaves nothing of the package on disk.

While the package is installed, EAL loads its PMD in every DPDK process,
and the other tests load their own build with -d: two net_refnic drivers
would clash. So it is never left installed: purged at the start if an
earlier run left it, purged at the end whatever happened, and, should this
process be killed outright, purged by a guard process that outlives it.

Runs as root only (it installs a package), where DPDK is Debian's.
"""

import contextlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

import pytest

from helpers import (PMD_NAME, REPO, build_pmd_api_app, check_pmd_api_app,
                     eal_plugin_dir, run_traffic)
from testpmd import TestPmd, TestPmdExited

PACKAGE = "dpdk-pmd-refnic"
APT = ["apt-get", "-y", "-q", "-o", "DPkg::Lock::Timeout=300"]
# Does dpkg know the package as anything but gone?
STATUS = ["dpkg-query", "-W", "-f", "${db:Status-Status}", PACKAGE]

# Waits for its stdin to close, which happens when the test ends or its
# process dies however it dies, then purges the package if it is still
# there and removes the test's directory (argv[1]). In a session of its
# own: a signal to the test's process group (timeout, Ctrl-C) does not
# reach it.
GUARD = r"""
import shutil, signal, subprocess, sys
for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
    signal.signal(sig, signal.SIG_IGN)
sys.stdin.read()
status = subprocess.run(%r, capture_output=True, text=True).stdout.strip()
if status not in ("", "not-installed"):
    subprocess.run(%r + ["purge", %r], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
shutil.rmtree(sys.argv[1], ignore_errors=True)
""" % (STATUS, APT, PACKAGE)


def installed():
    res = subprocess.run(STATUS, capture_output=True, text=True)
    return res.returncode == 0 and res.stdout.strip() not in ("", "not-installed")


def purge():
    res = subprocess.run(APT + ["purge", PACKAGE], capture_output=True, text=True)
    assert res.returncode == 0 and not installed(), res.stdout + res.stderr


@contextlib.contextmanager
def never_left_installed(workdir):
    guard = subprocess.Popen([sys.executable, "-c", GUARD, workdir], stdin=subprocess.PIPE,
                             start_new_session=True)
    try:
        if installed():
            purge()     # left by a run killed together with its guard
        yield
    finally:
        try:
            if installed():
                purge()
        finally:
            guard.stdin.close()
            guard.wait(timeout=600)


def project_version():
    with open(os.path.join(REPO, "meson.build")) as f:
        return re.search(r"^\s*version:\s*'([^']+)'", f.read(), re.M).group(1)


def copy_tree(dest):
    """The checkout as it is, edits included, without VCS data and builds:
    dpkg-buildpackage writes into its source directory and beside it."""
    def ignore(path, names):
        if os.path.samefile(path, REPO):
            return [n for n in names if n == ".git" or n.startswith(("build", "obj-"))]
        return [n for n in names if n == "__pycache__"]
    shutil.copytree(REPO, dest, ignore=ignore, symlinks=True)


def build_package(workdir, measured):
    src = os.path.join(workdir, "refnic-" + project_version())
    copy_tree(src)
    env = dict(os.environ, DEB_BUILD_OPTIONS="nocheck noddebs")
    if os.environ.get("REFNIC_SDK"):
        env["REFNIC_DPDK_SDK"] = os.environ["REFNIC_SDK"]   # else debian/rules stages it
    start = time.monotonic()
    res = subprocess.run(["dpkg-buildpackage", "-us", "-uc", "-b"], cwd=src, env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                         timeout=1500)
    measured("dpkg-buildpackage took %.0f s" % (time.monotonic() - start))
    assert res.returncode == 0, res.stdout[-6000:]
    deb = os.path.join(workdir, "%s_%s_%s.deb" % (PACKAGE, project_version(), deb_arch()))
    assert os.path.isfile(deb), "no %s; %s holds %s" % (deb, workdir, os.listdir(workdir))
    return deb


def deb_arch():
    return subprocess.run(["dpkg", "--print-architecture"], check=True, capture_output=True,
                          text=True).stdout.strip()


def output(argv, **kwargs):
    res = subprocess.run(argv, capture_output=True, text=True, timeout=60, **kwargs)
    assert res.returncode == 0, (argv, res.stdout + res.stderr)
    return res.stdout


def owners(path):
    """The installed packages that hold path (dpkg -S), without :arch."""
    res = subprocess.run(["dpkg-query", "-S", path], capture_output=True, text=True)
    if res.returncode != 0:
        return set()
    names = res.stdout.rsplit(": ", 1)[0]
    return {name.strip().split(":")[0] for name in names.split(",")}


def resolved_libs(binary):
    """{soname: path} as the dynamic loader resolves binary's libraries."""
    out = output(["ldd", binary])
    assert "not found" not in out, out
    return dict(re.findall(r"^\s*(\S+) => (/\S+)", out, re.M))


def assert_no_refnic_driver():
    """Stock testpmd without -d knows no net_refnic."""
    with pytest.raises(TestPmdExited) as exc:
        with TestPmd(["net_refnic0,cable=loopback"], plugins=[]):
            pass
    assert re.search(r"parse device.*net_refnic0", exc.value.output), exc.value.output


def check_depends(deb, plugin):
    """Depends names the packages of this release's DPDK the PMD links."""
    version = output(["dpkg-deb", "-f", deb, "Version"]).strip()
    assert version == project_version(), version
    field = output(["dpkg-deb", "-f", deb, "Depends"])
    depends = {d.split()[0] for d in field.split(",") if d.strip()}
    needed = re.findall(r"\(NEEDED\).*\[(.+)\]", output(["readelf", "-d", plugin]))
    dpdk = {lib: path for lib, path in resolved_libs(plugin).items()
            if lib in needed and lib.startswith("librte_")}
    assert "librte_ethdev.so" in " ".join(dpdk), dpdk
    for lib, path in dpdk.items():
        pkgs = owners(os.path.realpath(path))
        assert pkgs and pkgs <= depends, "%s (%s) is not in Depends: %s" % (lib, pkgs, depends)


def check_testpmd_forwards(plugin):
    """Stock testpmd, no -d: EAL loads the package's PMD, a loopback port
    forwards, and its own counters match testpmd's forward stats."""
    with TestPmd(["net_refnic0,cable=loopback"], plugins=[]) as tp:
        assert tp.port_info(0).get("Driver name") == "net_refnic", tp.startup
        with open("/proc/%d/maps" % tp.proc.pid) as f:
            assert plugin in f.read(), "testpmd did not load %s" % plugin
        tp.cmd("clear port stats all", check=True)
        fwd = run_traffic(tp, {0: 0})
        stats = tp.port_stats(0)
        assert stats["TX-packets"] == stats["RX-packets"] == fwd[0]["TX-packets"] > 0, \
            (stats, fwd)


def check_fwd_app(plugin):
    """/usr/bin/refnic-fwd runs on the installed PMD: 1000 frames sent
    from one port of a pair, 1000 received on the other."""
    prefix = "pkgfwd%d" % os.getpid()
    try:
        out = output(["/usr/bin/refnic-fwd", "-l", "0-1", "--no-huge", "-m", "512",
                      "--no-pci", "--no-shconf", "--no-telemetry", "--file-prefix=" + prefix,
                      "--log-level=warning", "--vdev", "net_refnic0,cable=pkgpair",
                      "--vdev", "net_refnic1,cable=pkgpair", "--", "--mode", "rxonly",
                      "--port-mode", "0,txonly", "--count", "1000", "--rxd", "4096",
                      "--duration", "1", "--stats-period", "0", "--json"],
                     start_new_session=True)
    finally:
        shutil.rmtree(os.path.join("/var/run/dpdk", prefix), ignore_errors=True)
    counts = {p["port"]: (p["tx_packets"], p["rx_packets"]) for p in json.loads(out)["ports"]}
    assert counts == {0: (1000, 0), 1: (0, 1000)}, out


def check_purged(files):
    """Every path the package listed is gone, but directories other
    packages hold too; and no DPDK process finds net_refnic any more."""
    left = [path for path in files
            if os.path.normpath(path) != "/" and os.path.lexists(path) and
            not (os.path.isdir(path) and not os.path.islink(path) and owners(path))]
    assert not left, "left on disk after purge: %s" % left
    assert_no_refnic_driver()


def test_package_install_use_purge(measured):
    if os.geteuid() != 0:
        pytest.skip("installs a package: root only")
    if not shutil.which("dpkg-buildpackage") or not shutil.which("dh"):
        pytest.skip("needs dpkg-dev and debhelper (./devtools/setup.sh installs them)")
    if not owners("/usr/include/dpdk/rte_ethdev.h"):
        pytest.skip("DPDK is not Debian's libdpdk-dev here")
    plugin = os.path.join(eal_plugin_dir(), PMD_NAME)
    workdir = tempfile.mkdtemp(prefix="refnic-package-")
    os.chmod(workdir, 0o755)    # apt reads the .deb as _apt
    try:
        with never_left_installed(workdir):
            assert_no_refnic_driver()   # the control: before, testpmd has none
            deb = build_package(workdir, measured)
            res = subprocess.run(APT + ["install", deb],
                                 capture_output=True, text=True)
            assert res.returncode == 0, res.stdout + res.stderr
            files = output(["dpkg-query", "-L", PACKAGE]).splitlines()

            pc = output(["pkg-config", "--path", "refnic"]).strip()
            flags = output(["pkg-config", "--cflags", "--libs", "refnic"]).split()
            headers = [h for h in (os.path.join(f[2:], "rte_pmd_refnic.h")
                                   for f in flags if f.startswith("-I")) if os.path.isfile(h)]
            assert len(headers) == 1, flags
            header = headers[0]
            for path in (plugin, pc, header, "/usr/bin/refnic-fwd", "/usr/bin/refnic-pingpong"):
                assert path in files, "%s is not the package's: %s" % (path, files)
            assert output(["pkg-config", "--variable=pmddir", "refnic"]).strip() == \
                os.path.dirname(plugin)
            check_depends(deb, plugin)

            check_testpmd_forwards(plugin)
            app = build_pmd_api_app(workdir, flags)
            for binary in (app, "/usr/bin/refnic-fwd", "/usr/bin/refnic-pingpong"):
                assert resolved_libs(binary).get(PMD_NAME) == plugin, binary
            check_pmd_api_app(app)
            check_fwd_app(plugin)

            purge()
            check_purged(files)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)

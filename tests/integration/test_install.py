"""`meson install` as an application developer meets it: the PMD in EAL's
plugin directory, rte_pmd_refnic.h and refnic.pc where pkg-config finds
them, and a program built with `pkg-config --cflags --libs refnic` calling
the PMD's own API (rte_pmd_refnic.h) on a refnic port.

Installed into a staging directory (--destdir), never onto the machine; the
staged refnic.pc is read the way a sysroot is, its paths moved under it.
"""

import json
import os
import re
import shutil
import subprocess
import tempfile

import pytest

from helpers import PMD_NAME, build_pmd_api_app, check_pmd_api_app, eal_plugin_dir, env_path


def install_dirs(build):
    """prefix, libdir and includedir of the build, as meson installs them."""
    res = subprocess.run(["meson", "introspect", build, "--buildoptions"],
                         check=True, capture_output=True, text=True)
    opts = {o["name"]: o["value"] for o in json.loads(res.stdout)}
    prefix = opts["prefix"]
    return prefix, os.path.join(prefix, opts["libdir"]), os.path.join(prefix, opts["includedir"])


def sysroot_pc(text, root):
    """A .pc file as seen from a sysroot: every absolute path variable under root."""
    return re.sub(r"^(\w+)=(/.*)$", lambda m: "%s=%s%s" % (m.group(1), root, m.group(2)),
                  text, flags=re.M)


def listing(root):
    return "\n".join(os.path.join(d, f) for d, _, files in os.walk(root) for f in files)


def test_install_then_build_and_run_an_app_with_pkg_config():
    build = env_path("REFNIC_BUILD")
    pmd = env_path("REFNIC_PMD")
    if shutil.which("pkg-config") is None:
        pytest.skip("needs pkg-config")
    # EAL refuses plugins below world-writable directories (/tmp): stage
    # beside the PMD that devtools/test.sh staged.
    dest = tempfile.mkdtemp(dir=os.path.dirname(pmd), prefix="install-")
    try:
        res = subprocess.run(["meson", "install", "-C", build, "--destdir", dest, "--quiet"],
                             capture_output=True, text=True)
        assert res.returncode == 0, res.stdout + res.stderr
        _, libdir, includedir = install_dirs(build)
        plugin = dest + os.path.join(eal_plugin_dir(), PMD_NAME)
        header = dest + os.path.join(includedir, "refnic", "rte_pmd_refnic.h")
        pc = dest + os.path.join(libdir, "pkgconfig", "refnic.pc")
        for path in (plugin, header, pc):
            assert os.path.isfile(path), "%s not installed; installed:\n%s" % (path, listing(dest))

        # Installed, refnic.pc names EAL's plugin directory as the PMD's.
        env = dict(os.environ, PKG_CONFIG_PATH=os.path.dirname(pc))
        res = subprocess.run(["pkg-config", "--variable=pmddir", "refnic"], env=env,
                             capture_output=True, text=True)
        assert res.stdout.strip() == eal_plugin_dir(), res.stdout + res.stderr

        staged_pc = os.path.join(dest, "pkgconfig")
        os.mkdir(staged_pc)
        with open(pc) as src, open(os.path.join(staged_pc, "refnic.pc"), "w") as dst:
            dst.write(sysroot_pc(src.read(), dest))
        env = dict(os.environ, PKG_CONFIG_PATH=staged_pc)
        res = subprocess.run(["pkg-config", "--cflags", "--libs", "refnic"], env=env,
                             capture_output=True, text=True)
        assert res.returncode == 0, res.stdout + res.stderr
        flags = res.stdout.split()
        assert "-I" + os.path.dirname(header) in flags and "-lrte_net_refnic" in flags, flags
        assert "-lrte_ethdev" in flags, flags   # Requires: libdpdk

        app = build_pmd_api_app(dest, flags)
        # The PMD the program links is the one in the plugin directory.
        res = subprocess.run(["ldd", app], capture_output=True, text=True)
        assert "%s => %s" % (PMD_NAME, plugin) in res.stdout, res.stdout
        check_pmd_api_app(app, ["-d", plugin])
    finally:
        shutil.rmtree(dest, ignore_errors=True)

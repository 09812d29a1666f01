"""`meson install` as an application developer meets it: the PMD in EAL's
plugin directory, rte_pmd_refnic.h and refnic.pc where pkg-config finds
them, and a program built with `pkg-config --cflags --libs refnic` calling
the PMD's own API (rte_pmd_refnic.h) on a refnic port.

Installed into a staging directory (--destdir), never onto the machine; the
staged refnic.pc is read the way a sysroot is, its paths moved under it.
"""

import errno
import json
import os
import re
import shutil
import subprocess
import tempfile

import pytest

from helpers import PMD_NAME, eal_plugin_dir, env_path

# A user's program: the moderation API on a refnic port, and what it says
# about a port that is not one, a queue that does not exist, a bad value.
APP = r"""
#include <stdio.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_pmd_refnic.h>

int
main(int argc, char **argv)
{
	struct rte_eth_conf conf;
	struct rte_mempool *mp;
	uint16_t port, other;
	uint32_t us = 0;
	int ret;

	if (rte_eal_init(argc, argv) < 0)
		return 1;
	if (rte_eth_dev_get_port_by_name("net_refnic0", &port) != 0 ||
	    rte_eth_dev_get_port_by_name("net_null0", &other) != 0)
		return 2;
	mp = rte_pktmbuf_pool_create("app_pool", 1024, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
				     rte_socket_id());
	memset(&conf, 0, sizeof(conf));
	if (mp == NULL || rte_eth_dev_configure(port, 1, 1, &conf) != 0 ||
	    rte_eth_rx_queue_setup(port, 0, 512, rte_socket_id(), NULL, mp) != 0 ||
	    rte_eth_tx_queue_setup(port, 0, 512, rte_socket_id(), NULL) != 0)
		return 3;
	ret = rte_pmd_refnic_rx_itr_get(port, 0, &us);
	printf("rx_itr_get %d %u\n", ret, us);
	printf("rx_itr_set %d\n", rte_pmd_refnic_rx_itr_set(port, 0, 120));
	ret = rte_pmd_refnic_rx_itr_get(port, 0, &us);
	printf("rx_itr_get %d %u\n", ret, us);
	printf("other_port %d\n", rte_pmd_refnic_rx_itr_get(other, 0, &us));
	printf("bad_queue %d\n", rte_pmd_refnic_rx_itr_get(port, 5, &us));
	printf("too_long %d\n", rte_pmd_refnic_rx_itr_set(port, 0, RTE_PMD_REFNIC_ITR_MAX_US + 1));
	rte_eth_dev_close(port);
	rte_eal_cleanup();
	return 0;
}
"""


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
    cc = shutil.which("cc")
    if cc is None or shutil.which("pkg-config") is None:
        pytest.skip("needs cc and pkg-config")
    # EAL refuses plugins below world-writable directories (/tmp): stage
    # beside the PMD that devtools/test.sh staged.
    dest = tempfile.mkdtemp(dir=os.path.dirname(pmd), prefix="install-")
    prefix_dir = "/var/run/dpdk/install%d" % os.getpid()
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

        app_c, app = os.path.join(dest, "app.c"), os.path.join(dest, "app")
        with open(app_c, "w") as f:
            f.write(APP)
        res = subprocess.run([cc, app_c, "-o", app] + flags, capture_output=True, text=True)
        assert res.returncode == 0, res.stdout + res.stderr
        # The PMD the program links is the one in the plugin directory.
        res = subprocess.run(["ldd", app], capture_output=True, text=True)
        assert "%s => %s" % (PMD_NAME, plugin) in res.stdout, res.stdout

        res = subprocess.run([app, "-l", "0", "--no-huge", "-m", "256", "--no-pci", "--no-shconf",
                              "--no-telemetry", "--file-prefix=" + os.path.basename(prefix_dir),
                              "-d", plugin, "--vdev", "net_refnic0,rx_itr_us=200",
                              "--vdev", "net_null0"],
                             capture_output=True, text=True, timeout=60)
        assert res.returncode == 0, res.stdout + res.stderr
        assert res.stdout.splitlines() == [
            "rx_itr_get 0 200",                 # the devarg
            "rx_itr_set 0",
            "rx_itr_get 0 120",                 # what the program set
            "other_port %d" % -errno.ENODEV,    # net_null0 is no refnic port
            "bad_queue %d" % -errno.EINVAL,
            "too_long %d" % -errno.EINVAL,
        ], res.stdout + res.stderr
    finally:
        shutil.rmtree(dest, ignore_errors=True)
        shutil.rmtree(prefix_dir, ignore_errors=True)

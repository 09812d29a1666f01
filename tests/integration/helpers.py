"""Helpers the integration tests share: where the PMD and the build are,
testpmd on refnic ports (one process, or a primary and a secondary),
forwarding runs that account for every packet, probe failures, link events,
telemetry and the private dump, testpmd's packet-type dump, the kernel as
the peer of two ports. Fixtures are in conftest.py; the testpmd driver is
testpmd.py.
"""

import contextlib
import errno
import glob
import itertools
import json
import os
import re
import shutil
import subprocess
import tempfile
import time

import pytest

from testpmd import TestPmd, TestPmdExited

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILT_PMD = os.path.join(REPO, "build", "drivers", "librte_net_refnic.so")

PAIR = ["net_refnic0,cable=itest", "net_refnic1,cable=itest"]
PAIR_PEERS = {0: 1, 1: 0}       # TX port -> the port that receives it
SETTLE_S = 10                   # bound on waiting for the device to deliver


def pmd_path():
    pmd = os.environ.get("REFNIC_PMD") or (BUILT_PMD if os.path.exists(BUILT_PMD) else None)
    if not pmd:
        pytest.skip("net_refnic PMD not found: set REFNIC_PMD or build %s" % BUILT_PMD)
    return pmd


def refnic(vdevs=PAIR, testpmd_args=()):
    """A testpmd, not started, on refnic ports; for tests that start and
    close it themselves (the fixtures in conftest.py start it for you)."""
    return TestPmd(vdevs, plugins=[pmd_path()], testpmd_args=testpmd_args)


BURST = 32                      # testpmd's default burst, what tx_first sends per port


def cpu_has(flag):
    """Does this machine's CPU list flag (avx2, sse4_2) in /proc/cpuinfo?"""
    with open("/proc/cpuinfo") as f:
        return any(flag in line.split() for line in f if line.startswith("flags"))


def default_vector():
    """The bursts simd=auto runs here, with EAL's SIMD limit at its x86
    default of 256 bits: AVX2 where the CPU has it, else SSE."""
    return "Vector AVX2" if cpu_has("avx2") else "Vector SSE"


def delivered(fwd, peers):
    """Every packet a port sent was received, or counted missed, by its peer."""
    return all(fwd[tx]["TX-packets"] == fwd[rx]["RX-packets"] + fwd[rx]["RX-dropped"]
               for tx, rx in peers.items())


def run_traffic(tp, peers):
    """start tx_first, stop; return forward stats once the device has settled.

    The device works beside the driver, so frames handed to it just before
    'stop' may still be on the cable: 'show fwd stats all' is read again
    until they have arrived, within SETTLE_S. Then, as the net_ring baseline
    asks: nothing lost, neither missed by the receiving port ('RX-dropped'
    in forward stats is the port's RX-missed) nor refused by the sending
    one, so every packet a port sent is one its peer received.
    """
    tp.cmd("start tx_first", check=True)
    time.sleep(1)
    fwd = tp.stop()
    for port in peers:
        assert fwd[port]["TX-packets"] > 0 and fwd[port]["RX-packets"] > 0, fwd
    deadline = time.monotonic() + SETTLE_S
    while not delivered(fwd, peers) and time.monotonic() < deadline:
        time.sleep(0.1)
        fwd = tp.fwd_stats()
    assert delivered(fwd, peers), "TX != peer RX + RX-missed: %s" % fwd
    for tx, rx in peers.items():
        assert fwd[rx]["RX-dropped"] == 0 and fwd[tx]["TX-dropped"] == 0, \
            "frames lost: %s" % fwd
        assert fwd[tx]["TX-packets"] == fwd[rx]["RX-packets"], fwd
    return fwd


def probe_fails(devarg, key):
    """A bad devarg fails the probe with a line naming it, and nothing crashes."""
    tp = refnic([devarg])
    try:
        with tp:
            assert "Invalid port 0" in tp.cmd("show port info 0"), \
                "net_refnic0 probed despite %r" % devarg
    except TestPmdExited:
        pass  # exiting on a failed probe is fine, dying by a signal is not
    output = tp.transcript.replace("\r", "")
    assert tp.returncode >= 0, "testpmd died by signal %d:\n%s" % (-tp.returncode, output)
    assert "failed to initialize net_refnic0" in output, output
    assert [line for line in output.splitlines() if key in line], \
        "no error line names %r:\n%s" % (key, output)


# Build and install.

PMD_NAME = "librte_net_refnic.so"


def env_path(name):
    path = os.environ.get(name)
    if not path or not os.path.exists(path):
        pytest.skip("%s is not set; run through devtools/test.sh" % name)
    return path


def eal_plugin_dir():
    """The directory EAL loads plugins from by default, as compiled into it."""
    libs = glob.glob("/usr/lib/*/librte_eal.so.*") + glob.glob("/usr/lib/librte_eal.so.*")
    for lib in libs:
        with open(lib, "rb") as f:
            m = re.search(rb"DPDK_PLUGIN_PATH=([^\0]+)", f.read())
        if m:
            return m.group(1).decode()
    pytest.skip("cannot find DPDK_PLUGIN_PATH in librte_eal")


def built(relpath):
    """A program of the build devtools/test.sh names (REFNIC_BUILD), e.g.
    "app/refnic-pingpong"; skips without it."""
    build = os.environ.get("REFNIC_BUILD")
    path = os.path.join(build or "", relpath)
    if not build or not os.access(path, os.X_OK):
        pytest.skip("no %s: REFNIC_BUILD is not set; run through devtools/test.sh"
                    % os.path.basename(relpath))
    return path


def dpdk_series():
    """The installed DPDK's LTS series: "22.11", "24.11", ..."""
    version = subprocess.run(["pkg-config", "--modversion", "libdpdk"], capture_output=True,
                             text=True, check=True).stdout.strip()
    return ".".join(version.split(".")[:2])


def build_has_rte_flow():
    """Whether the build (REFNIC_BUILD, else build/) gave the port rte_flow:
    not where the DPDK driver SDK lacked rte_flow_driver.h (25.11's)."""
    build = os.environ.get("REFNIC_BUILD") or os.path.join(REPO, "build")
    with open(os.path.join(build, "drivers", "net", "refnic", "refnic_config.h")) as f:
        return re.search(r"^#define REFNIC_HAVE_RTE_FLOW 1$", f.read(), re.M) is not None


@contextlib.contextmanager
def installed_pmd(pmd):
    """A command prefix (a wrapper for TestPmd, or argv's head) under which
    EAL finds the PMD in its plugin directory, as after an installation,
    with no -d. The system's directory is not touched: the prefix runs its
    command in a private mount namespace with a copy of the directory, plus
    the PMD, laid over it. Skips without root and unshare."""
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
        yield ["unshare", "-m", "sh", "-c", script, stage, plugin_dir]
    finally:
        shutil.rmtree(stage)


# A user's program: the moderation API on a refnic port, and what it says
# about a port that is not one, a queue that does not exist, a bad value.
PMD_API_APP = r"""
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


def build_pmd_api_app(workdir, flags):
    """PMD_API_APP compiled in workdir with flags (pkg-config's for refnic);
    returns the program's path."""
    cc = shutil.which("cc")
    if cc is None:
        pytest.skip("needs cc")
    src, app = os.path.join(workdir, "app.c"), os.path.join(workdir, "app")
    with open(src, "w") as f:
        f.write(PMD_API_APP)
    res = subprocess.run([cc, src, "-o", app] + flags, capture_output=True, text=True)
    assert res.returncode == 0, res.stdout + res.stderr
    return app


def check_pmd_api_app(app, eal_args=()):
    """Run PMD_API_APP on net_refnic0,rx_itr_us=200 and net_null0: every
    call returns what rte_pmd_refnic.h says it does."""
    prefix = "pmdapi%d_%d" % (os.getpid(), next(_seq))
    try:
        res = subprocess.run([app, "-l", "0", "--no-huge", "-m", "256", "--no-pci",
                              "--no-shconf", "--no-telemetry", "--file-prefix=" + prefix] +
                             list(eal_args) + ["--vdev", "net_refnic0,rx_itr_us=200",
                                               "--vdev", "net_null0"],
                             capture_output=True, text=True, timeout=60)
    finally:
        shutil.rmtree(os.path.join("/var/run/dpdk", prefix), ignore_errors=True)
    assert res.returncode == 0, res.stdout + res.stderr
    assert res.stdout.splitlines() == [
        "rx_itr_get 0 200",                 # the devarg
        "rx_itr_set 0",
        "rx_itr_get 0 120",                 # what the program set
        "other_port %d" % -errno.ENODEV,    # net_null0 is no refnic port
        "bad_queue %d" % -errno.EINVAL,
        "too_long %d" % -errno.EINVAL,
    ], res.stdout + res.stderr


# Link state changes as testpmd reports them.

def lsc_events(tp, port):
    return len(re.findall(r"Port %d: link state change event" % port, tp.transcript))


def wait_link(tp, port, status, events):
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if tp.port_info(port).get("Link status") == status and lsc_events(tp, port) >= events:
            return
        time.sleep(0.1)
    raise AssertionError("port %d: link %s, %d LSC events; wanted %s after %d" % (
        port, tp.port_info(port).get("Link status"), lsc_events(tp, port), status, events))


# Telemetry.

def telemetry(tp, *commands):
    """tp.telemetry(*commands), skipped where dpdk-telemetry.py is missing."""
    if shutil.which("dpdk-telemetry.py") is None:
        pytest.skip("dpdk-telemetry.py is not installed (Debian: dpdk)")
    return tp.telemetry(*commands)


def dump_priv(tp, port):
    tool = shutil.which("dpdk-telemetry.py")
    if tool is None:
        pytest.skip("dpdk-telemetry.py is not installed (Debian: dpdk)")
    res = subprocess.run([tool, "-f", tp.file_prefix], input="/ethdev/dump_priv,%d\n" % port,
                         capture_output=True, text=True, timeout=30)
    assert res.returncode == 0, res.stdout + res.stderr
    m = re.search(r'^\{"/ethdev/dump_priv": .*$', res.stdout, re.M)
    assert m, res.stdout + res.stderr
    return json.loads(m.group(0))["/ethdev/dump_priv"]


# testpmd's verbose dump: "port 0/queue 0: received 32 packets", then per
# packet "... - nb_segs=1 - hw ptype: L2_ETHER L3_IPV4_EXT_UNKNOWN L4_UDP  -
# sw ptype: ...", without the hw part when the packet type is unknown (0).
_RX_BLOCK = re.compile(r"port (\d+)/queue \d+: received \d+ packets")
_HW_PTYPE = re.compile(r" - nb_segs=\d+(?: - hw ptype: (.*?) )? - sw ptype: (.*?)  - ")


def received_ptypes(text):
    """{port: [(hw ptype, sw ptype), ...]} from testpmd's verbose dump."""
    got, port = {}, None
    for line in text.splitlines():
        block = _RX_BLOCK.search(line)
        if block:
            port = int(block.group(1))
        ptype = _HW_PTYPE.search(line)
        if ptype and port is not None:
            got.setdefault(port, []).append((ptype.group(1) or "UNKNOWN", ptype.group(2)))
    return got


# The kernel as the peer: two refnic ports on TAP interfaces, each in a
# network namespace of its own.

def run(argv, timeout=30, **kw):
    """argv run to its end within timeout s, its output and errors together."""
    return subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, timeout=timeout, **kw)


def must(argv, timeout=30):
    """run() that must succeed; its output."""
    r = run(argv, timeout)
    assert r.returncode == 0, (argv, r.stdout)
    return r.stdout


def netns_make(ns):
    """Network namespace ns, lo up, IPv6 off (no router solicitations in
    its counts); False if this machine forbids namespaces."""
    ip = shutil.which("ip")
    if run([ip, "netns", "add", ns]).returncode != 0:
        return False
    try:
        for key in ("all", "default"):
            must([ip, "netns", "exec", ns, "sysctl", "-qw",
                  "net.ipv6.conf.%s.disable_ipv6=1" % key])
        must([ip, "-n", ns, "link", "set", "lo", "up"])
    except BaseException:
        run([ip, "netns", "del", ns])
        raise
    return True


def wait_until(fn, ok, timeout=20.0):
    """fn() until ok(value), or the last value after timeout: counts, not time."""
    deadline = time.monotonic() + timeout
    while True:
        v = fn()
        if ok(v) or time.monotonic() > deadline:
            return v
        time.sleep(0.1)


def netns_snmp(ip, ns, v6=False):
    """The namespace's /proc/net/snmp counters, {("Tcp", "InSegs"): n, ...},
    with v6 also /proc/net/snmp6's Ip6 ones as ("Ip6", "InHdrErrors")."""
    counters = {}
    out = run([ip, "netns", "exec", ns, "cat", "/proc/net/snmp"]).stdout.splitlines()
    for names, values in zip(out[::2], out[1::2]):
        proto = names.split(":")[0]
        for name, value in zip(names.split()[1:], values.split()[1:]):
            counters[(proto, name)] = int(value)
    if v6:
        out = run([ip, "netns", "exec", ns, "cat", "/proc/net/snmp6"]).stdout
        counters.update((("Ip6", k[3:]), int(v))
                        for k, v in re.findall(r"^(Ip6\w+)\s+(\d+)$", out, re.M))
    return counters


class KernelPeers:
    """What kernel_peers() set up: ip, the path of iproute2's ip; tp, the
    testpmd; ns[i], ifs[i], addr[i], macs[i]: port i's namespace, TAP
    interface, and the kernel's address and MAC on it."""

    def __init__(self, ip, tp, ns, ifs, addr, macs):
        self.ip, self.tp, self.ns, self.ifs, self.addr, self.macs = ip, tp, ns, ifs, addr, macs


@contextlib.contextmanager
def kernel_peers(refnic_testpmd, tag, addr, macs, far_mac, v6=False, mtu=None, queues=1):
    """A testpmd whose refnic ports 0 and 1 are wired to TAP interfaces,
    each moved into a network namespace of its own ("refnic-<tag><pid>a"
    and "...b") with address addr[i] (/24, or /64 with v6, no DAD), MAC
    macs[i], the MTU if one is given, up. testpmd sends what a port
    forwards to the kernel on it (--eth-peer), and each kernel reaches the
    other's address through its TAP at far_mac: what it sends goes through
    the refnic ports; each port has queues RX and TX queues. Skips where TAP
    devices or namespaces are not to be had; the namespaces are deleted on
    the way out."""
    ip = shutil.which("ip")
    if not os.path.exists("/dev/net/tun") or ip is None:
        pytest.skip("needs /dev/net/tun and iproute2's ip")
    pid = os.getpid() % 100000
    ns = ["refnic-%s%da" % (tag, pid), "refnic-%s%db" % (tag, pid)]
    ifs = ["rf%s%da" % (tag, pid), "rf%s%db" % (tag, pid)]
    fam, plen = ("-6", "64") if v6 else ("-4", "24")
    if run([ip, "netns", "add", ns[0]]).returncode != 0:
        pytest.skip("this machine forbids network namespaces")
    run([ip, "netns", "add", ns[1]])
    try:
        tp = refnic_testpmd(["net_refnic0,cable=tap:" + ifs[0],
                             "net_refnic1,cable=tap:" + ifs[1]],
                            testpmd_args=["--eth-peer=0,%s" % macs[0],
                                          "--eth-peer=1,%s" % macs[1],
                                          "--rxq=%d" % queues, "--txq=%d" % queues])
        for i in (0, 1):
            link = [ip, "-n", ns[i], "link", "set", ifs[i]]
            steps = [[ip, "link", "set", ifs[i], "netns", ns[i]], link + ["address", macs[i]]]
            if mtu is not None:
                steps.append(link + ["mtu", str(mtu)])
            steps += [[ip, "-n", ns[i], fam, "addr", "add", addr[i] + "/" + plen, "dev", ifs[i]] +
                      (["nodad"] if v6 else []),
                      link + ["up"],
                      # The other side's address is behind the refnic ports.
                      [ip, "-n", ns[i], fam, "neigh", "add", addr[1 - i], "lladdr", far_mac,
                       "dev", ifs[i]]]
            for argv in steps:
                r = run(argv)
                assert r.returncode == 0, (argv, r.stdout)
        yield KernelPeers(ip, tp, ns, ifs, addr, macs)
    finally:
        for n in ns:
            run([ip, "netns", "del", n])


# Two processes.

_seq = itertools.count()


def _pair(refnic_pmd, devargs="", telemetry=False):
    """A primary testpmd on a wired refnic pair and a secondary on its ports,
    each forwarding on its half of two queue pairs; not started."""
    prefix = "mptest%d_%d" % (os.getpid(), next(_seq))
    common = ["--rxq=2", "--txq=2", "--num-procs=2", "--txonly-multi-flow"]
    vdevs = [v + devargs for v in PAIR]
    primary = TestPmd(vdevs, testpmd_args=common + ["--proc-id=0"], plugins=[refnic_pmd],
                      proc_type="primary", file_prefix=prefix, telemetry=telemetry)
    secondary = TestPmd([], testpmd_args=common + ["--proc-id=1"], plugins=[refnic_pmd],
                        proc_type="secondary", file_prefix=prefix)
    return primary, secondary

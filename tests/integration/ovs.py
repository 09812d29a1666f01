"""A private Open vSwitch for a test: its own ovsdb-server and ovs-vswitchd,
their database, sockets, pid files and logs in one directory the test owns,
never the system's service (/var/run/openvswitch stays untouched).

    with PrivateOvs(rundir, netns) as ovs:
        ovs.vsctl("add-br", "br0", "--", "set", "bridge", "br0", "datapath_type=netdev")
        ovs.appctl("ovs/route/show")

ovs-vswitchd runs inside the network namespace NETNS (`ip netns exec`), so
the ports it opens and the internal ports it makes (TAPs, with the
userspace datapath) are that namespace's, and so are the kernel routes it
caches for its tunnels. Both daemons are started in the foreground of
their own processes and killed by pid when the test ends, even if it fails.
"""

import ctypes
import os
import shutil
import signal
import subprocess
import time

import pytest

SCHEMA_DIRS = ("/usr/share/openvswitch",)
_libc = ctypes.CDLL(None, use_errno=True)
_PR_SET_PDEATHSIG = 1


def _die_with_parent():
    # If the test run dies, even by SIGKILL, the kernel ends the daemons too.
    _libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)


TOOLS = ("ovsdb-tool", "ovsdb-server", "ovs-vswitchd", "ovs-vsctl", "ovs-appctl")


def _schema():
    for d in SCHEMA_DIRS:
        path = os.path.join(d, "vswitch.ovsschema")
        if os.path.exists(path):
            return path
    return None


def ovs_missing():
    """Why OVS cannot run here, or None."""
    missing = [t for t in TOOLS if shutil.which(t) is None]
    if missing or _schema() is None:
        return ("needs Open vSwitch (Debian's openvswitch-switch: devtools/setup.sh "
                "installs it); missing: %s" % " ".join(missing or ["vswitch.ovsschema"]))
    return None


class PrivateOvs:
    def __init__(self, rundir, netns):
        why = ovs_missing()
        if why:
            pytest.skip(why)
        self.dir = rundir
        self.netns = netns
        self.db = "unix:" + os.path.join(rundir, "db.sock")
        self.ctl = os.path.join(rundir, "ovs-vswitchd.ctl")
        self.procs = []
        # The tools find their defaults (rundir, logs, the system database)
        # from these: every one points into the test's directory.
        self.env = dict(os.environ, OVS_RUNDIR=rundir, OVS_DBDIR=rundir, OVS_LOGDIR=rundir,
                        OVS_SYSCONFDIR=rundir)

    def _path(self, name):
        return os.path.join(self.dir, name)

    def _daemon(self, argv, ready):
        log = open(self._path(os.path.basename(argv[0]) + ".out"), "w")
        self.procs.append(subprocess.Popen(argv, env=self.env, stdout=log,
                                           stderr=subprocess.STDOUT,
                                           preexec_fn=_die_with_parent))
        log.close()
        deadline = time.monotonic() + 30
        while not os.path.exists(ready):
            if self.procs[-1].poll() is not None or time.monotonic() > deadline:
                raise AssertionError("%s did not start: %s" % (argv[0], self.logs()))
            time.sleep(0.05)

    def start(self):
        os.makedirs(self.dir, exist_ok=True)
        conf = self._path("conf.db")
        subprocess.run(["ovsdb-tool", "create", conf, _schema()], env=self.env, check=True,
                       capture_output=True)
        self._daemon(["ovsdb-server", conf, "--remote=punix:" + self._path("db.sock"),
                      "--unixctl=" + self._path("ovsdb-server.ctl"),
                      "--pidfile=" + self._path("ovsdb-server.pid"),
                      "--log-file=" + self._path("ovsdb-server.log")],
                     self._path("db.sock"))
        self.vsctl("--no-wait", "init")
        self._daemon(["ip", "netns", "exec", self.netns, "ovs-vswitchd", self.db,
                      "--unixctl=" + self.ctl, "--pidfile=" + self._path("ovs-vswitchd.pid"),
                      "--log-file=" + self._path("ovs-vswitchd.log")],
                     self.ctl)
        return self

    def vsctl(self, *args):
        r = subprocess.run(["ovs-vsctl", "--db=" + self.db, "--timeout=30"] + list(args),
                           env=self.env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True, timeout=60)
        assert r.returncode == 0, (args, r.stdout, self.logs())
        return r.stdout

    def appctl(self, *args):
        r = subprocess.run(["ovs-appctl", "-t", self.ctl, "--timeout=30"] + list(args),
                           env=self.env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True, timeout=60)
        assert r.returncode == 0, (args, r.stdout)
        return r.stdout

    def logs(self):
        """The tail of ovs-vswitchd's log, for a failing assertion."""
        try:
            with open(self._path("ovs-vswitchd.log")) as f:
                return "".join(f.readlines()[-20:])
        except OSError:
            return ""

    def close(self):
        # vswitchd first: it talks to the database until it goes.
        for p in reversed(self.procs):
            if p.poll() is None:
                p.terminate()
                try:
                    p.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
        self.procs = []

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.close()

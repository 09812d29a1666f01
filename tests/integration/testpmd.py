"""Drive stock dpdk-testpmd interactively under a pty, for integration tests.

Every wait has a timeout, and every process started here is killed and reaped
by close(), after each test by conftest.py, or by the kernel if the test run
itself dies, so a broken driver can fail a test but never hang or leak one.
"""

import codecs
import ctypes
import glob
import itertools
import json
import os
import re
import select
import shutil
import signal
import subprocess
import time

TESTPMD = os.environ.get("TESTPMD", "dpdk-testpmd")
PROMPT = "testpmd> "

# CSI sequences: testpmd clears the screen for periodic stats.
_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]")
# Events testpmd prints from the interrupt thread ("\nPort %u: %s event\n"),
# at any moment: after a prompt, or in the middle of one ("t" + event +
# "estpmd> "). Line-buffered stdio flushes the leading newline on its own, so
# the prompt may land between it and the line ("\ntestpmd> Port 0: ...").
# Taken out wherever they land; the transcript keeps them.
_ASYNC_EVENTS = re.compile(r"\n?Port \d+: [A-Za-z ]+ event\n")
# cmdline writes the prompt a byte at a time, so an event's lone newline may
# land between any two of its bytes ("t\nestpmd>\n "): the prompt, each gap
# allowed one newline, found wherever it ends the text.
_PROMPT_SPLIT = re.compile("\n?".join(re.escape(c) for c in PROMPT))
# Lines the PMD logs from other threads (a burst that found a bad completion,
# the interrupt thread recovering): they may come after the prompt.
_ASYNC_LOG = re.compile(r"refnic(?:-dev)?: [^\n]*\n")
# What cmdline prints when it could not parse a command: a test typo.
_PARSE_ERROR = re.compile(r"^(Bad arguments|Command not found|Ambiguous command)", re.M)
# What testpmd prints when a command it parsed did not work.
_CMD_ERROR = re.compile(r"\b(fail|error|invalid|cannot|can not|not supported)", re.I)
# "Forward statistics for port 0", "NIC statistics for port 1", ...
_PORT_HEADER = re.compile(r"statistics for port (\d+)", re.I)
# Any other banner line ends a port's block.
_BANNER = re.compile(r"^\s*[-+#*=]{4}")
_COUNTER = re.compile(r"([A-Za-z][\w-]*):\s+(\d+)")
# testpmd prints a block per stream when there are more streams than ports.
_STREAM_HEADER = re.compile(r"Forward Stats for RX Port=\s*(\d+)/Queue=\s*(\d+) -> "
                            r"TX Port=\s*(\d+)/Queue=\s*(\d+)")

_libc = ctypes.CDLL(None, use_errno=True)
_PR_SET_PDEATHSIG = 1


def _die_with_parent():
    # Runs in the child before exec: if the runner dies, even by SIGKILL,
    # the kernel kills testpmd too.
    _libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)


class TestPmdError(Exception):
    """testpmd timed out, exited, or rejected a command."""

    __test__ = False  # not a test class, whatever pytest's name rules say


class TestPmdExited(TestPmdError):
    """testpmd exited while a prompt was awaited; .output has what it said."""

    def __init__(self, message, returncode, output):
        super().__init__(message)
        self.returncode = returncode
        self.output = output


class TestPmd:
    """One interactive testpmd process.

    with TestPmd(["net_null0", "net_null1"]) as tp:
        out = tp.cmd("show port info 0")
    """

    __test__ = False
    _live = set()
    _seq = itertools.count()

    def __init__(self, vdevs, testpmd_args=(), eal_args=(), plugins=None,
                 log_level="notice", timeout=30.0, wrapper=(), telemetry=False,
                 lcores=("-l", "0-1"), proc_type=None, file_prefix=None):
        if plugins is None:
            plugins = [os.environ["REFNIC_PMD"]] if os.environ.get("REFNIC_PMD") else []
        self.timeout = timeout
        self.file_prefix = file_prefix or "itest%d_%d" % (os.getpid(), next(self._seq))
        self.proc_type = proc_type
        # --in-memory is refused with --no-huge (it implies --legacy-mem);
        # --no-shconf is the part of it that matters without hugepages.
        # wrapper: a command that execs its arguments (e.g. in a namespace).
        # telemetry: its socket in the runtime directory, for dpdk-telemetry.py -f PREFIX.
        # lcores: every CPU an lcore by default, as testpmd users type it.
        # proc_type: "primary" or "secondary" of a DPDK multi-process pair
        # that shares file_prefix; that takes hugepages and a shared config.
        memory = (["--no-huge", "-m", "1024", "--no-shconf"] if proc_type is None
                  else ["--proc-type=" + proc_type] + (["-m", "256"] if proc_type == "primary" else []))
        self.argv = list(wrapper) + [TESTPMD] + list(lcores) + memory + ["--no-pci",
                     "--file-prefix=" + self.file_prefix, "--log-level=" + log_level]
        if not telemetry:
            self.argv.append("--no-telemetry")
        for plugin in plugins:
            self.argv += ["-d", plugin]
        for vdev in vdevs:
            self.argv += ["--vdev", vdev]
        self.argv += list(eal_args)
        self.argv += ["--", "-i", "--total-num-mbufs=8192", "--forward-mode=io"]
        self.argv += list(testpmd_args)
        self.proc = None
        self.startup = ""       # what testpmd printed before its first prompt
        self.transcript = ""    # everything it printed, for failure reports
        self._fd = None
        self._sent_at = 0
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.close()

    @property
    def returncode(self):
        """Exit status once exited; negative when killed by a signal."""
        return self.proc.returncode if self.proc else None

    def start(self):
        """Spawn testpmd and wait for its first prompt."""
        master, slave = os.openpty()
        try:
            self.proc = subprocess.Popen(
                self.argv, stdin=slave, stdout=slave, stderr=slave,
                start_new_session=True, preexec_fn=_die_with_parent)
        except BaseException:
            os.close(master)
            raise
        finally:
            os.close(slave)
        self._fd = master
        TestPmd._live.add(self)
        try:
            self.startup = self._read_until_prompt(self.timeout)[:-len(PROMPT)]
        except BaseException:
            self.close()  # __exit__ does not run when __enter__ raises
            raise
        return self

    def cmd(self, command, timeout=None, check=False):
        """Run one command; return its output without echo and prompt.

        check=True raises TestPmdError if the output reads like a failure.
        """
        if self._fd is None or self.proc.poll() is not None:
            raise TestPmdError("testpmd is not running (command %r)" % command)
        os.write(self._fd, command.encode() + b"\n")
        text = self._read_until_prompt(timeout or self.timeout)[:-len(PROMPT)]
        # cmdline echoes the command; async output may come before the echo.
        echo = text.find(command + "\n")
        output = text[echo + len(command) + 1:] if echo >= 0 else text
        if _PARSE_ERROR.search(output):
            raise TestPmdError("testpmd rejected %r:\n%s" % (command, output))
        if check and _CMD_ERROR.search(output):
            raise TestPmdError("%r failed:\n%s" % (command, output))
        return output

    def send(self, command):
        """Type a command and return at once: for one whose output goes on
        after its prompt (forwarding with 'set verbose 1'); read it with
        wait_output(), then go on with cmd()."""
        if self._fd is None or self.proc.poll() is not None:
            raise TestPmdError("testpmd is not running (command %r)" % command)
        self._sent_at = len(self.transcript)
        os.write(self._fd, command.encode() + b"\n")

    def wait_output(self, pattern, count, timeout=None):
        """Read until pattern has matched count times since send(); return
        the cleaned text since then. Raises TestPmdError if it does not."""
        deadline = time.monotonic() + (timeout or self.timeout)
        while True:
            text = _ANSI.sub("", self.transcript[self._sent_at:]).replace("\r", "")
            if len(re.findall(pattern, text)) >= count:
                return text
            if not self._read_some(deadline):
                raise TestPmdError("%r not seen %d times; output tail:\n%s"
                                   % (pattern, count, text[-3000:]))

    def close(self, timeout=None):
        """quit, wait for exit, kill the process group if it hangs; idempotent."""
        if self._fd is None:
            return
        try:
            if self.proc.poll() is None:
                try:
                    os.write(self._fd, b"quit\n")
                except OSError:
                    pass
                # Keep reading: a full pty would block testpmd's goodbyes.
                deadline = time.monotonic() + (timeout or self.timeout)
                while self._read_some(deadline):
                    pass
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self._kill()
        finally:
            os.close(self._fd)
            self._fd = None
            TestPmd._live.discard(self)
            if self.proc_type != "secondary":   # the primary's, shared
                shutil.rmtree(self._runtime_dir(), ignore_errors=True)
            if self.proc_type == "primary":
                self._remove_hugepage_files()

    @classmethod
    def close_all(cls):
        """Close every instance still open; conftest.py calls this after each test."""
        # Secondaries first: they use what their primary set up.
        for tp in sorted(cls._live, key=lambda tp: tp.proc_type != "secondary"):
            tp.close(timeout=5)

    def _kill(self):
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.proc.wait()

    def _remove_hugepage_files(self):
        # A primary that was killed leaves its pages' files, and the pages
        # stay taken until they go.
        with open("/proc/mounts") as f:
            mounts = [line.split()[1] for line in f if line.split()[2] == "hugetlbfs"]
        for mount in mounts:
            for path in glob.glob(os.path.join(mount, self.file_prefix + "map_*")):
                try:
                    os.unlink(path)
                except OSError:
                    pass

    def _runtime_dir(self):
        # Where EAL puts --file-prefix files even with --no-shconf.
        base = "/var/run" if os.geteuid() == 0 else os.environ.get("XDG_RUNTIME_DIR", "/tmp")
        return os.path.join(base, "dpdk", self.file_prefix)

    def _read_some(self, deadline):
        """Append what arrives before deadline to the transcript; False at EOF or timeout."""
        remaining = deadline - time.monotonic()
        if remaining <= 0 or not select.select([self._fd], [], [], remaining)[0]:
            return False
        try:
            data = os.read(self._fd, 65536)
        except OSError:  # EIO: every slave fd closed, testpmd is gone
            data = b""
        if not data:
            return False
        self.transcript += self._decoder.decode(data)
        return True

    def _read_until_prompt(self, timeout):
        """Return the cleaned text up to and including the next prompt."""
        start = len(self.transcript)
        deadline = time.monotonic() + timeout
        while True:
            text = _ASYNC_EVENTS.sub("", _ANSI.sub("", self.transcript[start:]).replace("\r", ""))
            if text.endswith(PROMPT):
                return text
            prompt = None
            for prompt in _PROMPT_SPLIT.finditer(text):
                pass
            if prompt is not None and not _ASYNC_LOG.sub("", text[prompt.end():]):
                return text[:prompt.start()] + text[prompt.end():] + PROMPT
            if not self._read_some(deadline):
                break
        tail = self.transcript[-3000:].replace("\r", "")
        if time.monotonic() >= deadline:
            self._kill()
            raise TestPmdError("no testpmd prompt within %gs; killed it. Output tail:\n%s"
                               % (timeout, tail))
        try:  # EOF: testpmd closed the pty, it is exiting
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            self._kill()
        raise TestPmdExited("testpmd exited with status %d. Output tail:\n%s"
                            % (self.proc.returncode, tail), self.proc.returncode, text)

    # Parsers for what testpmd prints.

    @staticmethod
    def parse_port_counters(text):
        """{port: {name: int}} from 'statistics for port N' blocks.

        Serves 'show port stats', 'show fwd stats all' and the forward
        statistics 'stop' prints; banners of other blocks (per-stream,
        accumulated) end a port's block so they are not mixed in.
        """
        ports, current = {}, None
        for line in text.splitlines():
            header = _PORT_HEADER.search(line)
            if header:
                current = ports.setdefault(int(header.group(1)), {})
            elif _BANNER.match(line):
                current = None
            elif current is not None:
                current.update((k, int(v)) for k, v in _COUNTER.findall(line))
        return ports

    @staticmethod
    def parse_stream_counters(text):
        """[{"rx": (port, queue), "tx": (port, queue), name: int}] from the
        per-stream blocks of the forward statistics: the forwarding lcores'
        own counts (frames they took and sent), printed when there are more
        streams than ports and the stream moved something."""
        streams, current = [], None
        for line in text.splitlines():
            header = _STREAM_HEADER.search(line)
            if header:
                rp, rq, tp, tq = (int(g) for g in header.groups())
                current = {"rx": (rp, rq), "tx": (tp, tq)}
                streams.append(current)
            elif _BANNER.match(line) or _PORT_HEADER.search(line):
                current = None
            elif current is not None:
                current.update((k, int(v)) for k, v in _COUNTER.findall(line))
        return streams

    def port_stats(self, port="all"):
        """'show port stats': {port: counters} for 'all', counters for one port."""
        stats = self.parse_port_counters(self.cmd("show port stats %s" % port))
        if port == "all":
            return stats
        if port not in stats:
            raise TestPmdError("no stats for port %s" % port)
        return stats[port]

    def fwd_stats(self):
        """'show fwd stats all': per port counters since the last start."""
        return self.parse_port_counters(self.cmd("show fwd stats all"))

    def stop(self, streams=False):
        """Stop forwarding; return the forward statistics it printed, by port
        (and, with streams, the per-stream blocks: parse_stream_counters)."""
        out = self.cmd("stop")
        stats = self.parse_port_counters(out)
        # A prompt owed by an earlier command can end that read: one typed
        # with send() ('start' with 'set verbose 1') prints its prompt after
        # its own output, and the forwarding lcore's lines may come first,
        # so wait_output() returns before that prompt; under load the next
        # command took it for its own. stop's output and prompt come after.
        for _ in range(2):
            if stats:
                break
            out += self._read_until_prompt(self.timeout)
            stats = self.parse_port_counters(out)
        if not stats:
            raise TestPmdError("'stop' printed no forward statistics")
        return (stats, self.parse_stream_counters(out)) if streams else stats

    def telemetry(self, *commands):
        """Send commands to this testpmd's telemetry socket (started with
        telemetry=True) with DPDK's dpdk-telemetry.py; return each reply's
        value (None where the command failed: {"cmd": null})."""
        tool = shutil.which("dpdk-telemetry.py")
        if tool is None:
            raise TestPmdError("dpdk-telemetry.py is not installed (Debian: dpdk)")
        res = subprocess.run([tool, "-f", self.file_prefix],
                             input="".join(c + "\n" for c in commands),
                             capture_output=True, text=True, timeout=30)
        replies = [json.loads(line) for line in res.stdout.splitlines() if line.startswith("{")]
        if res.returncode != 0 or len(replies) != len(commands):
            raise TestPmdError("dpdk-telemetry.py: %s%s" % (res.stdout, res.stderr))
        return [reply[cmd.split(",")[0]] for reply, cmd in zip(replies, commands)]

    def xstats(self, port):
        """'show port xstats': {name: int}."""
        out = self.cmd("show port xstats %s" % port)
        return {k: int(v) for k, v in re.findall(r"^(\w+):\s+(\d+)\s*$", out, re.M)}

    def port_info(self, port):
        """'show port info': {field: text}, e.g. 'Driver name', 'Link status'."""
        out = self.cmd("show port info %s" % port)
        return dict(re.findall(r"^([A-Za-z][^:\n]*):[ \t]*(.*?)\s*$", out, re.M))

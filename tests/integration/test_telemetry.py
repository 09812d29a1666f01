"""Telemetry on refnic ports, through DPDK's own dpdk-telemetry.py against a
running testpmd, as a user looks at them: ethdev's standard /ethdev/...
commands, the driver's /refnic/ports and /refnic/port,<id>, and the device's
/refnic/devices and /refnic/device,<name>.
"""

import glob
import re

from helpers import (BURST, PAIR, PAIR_PEERS, default_vector, dump_priv, run_traffic,
                     telemetry)


def test_ethdev_telemetry_on_refnic_ports(refnic_testpmd):
    tp = refnic_testpmd(PAIR, telemetry=True)
    ports, info = telemetry(tp, "/ethdev/list", "/ethdev/info,0")
    assert ports == [0, 1]
    assert info["name"] == "net_refnic0", info
    assert info["nb_rx_queues"] == 1 and info["nb_tx_queues"] == 1, info

    run_traffic(tp, PAIR_PEERS)
    stats, xstats = telemetry(tp, "/ethdev/stats,0", "/ethdev/xstats,0")
    nic = tp.port_stats(0)
    assert stats["opackets"] == nic["TX-packets"] > 0, (stats, nic)
    assert stats["ipackets"] == nic["RX-packets"] > 0, (stats, nic)
    # The PMD's own xstats come through too: one tail write per burst, and
    # after tx_first every io-forwarding burst is 32 packets (the closed loop).
    assert stats["opackets"] % BURST == 0, stats
    assert xstats["tx_doorbell_writes"] == stats["opackets"] // BURST, (xstats, stats)
    # Adaptive moderation decides when a queue is armed; testpmd never arms.
    assert xstats["rx_q0_itr_us"] == 0, xstats


def test_refnic_ports_and_bad_ids(refnic_testpmd):
    tp = refnic_testpmd(PAIR + ["net_null0"], telemetry=True)
    ports, null_port, no_port, junk, missing, good = telemetry(
        tp, "/refnic/ports", "/refnic/port,2", "/refnic/port,77", "/refnic/port,1x",
        "/refnic/port", "/refnic/port,1")
    assert ports == [0, 1]              # not port 2, net_null0
    assert null_port is None and no_port is None and junk is None and missing is None
    assert good["port_id"] == 1 and good["name"] == "net_refnic1", good
    tp.cmd("show port info 0")          # read what testpmd logged meanwhile
    log = tp.transcript.replace("\r", "")
    assert "/refnic/port: '2' is not a refnic port id" in log, log
    assert "/refnic/port: expected /refnic/port,<port id>" in log, log


def test_refnic_port_devargs_moderation_and_doorbells(refnic_testpmd):
    vdevs = ["net_refnic0,cable=tel,rx_itr_us=200,admin_poll=fixed:20", "net_refnic1,cable=tel"]
    tp = refnic_testpmd(vdevs, telemetry=True)
    p0, p1 = telemetry(tp, "/refnic/port,0", "/refnic/port,1")
    assert p0["devargs"]["given"] == "cable=tel,rx_itr_us=200,admin_poll=fixed:20", p0
    # An interval given alone means static moderation; TX keeps its default.
    assert p0["devargs"]["itr"] == "static" and p0["devargs"]["rx_itr_us"] == 200, p0
    assert p0["rxq0"]["itr"] == "static" and p0["rxq0"]["itr_us"] == 200, p0
    assert p0["txq0"]["itr"] == "static" and p0["txq0"]["itr_us"] == 50, p0
    assert p1["rxq0"]["itr"] == "adaptive" and p1["devargs"]["itr"] == "adaptive", p1
    assert p0["admin"]["poll"] == "fixed:20" and p1["admin"]["poll"] == "backoff"
    assert p0["admin"]["commands"] > 0 and p0["admin"]["timeouts"] == 0, p0
    assert p0["port"]["state"] == "ok" and p0["device"]["link"] == "up", p0
    assert p0["port"]["rx_queues"] == 1 and p0["port"]["tx_queues"] == 1, p0
    # profile=ideal maps the push window write-combining: wc=auto pushes.
    assert p0["txq0"]["path"] == default_vector() + ", WC push", p0
    assert p0["rxq0"]["state"] == "started", p0
    assert p0["port"]["tx_path"] == "push" and p0["devargs"]["wc"] == "auto", p0

    tx_before, rx_before = p0["txq0"]["doorbell_writes"], p0["rxq0"]["doorbell_writes"]
    fwd = run_traffic(tp, PAIR_PEERS)
    p0 = telemetry(tp, "/refnic/port,0")[0]
    # One tail write per burst, exactly: every burst of the closed loop is
    # 32 packets (so none is a lone packet for the push window). RX: one per
    # refill batch of 32 at most.
    tx, rx = fwd[0]["TX-packets"], fwd[0]["RX-packets"]
    assert tx > 0 and tx % BURST == 0, fwd
    assert p0["txq0"]["doorbell_writes"] - tx_before == tx // BURST, (p0["txq0"], fwd)
    assert 0 < p0["rxq0"]["doorbell_writes"] - rx_before <= -(-rx // BURST), \
        (p0["rxq0"], fwd)
    # testpmd polls and never arms a queue: the device raised no interrupt.
    assert p0["rxq0"]["interrupts"] == 0 and p0["txq0"]["interrupts"] == 0, p0

    for command in ("port stop all", "port config all rxq 2", "port config all txq 2",
                    "port start all"):
        tp.cmd(command, check=True)
    p0 = telemetry(tp, "/refnic/port,0")[0]
    assert p0["port"]["rx_queues"] == 2 and p0["port"]["tx_queues"] == 2, p0
    assert p0["rxq1"]["itr_us"] == 200 and p0["txq1"]["state"] == "started", p0


def test_admin_timeout_shows_in_port_and_device(refnic_testpmd):
    # The device drops the first SET_MTU, which only port start sends.
    tp = refnic_testpmd(["net_refnic0,fault_admin_timeout=set_mtu:1,fault_corrupt=rx:1000,"
                         "fault_fatal=after_ms:3600000"],
                        telemetry=True,
                        testpmd_args=["--disable-device-start"])
    port, dev = telemetry(tp, "/refnic/port,0", "/refnic/device,net_refnic0")
    assert port["admin"]["timeouts"] == 0 and port["port"]["state"] == "ok", port
    assert dev["faults"]["fault_admin_timeout"] == "set_mtu:1", dev
    assert dev["faults"]["admin_timeout_pending"] == "set_mtu:1", dev
    assert dev["faults"]["fault_corrupt"] == "rx:1000", dev
    assert dev["faults"]["fault_fatal"] == "after_ms:3600000", dev

    tp.cmd("port start 0")              # fails: the admin command times out
    port, dev = telemetry(tp, "/refnic/port,0", "/refnic/device,net_refnic0")
    assert port["admin"]["timeouts"] == 1, port["admin"]
    assert port["port"]["state"] == "failed", port["port"]
    assert dev["faults"]["fault_admin_timeout"] == "set_mtu:1", dev   # as configured
    assert dev["faults"]["admin_timeout_pending"] == "off", dev       # used up


def thread_names(pid):
    names = set()
    for comm in glob.glob("/proc/%d/task/*/comm" % pid):
        try:
            with open(comm) as f:
                names.add(f.read().strip())
        except OSError:
            pass                        # a thread that just ended
    return names


def test_refnic_devices_profile_exec_and_engines(refnic_testpmd):
    vdevs = ["net_refnic0,cable=dev,exec=thread,engines=2,queues=4",
             "net_refnic1,cable=dev,profile=vm"]
    tp = refnic_testpmd(vdevs, telemetry=True)
    names, d0, d1, bad = telemetry(tp, "/refnic/devices", "/refnic/device,net_refnic0",
                                   "/refnic/device,net_refnic1", "/refnic/device,nosuch")
    assert names == ["net_refnic0", "net_refnic1"]
    assert bad is None
    assert d0["profile"] == "ideal" and d0["exec"] == "thread", d0
    assert d0["engines"] == 2 and d0["engines_running"] == 2 and d0["queue_pairs"] == 4, d0
    # Queue pair q on engine q % 2: threads of the process, as top shows them.
    assert d0["queue_work"] == ["refnic-engine", "refnic-engine1"] * 2, d0
    assert set(d0["queue_work"]) <= thread_names(tp.proc.pid), thread_names(tp.proc.pid)
    # exec=auto under vm: the TX doorbell's writer runs the queue's work.
    assert d1["profile"] == "vm" and d1["exec"] == "inline" and d1["exec_given"] == "auto", d1
    assert d1["queue_work"] == ["inline"] * d1["queue_pairs"], d1
    # testpmd created one queue pair per port.
    assert d0["rxq_enabled"] == [1, 0, 0, 0] and d0["txq_enabled"] == [1, 0, 0, 0], d0
    assert d0["cable"] == "dev" and d0["link"] == "up" and d0["state"] == "ready", d0
    assert d0["faults"] == {"fault_admin_timeout": "off", "fault_reset_fail": 0,
                            "admin_timeout_pending": "off", "reset_fail_pending": 0,
                            "fault_corrupt": "off", "corrupted": 0, "fault_fatal": "off"}, d0
    tp.cmd("show port info 0")          # read what testpmd logged meanwhile
    assert "'nosuch' is not a refnic device" in tp.transcript, tp.transcript


def test_dump_priv_and_telemetry_show_the_same_state(refnic_testpmd):
    """/ethdev/dump_priv and /refnic/port come from one walk of the port."""
    tp = refnic_testpmd(["net_refnic0,cable=same,tx_itr_us=70", "net_refnic1,cable=same"],
                        telemetry=True)
    port = telemetry(tp, "/refnic/port,0")[0]
    dump = dump_priv(tp, 0)
    for group, values in port.items():
        if not isinstance(values, dict):
            continue
        m = re.match(r"(\D+)(\d+)$", group)
        header = "%s %s:" % m.groups() if m else group + ":"
        line = next((ln for ln in dump.splitlines() if ln.startswith(header)), None)
        assert line is not None, (header, dump)
        keys = re.findall(r" (\w+)=", line)
        assert keys == list(values), (group, keys, list(values))
    assert " itr=static itr_us=70" in next(ln for ln in dump.splitlines()
                                          if ln.startswith("txq 0:")), dump

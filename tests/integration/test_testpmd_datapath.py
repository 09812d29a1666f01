"""The data path through stock testpmd: the csum forwarding engine with
checksums done by the device on both sides, and multi-queue forwarding."""

import time

from test_testpmd_refnic import refnic


def test_fwd_csum_with_hw_checksums():
    with refnic() as tp:
        tp.cmd("port stop all", check=True)
        for port in (0, 1):
            for proto in ("ip", "udp", "tcp"):
                tp.cmd("csum set %s hw %d" % (proto, port), check=True)
            for offload in ("ipv4_cksum", "udp_cksum", "tcp_cksum"):
                tp.cmd("port config %d rx_offload %s on" % (port, offload), check=True)
        tp.cmd("port start all", check=True)
        tp.cmd("set fwd csum", check=True)
        tp.cmd("start tx_first", check=True)
        time.sleep(1)
        fwd = tp.stop()
        for port in (0, 1):
            # Each hop, the device inserts the checksums and the peer verifies them.
            assert fwd[port]["RX-packets"] > 0, fwd
            assert fwd[port]["Bad-ipcsum"] == 0 and fwd[port]["Bad-l4csum"] == 0, fwd
            assert tp.xstats(port)["tx_malformed"] == 0


def test_multi_queue_io_forwarding():
    with refnic() as tp:
        tp.cmd("port stop all", check=True)
        tp.cmd("port config all rxq 4", check=True)
        tp.cmd("port config all txq 4", check=True)
        tp.cmd("port start all", check=True)
        tp.cmd("start tx_first", check=True)
        time.sleep(1)
        fwd = tp.stop()
        assert fwd[0]["RX-packets"] > 0 and fwd[1]["RX-packets"] > 0, fwd
        xs = tp.xstats(1)
        assert "rx_q3_doorbell_writes" in xs and xs["rx_q3_doorbell_writes"] > 0, xs

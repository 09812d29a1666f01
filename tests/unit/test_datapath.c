/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * The data path over a cable pair: doorbell discipline counted by the device
 * itself, byte-exact delivery, scatter, and the device's MAC filter.
 */

#include <limits.h>
#include <stdlib.h>

#include <rte_errno.h>
#include <rte_memory.h>
#include <rte_mempool.h>

#include "test_common.h"

#define DP_A	"net_refnic_d0"
#define DP_B	"net_refnic_d1"

static uint16_t port_a, port_b;
static struct rte_ether_addr mac_b;

static const struct test_pair_conf dp_pair = { .name_a = DP_A, .name_b = DP_B };

static int
dp_setup(void)
{
	return test_pair_setup(&dp_pair, &port_a, &port_b, &mac_b) == 0 ?
	       TEST_SUCCESS : TEST_FAILED;
}

static void
dp_teardown(void)
{
	test_pair_teardown(&dp_pair);
}

/* Send n frames a->b and take them off b's ring; true if all arrived intact. */
static bool
dp_send_recv_on(uint16_t a, uint16_t b, const struct rte_ether_addr *mac, uint16_t n,
		uint32_t len, uint16_t nb_segs)
{
	struct rte_mbuf *tx[TEST_BURST], *rx[TEST_BURST];
	uint16_t i, sent, got;
	bool ok = true;

	for (i = 0; i < n; i++)
		tx[i] = test_make_pkt(mac, len, i, nb_segs);
	sent = test_tx_all(a, tx, n);
	got = test_rx_wait(b, rx, sent);
	for (i = 0; i < got; i++) {
		ok &= test_pkt_matches(rx[i], mac, len, i);
		rte_pktmbuf_free(rx[i]);
	}
	return ok && sent == n && got == n;
}

static bool
dp_send_recv(uint16_t n, uint32_t len, uint16_t nb_segs)
{
	return dp_send_recv_on(port_a, port_b, &mac_b, n, len, nb_segs);
}

#define TXPK offsetof(struct refnic_hw_stats, q[0].tx_packets)
#define RXDB offsetof(struct refnic_hw_stats, q[0].rx_doorbells)
#define TXPUSH offsetof(struct refnic_hw_stats, tx_push_lines)

/* The device's TX notifications: TAIL writes, and push lines (a one-packet
 * burst on a port whose TX path is push: its line is its doorbell). */
static uint64_t
tx_notifications_wait(uint64_t want)
{
	uint64_t deadline = rte_get_timer_cycles() + TEST_WAIT_S * rte_get_timer_hz(), n;
	struct refnic_hw_stats s;

	do {
		test_hw_stats(DP_A, &s);
		n = s.q[0].tx_doorbells + s.tx_push_lines;
	} while (n < want && rte_get_timer_cycles() < deadline);
	return n;
}

/* Exactly one TX notification per non-empty burst, whatever its size or
 * shape: one tail write, or one push line. */
static int
test_tx_one_doorbell_per_burst(void)
{
	static const struct { uint16_t n, segs; } bursts[] = {
		{ 1, 1 }, { 7, 1 }, { 32, 1 }, { 32, 3 }, { 5, 7 },
	};
	struct refnic_hw_stats s;
	uint64_t db, pkts;
	unsigned int i;

	test_hw_stats(DP_A, &s);
	db = s.q[0].tx_doorbells + s.tx_push_lines;
	pkts = s.q[0].tx_packets;
	TEST_ASSERT_EQUAL(rte_eth_tx_burst(port_a, 0, NULL, 0), 0, "empty burst");
	for (i = 0; i < RTE_DIM(bursts); i++) {
		TEST_ASSERT(dp_send_recv(bursts[i].n, 300, bursts[i].segs),
			    "burst %u lost or damaged frames", i);
		pkts += bursts[i].n;
		TEST_ASSERT_EQUAL(test_hw_counter_wait(DP_A, TXPK, pkts), pkts, "burst %u", i);
		db++;
		TEST_ASSERT_EQUAL(tx_notifications_wait(db), db,
				  "burst %u of %u packets x %u segments", i,
				  bursts[i].n, bursts[i].segs);
	}
	return TEST_SUCCESS;
}

/* RX writes its tail once per refill batch of rx_free_thresh (32) buffers. */
static int
test_rx_one_doorbell_per_refill(void)
{
	struct refnic_hw_stats s;
	uint64_t db;

	test_hw_stats(DP_B, &s);
	db = s.q[0].rx_doorbells;
	TEST_ASSERT(dp_send_recv(32, 64, 1), "32 frames");
	db++;	/* 32 buffers free: one batch */
	TEST_ASSERT_EQUAL(test_hw_counter_wait(DP_B, RXDB, db), db, "after 32 frames");
	TEST_ASSERT(dp_send_recv(16, 64, 1), "16 frames");	/* 16 free: wait */
	TEST_ASSERT(dp_send_recv(16, 64, 1), "16 more frames");
	db++;	/* 32 free again: one batch */
	TEST_ASSERT_EQUAL(test_hw_counter_wait(DP_B, RXDB, db), db, "after 16 + 16 frames");
	return TEST_SUCCESS;
}

/* Every size, every segmentation, arrives byte-identical and in order. */
static int
test_pair_byte_identical(void)
{
	static const uint32_t sizes[] = { 60, 64, 65, 128, 511, 1000, 1514, 1518 };
	unsigned int i;

	for (i = 0; i < 3 * RTE_DIM(sizes); i++)
		TEST_ASSERT(dp_send_recv(TEST_BURST, sizes[i % RTE_DIM(sizes)], 1 + i % 3),
			    "%u-byte frames in %u segments", sizes[i % RTE_DIM(sizes)],
			    1 + i % 3);
	return TEST_SUCCESS;
}

/* The port's MAC filter, promiscuous and all-multicast modes, on and off again. */
static int
test_mac_filter(void)
{
	static const struct rte_ether_addr other = {{ 0x02, 0, 0, 0, 0, 0x99 }};
	static const struct rte_ether_addr bcast = {{ 0xff, 0xff, 0xff, 0xff, 0xff, 0xff }};
	static const struct rte_ether_addr mcast = {{ 0x01, 0x00, 0x5e, 0, 0, 1 }};
	const struct { const struct rte_ether_addr *dst; bool allmulti; bool pass; } cases[] = {
		{ &mac_b, false, true }, { &other, false, false }, { &bcast, false, true },
		{ &mcast, false, false }, { &mcast, true, true }, { &bcast, true, true },
		{ &other, true, false }, { &mcast, false, false },	/* all-multicast off again */
	};
	struct rte_mbuf *m, *rx;
	struct refnic_hw_stats before, after;
	unsigned int i;
	int ret = TEST_SUCCESS;

	TEST_ASSERT_SUCCESS(rte_eth_promiscuous_disable(port_b), "");
	for (i = 0; i < RTE_DIM(cases) && ret == TEST_SUCCESS; i++) {
		if (cases[i].allmulti)
			rte_eth_allmulticast_enable(port_b);
		else
			rte_eth_allmulticast_disable(port_b);
		test_hw_stats(DP_B, &before);
		m = test_make_pkt(cases[i].dst, 100, i, 1);
		if (rte_eth_tx_burst(port_a, 0, &m, 1) != 1) {
			rte_pktmbuf_free(m);
			ret = TEST_FAILED;
			break;
		}
		if (cases[i].pass) {
			if (test_rx_wait(port_b, &rx, 1) != 1)
				ret = TEST_FAILED;
			else
				rte_pktmbuf_free(rx);
		} else if (test_hw_counter_wait(DP_B, offsetof(struct refnic_hw_stats, rx_filtered),
					   before.rx_filtered + 1) != before.rx_filtered + 1) {
			ret = TEST_FAILED;
		}
		test_hw_stats(DP_B, &after);
		if (after.q[0].rx_packets - before.q[0].rx_packets != cases[i].pass)
			ret = TEST_FAILED;
		if (ret != TEST_SUCCESS)
			printf("    case %u: frame to %02x:..:%02x should %s\n", i,
			       cases[i].dst->addr_bytes[0], cases[i].dst->addr_bytes[5],
			       cases[i].pass ? "pass" : "be filtered");
	}
	rte_eth_allmulticast_disable(port_b);
	rte_eth_promiscuous_enable(port_b);
	return ret;
}

/* Jumbo frames cross as mbuf chains with scatter asked for. */
static int
test_jumbo_scatter(void)
{
	struct rte_mbuf *m, *rx = NULL;
	uint16_t j0, j1, got;
	bool ok;

	TEST_ASSERT_SUCCESS(test_pair_create("net_refnic_j0", "net_refnic_j1", &j0, &j1), "");
	ok = test_port_start(j0, RTE_ETH_RX_OFFLOAD_SCATTER, 9000) == 0 &&
	     test_port_start(j1, RTE_ETH_RX_OFFLOAD_SCATTER, 9000) == 0;
	m = test_make_pkt(&mac_b, 9000 + RTE_ETHER_HDR_LEN, 7, 5);
	ok &= m != NULL && rte_eth_tx_burst(j0, 0, &m, 1) == 1;
	got = test_rx_wait(j1, &rx, 1);
	ok &= got == 1 && rx->nb_segs == 5 && test_pkt_matches(rx, &mac_b, 9014, 7);
	if (got == 1)
		rte_pktmbuf_free(rx);
	test_pair_destroy("net_refnic_j0", "net_refnic_j1");
	TEST_ASSERT(ok, "jumbo frame did not cross as a 5-segment chain");
	return TEST_SUCCESS;
}

/* Whether RX queue 0 of port says it is scattered, both ways ethdev asks. */
static bool
rxq_scattered(uint16_t port)
{
	struct rte_eth_burst_mode mode;
	struct rte_eth_rxq_info qinfo;

	if (rte_eth_rx_queue_info_get(port, 0, &qinfo) != 0 ||
	    rte_eth_rx_burst_mode_get(port, 0, &mode) != 0)
		return false;
	/* Either burst, scalar or vector, says so. */
	return qinfo.scattered_rx && strstr(mode.info, " Scattered") != NULL;
}

/* n frames of 9014 bytes, 5 segments each, j0 to j1: all arrive whole. */
static bool
jumbo_cross(uint16_t j0, uint16_t j1, const struct rte_ether_addr *mac, uint16_t n)
{
	struct rte_mbuf *tx[TEST_BURST], *rx[TEST_BURST];
	uint16_t i, got;
	bool ok = true;

	for (i = 0; i < n; i++)
		tx[i] = test_make_pkt(mac, 9000 + RTE_ETHER_HDR_LEN, 100 + i, 5);
	ok &= test_tx_all(j0, tx, n) == n;
	got = test_rx_wait(j1, rx, n);
	for (i = 0; i < got; i++) {
		ok &= rx[i]->nb_segs == 5 &&
		      test_pkt_matches(rx[i], mac, 9000 + RTE_ETHER_HDR_LEN, 100 + i);
		rte_pktmbuf_free(rx[i]);
	}
	return ok && got == n;
}

/*
 * Jumbo frames on 2 KiB mbufs without the scatter offload, as ixgbe and
 * i40e take them: the RX queue turns scattered by itself when the MTU needs
 * it, at start or when the MTU grows on a started port, and says so; 32
 * frames of 9014 bytes arrive whole, counted by the device. Only a device
 * without scatter refuses such a start.
 */
static int
test_jumbo_without_scatter_offload(void)
{
	struct refnic_hw_stats before, after;
	struct rte_ether_addr mac;
	uint16_t j0, j1, ns;
	bool ok, scattered, small_scattered;
	int refused;

	TEST_ASSERT_SUCCESS(test_pair_create("net_refnic_j0", "net_refnic_j1", &j0, &j1), "");
	rte_eth_macaddr_get(j1, &mac);
	test_hw_stats("net_refnic_j1", &before);
	ok = test_port_start(j0, 0, 9000) == 0 && test_port_start(j1, 0, 9000) == 0;
	scattered = rxq_scattered(j1);
	ok = ok && jumbo_cross(j0, j1, &mac, TEST_BURST);
	test_hw_stats("net_refnic_j1", &after);
	/* MTU 1500 fits the buffers: not scattered; 9000 set while started is. */
	ok = ok && test_port_start(j1, 0, 1500) == 0;
	small_scattered = rxq_scattered(j1);
	ok = ok && rte_eth_dev_set_mtu(j1, 9000) == 0 && rxq_scattered(j1) &&
	     jumbo_cross(j0, j1, &mac, TEST_BURST);
	test_pair_destroy("net_refnic_j0", "net_refnic_j1");
	TEST_ASSERT(ok, "jumbo frames did not cross whole without the scatter offload");
	TEST_ASSERT(scattered, "RX queue 0 at MTU 9000 does not say it is scattered");
	TEST_ASSERT(!small_scattered, "RX queue 0 at MTU 1500 says it is scattered");
	TEST_ASSERT_EQUAL(after.q[0].rx_packets - before.q[0].rx_packets, TEST_BURST,
			  "frames the device delivered");

	/* A device that cannot scatter: 2 KiB buffers and MTU 9000 are refused. */
	TEST_ASSERT_SUCCESS(test_port_create("net_refnic_ns", "caps_off=scatter", &ns), "");
	refused = test_port_start(ns, 0, 9000);
	test_port_destroy("net_refnic_ns");
	TEST_ASSERT_EQUAL(refused, -EINVAL, "a device without scatter started at MTU 9000");
	return TEST_SUCCESS;
}

/*
 * Bad frames in the middle of a burst (fetched, not push lines): one shorter
 * than an Ethernet header, one at an IOVA with no memory. The device refuses
 * each, counted malformed once (the second as one DMA error), and delivers
 * the frames on either side.
 */
static int
test_bad_frames_mid_burst(void)
{
	struct refnic_hw_stats before, after;
	struct rte_mbuf *tx[4], *rx[5];
	uint16_t got, more, i;
	rte_iova_t good;
	bool ok = true;

	for (i = 0; i < RTE_DIM(tx); i++) {
		tx[i] = test_make_pkt(&mac_b, 60, i, 1);
		TEST_ASSERT(tx[i] != NULL, "");
	}
	rte_pktmbuf_trim(tx[1], 60 - 10);
	good = tx[2]->buf_iova;
	tx[2]->buf_iova = 0x10000;	/* no DPDK memory there */
	test_hw_stats(DP_A, &before);
	TEST_ASSERT_EQUAL(test_tx_all(port_a, tx, RTE_DIM(tx)), RTE_DIM(tx), "");
	got = test_rx_wait(port_b, rx, 2);
	rte_delay_ms(10);
	more = rte_eth_rx_burst(port_b, 0, rx + got, RTE_DIM(rx) - got);
	test_hw_stats(DP_A, &after);
	/* Back in the pool, the mbuf must not hand its bad IOVA to later tests. */
	rte_eth_tx_done_cleanup(port_a, 0, 0);
	tx[2]->buf_iova = good;
	for (i = 0; i < got + more; i++) {
		ok &= i < 2 && test_pkt_matches(rx[i], &mac_b, 60, i == 0 ? 0 : 3);
		rte_pktmbuf_free(rx[i]);
	}
	TEST_ASSERT_EQUAL(got + more, 2, "frames delivered");
	TEST_ASSERT(ok, "the bad frames' neighbours arrive intact");
	TEST_ASSERT_EQUAL(after.q[0].tx_malformed, before.q[0].tx_malformed + 2, "malformed");
	TEST_ASSERT_EQUAL(after.dma_errors, before.dma_errors + 1, "DMA errors");
	TEST_ASSERT_EQUAL(after.q[0].tx_packets, before.q[0].tx_packets + 2, "sent");
	return TEST_SUCCESS;
}

/* A bad IOVA from the driver is a DMA error the device counts, not a crash. */
static int
test_bad_iova_is_a_dma_error(void)
{
	struct refnic_hw_stats before, after;
	/* Longer than a push line carries: the device reads it by DMA either way. */
	struct rte_mbuf *m = test_make_pkt(&mac_b, 300, 1, 1);
	rte_iova_t good;

	TEST_ASSERT(m != NULL, "");
	good = m->buf_iova;
	m->buf_iova = 0x10000;	/* no DPDK memory there */
	test_hw_stats(DP_A, &before);
	TEST_ASSERT_EQUAL(test_tx_all(port_a, &m, 1), 1, "");
	test_hw_counter_wait(DP_A, offsetof(struct refnic_hw_stats, q[0].tx_malformed),
			     before.q[0].tx_malformed + 1);
	test_hw_stats(DP_A, &after);
	/* Back in the pool, the mbuf must not hand its bad IOVA to later tests. */
	rte_eth_tx_done_cleanup(port_a, 0, 0);
	m->buf_iova = good;
	TEST_ASSERT_EQUAL(after.q[0].tx_malformed, before.q[0].tx_malformed + 1, "dropped");
	TEST_ASSERT_EQUAL(after.dma_errors, before.dma_errors + 1, "counted as one DMA error");
	TEST_ASSERT(dp_send_recv(4, 64, 1), "the queue still works");
	return TEST_SUCCESS;
}

/*
 * One burst of frames in one segment and in two, alternating: the device
 * sends the plain ones (one segment, no offload) together and the others
 * one by one, and the peer must get them all in the order they were sent.
 */
static int
test_mixed_burst_keeps_order(void)
{
	struct rte_mbuf *tx[TEST_BURST], *rx[TEST_BURST];
	const uint16_t n = 16;
	uint16_t i, got;
	bool ok = true;

	for (i = 0; i < n; i++) {
		/* Two plain, one chained, ...: runs of plain ones between. */
		tx[i] = test_make_pkt(&mac_b, 200, i, i % 3 == 2 ? 2 : 1);
		TEST_ASSERT(tx[i] != NULL, "");
	}
	TEST_ASSERT_EQUAL(test_tx_all(port_a, tx, n), n, "");
	got = test_rx_wait(port_b, rx, n);
	for (i = 0; i < got; i++) {
		ok &= test_pkt_matches(rx[i], &mac_b, 200, i);
		rte_pktmbuf_free(rx[i]);
	}
	TEST_ASSERT_EQUAL(got, n, "all arrived");
	TEST_ASSERT(ok, "in the order sent, intact");
	return TEST_SUCCESS;
}

/* rte_memseg_walk_thread_unsafe(): the first segment whose next IOVA is not DPDK's. */
static int
dma_end_find(const struct rte_memseg_list *msl __rte_unused, const struct rte_memseg *ms,
	     void *arg)
{
	rte_iova_t next = ms->iova + ms->len;

	if (ms->iova == RTE_BAD_IOVA || rte_mem_iova2virt(next) != NULL)
		return 0;
	*(rte_iova_t *)arg = next;
	return 1;
}

/*
 * Where DPDK's memory ends as the device sees it: with IOVA as VA the end
 * of the mbufs' memory list; with IOVA as PA the end of a physical segment
 * no other of DPDK's follows. 0 if none.
 */
static rte_iova_t
dma_memory_end(const struct rte_mbuf *m)
{
	const struct rte_memseg_list *msl = rte_mem_virt2memseg_list(m->buf_addr);
	rte_iova_t end = 0;

	if (rte_eal_iova_mode() == RTE_IOVA_VA)
		return msl != NULL ? (uintptr_t)msl->base_va + msl->len : 0;
	return rte_memseg_walk_thread_unsafe(dma_end_find, &end) == 1 ? end : 0;
}

/*
 * A frame that runs past the end of DPDK's memory is a DMA error even
 * right after one read from that memory's last page in the same pass: the
 * device's translation of that page (its DMA window) covers the page, not
 * what lies beyond it.
 */
static int
test_dma_past_memory_end(void)
{
	struct refnic_hw_stats before, after;
	/* Longer than a push line carries: the device reads them by DMA. */
	struct rte_mbuf *m[2] = { test_make_pkt(&mac_b, 300, 1, 1),
				  test_make_pkt(&mac_b, 300, 2, 1) };
	struct rte_mbuf *rx[4];
	rte_iova_t good[2], end;
	uint16_t n;

	TEST_ASSERT(m[0] != NULL && m[1] != NULL, "");
	end = dma_memory_end(m[0]);
	TEST_ASSERT(end != 0, "no end of DPDK's memory found");
	good[0] = m[0]->buf_iova;
	good[1] = m[1]->buf_iova;
	/* The first inside the last page, the second 32 bytes short of its end. */
	m[0]->buf_iova = end - 4096 - m[0]->data_off;
	m[1]->buf_iova = end - 32 - m[1]->data_off;
	test_hw_stats(DP_A, &before);
	TEST_ASSERT_EQUAL(test_tx_all(port_a, m, 2), 2, "");
	test_hw_counter_wait(DP_A, offsetof(struct refnic_hw_stats, q[0].tx_malformed),
			     before.q[0].tx_malformed + 1);
	test_hw_stats(DP_A, &after);
	rte_eth_tx_done_cleanup(port_a, 0, 0);
	m[0]->buf_iova = good[0];
	m[1]->buf_iova = good[1];
	/* The first one's bytes are whatever lies there: not asserted on. */
	n = test_rx_wait_ms(port_b, rx, RTE_DIM(rx), 100);
	rte_pktmbuf_free_bulk(rx, n);
	TEST_ASSERT_EQUAL(after.q[0].tx_packets, before.q[0].tx_packets + 1, "the first sent");
	TEST_ASSERT_EQUAL(after.q[0].tx_malformed, before.q[0].tx_malformed + 1,
			  "the second dropped");
	TEST_ASSERT_EQUAL(after.dma_errors, before.dma_errors + 1, "counted as one DMA error");
	TEST_ASSERT(dp_send_recv(4, 64, 1), "the queue still works");
	return TEST_SUCCESS;
}

/* Sends n frames port_a to port_b in one burst; returns the mbufs it freed. */
static unsigned int
dp_tx_freed(uint16_t n)
{
	struct rte_mbuf *tx[TEST_BURST];
	unsigned int in_use;
	uint16_t i;

	for (i = 0; i < n; i++)
		tx[i] = test_make_pkt(&mac_b, 64, i, 1);
	in_use = rte_mempool_in_use_count(test_pool);
	if (rte_eth_tx_burst(port_a, 0, tx, n) != n)
		return UINT_MAX;
	return in_use - rte_mempool_in_use_count(test_pool);
}

/*
 * A TX burst that reclaims frees up to twice what it sends, at least 8 and
 * at most 64 of the mbufs the device is done with, not all of them: freeing
 * more puts many bursts' work on one (a lone packet that freed 64 was every
 * 64th round trip of refnic-pingpong, its p99) and pushes the rings out of
 * the cache.
 */
static int
test_tx_reclaim_is_bounded(void)
{
	const uint16_t rounds = (TEST_RING_SIZE - TEST_BURST) / TEST_BURST;
	struct rte_mbuf *rx[TEST_BURST];
	struct refnic_hw_stats hw;
	uint16_t r, got, left;

	/* A fresh ring: every descriptor free, nothing to reclaim. */
	TEST_ASSERT_SUCCESS(test_port_start(port_a, 0, 0), "");
	test_hw_stats(DP_A, &hw);
	/* 224 frames leave 31 descriptors free: the next burst reclaims. */
	for (r = 0; r < rounds; r++)
		TEST_ASSERT(dp_send_recv(TEST_BURST, 64, 1), "round %u", r);
	TEST_ASSERT_EQUAL(test_hw_counter_wait(DP_A, TXPK, hw.q[0].tx_packets +
					       rounds * TEST_BURST),
			  hw.q[0].tx_packets + rounds * TEST_BURST, "the device sent them all");

	TEST_ASSERT_EQUAL(dp_tx_freed(1), 8, "mbufs a lone packet freed (%u were done)",
			  rounds * TEST_BURST);
	/* 38 free: the next seven need none. */
	for (r = 0; r < 7; r++)
		TEST_ASSERT_EQUAL(dp_tx_freed(1), 0, "lone packet %u", r);
	/* 31 free: a burst frees twice what it sends. */
	TEST_ASSERT_EQUAL(dp_tx_freed(TEST_BURST), 2 * TEST_BURST, "mbufs a burst freed");
	for (left = 8 + TEST_BURST; left > 0; left -= got) {
		got = test_rx_wait(port_b, rx, RTE_MIN(left, TEST_BURST));
		TEST_ASSERT(got > 0, "%u frames never arrived", left);
		rte_pktmbuf_free_bulk(rx, got);
	}
	return TEST_SUCCESS;
}

/*
 * Sent mbufs go back to the pool each came from, however the pools take
 * turns within a burst (the TX free gives them back in bulk, a bulk per
 * pool): the second pool's free count is the witness, exactly.
 */
static int
test_tx_free_returns_each_pool(void)
{
	struct rte_mbuf *tx[TEST_BURST], *rx[TEST_BURST];
	unsigned int other_free, i;
	struct rte_mempool *other;
	uint64_t deadline;
	uint16_t got;
	bool ok = true;

	TEST_ASSERT_SUCCESS(test_port_start(port_a, 0, 0), "");
	other = rte_pktmbuf_pool_create("dp_tx_other", 2 * TEST_BURST, 0, 0,
					RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	TEST_ASSERT(other != NULL, "second pool");
	other_free = rte_mempool_avail_count(other);
	for (i = 0; i < TEST_BURST; i++) {
		tx[i] = test_make_pkt(&mac_b, 64, i, 1);
		/* Runs of one pool and of the other, of changing lengths. */
		if (tx[i] != NULL && i % 5 >= 3) {
			struct rte_mbuf *c = rte_pktmbuf_copy(tx[i], other, 0, UINT32_MAX);

			rte_pktmbuf_free(tx[i]);
			tx[i] = c;
		}
		TEST_ASSERT(tx[i] != NULL, "frame %u", i);
	}
	TEST_ASSERT_EQUAL(test_tx_all(port_a, tx, TEST_BURST), TEST_BURST, "");
	got = test_rx_wait(port_b, rx, TEST_BURST);
	for (i = 0; i < got; i++) {
		ok &= test_pkt_matches(rx[i], &mac_b, 64, i);
		rte_pktmbuf_free(rx[i]);
	}
	TEST_ASSERT(ok && got == TEST_BURST, "%u of %u arrived intact", got, TEST_BURST);
	/* Whatever the device has completed is freed now (its completion may
	 * follow the delivery by a moment). */
	deadline = rte_get_timer_cycles() + TEST_WAIT_S * rte_get_timer_hz();
	do {
		TEST_ASSERT(rte_eth_tx_done_cleanup(port_a, 0, 0) >= 0, "");
	} while (rte_mempool_avail_count(other) != other_free &&
		 rte_get_timer_cycles() < deadline);
	TEST_ASSERT_EQUAL(rte_mempool_avail_count(other), other_free,
			  "the second pool's mbufs came back to it");
	rte_mempool_free(other);
	return TEST_SUCCESS;
}

/*
 * Fast free learns its queue's one pool again at each start: an application
 * may stop the port and start it again sending from another pool, and those
 * mbufs go back to theirs. Each pool is the witness of its own, exactly.
 */
static int
test_tx_fast_free_pool_per_start(void)
{
	struct rte_mbuf *tx[TEST_BURST], *rx[TEST_BURST];
	struct rte_mempool *pools[2];
	unsigned int p, avail, i, r;
	uint64_t deadline;
	uint16_t got;

	for (p = 0; p < 2; p++) {
		char name[RTE_MEMPOOL_NAMESIZE];

		snprintf(name, sizeof(name), "dp_ff%u", p);
		pools[p] = rte_pktmbuf_pool_create(name, TEST_RING_SIZE + TEST_BURST, 0, 0,
						   RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
		TEST_ASSERT(pools[p] != NULL, "pool %u", p);
	}
	TEST_ASSERT_SUCCESS(test_port_start_offloads(port_a, 0,
						     RTE_ETH_TX_OFFLOAD_MBUF_FAST_FREE, 0), "");
	for (p = 0; p < 2; p++) {
		if (p > 0) {
			TEST_ASSERT_SUCCESS(rte_eth_dev_stop(port_a), "");
			TEST_ASSERT_SUCCESS(rte_eth_dev_start(port_a), "");
		}
		avail = rte_mempool_avail_count(pools[p]);
		/* The ring wraps: bursts reclaim on the way. */
		for (r = 0; r < TEST_RING_SIZE / TEST_BURST + 2; r++) {
			for (i = 0; i < TEST_BURST; i++) {
				struct rte_mbuf *m = test_make_pkt(&mac_b, 64, i, 1);

				tx[i] = m == NULL ? NULL : rte_pktmbuf_copy(m, pools[p], 0,
									    UINT32_MAX);
				rte_pktmbuf_free(m);
				TEST_ASSERT(tx[i] != NULL, "start %u round %u: pool %u ran dry",
					    p, r, p);
			}
			TEST_ASSERT_EQUAL(test_tx_all(port_a, tx, TEST_BURST), TEST_BURST,
					  "start %u round %u", p, r);
			got = test_rx_wait(port_b, rx, TEST_BURST);
			rte_pktmbuf_free_bulk(rx, got);
			TEST_ASSERT_EQUAL(got, TEST_BURST, "start %u round %u", p, r);
		}
		deadline = rte_get_timer_cycles() + TEST_WAIT_S * rte_get_timer_hz();
		do {
			TEST_ASSERT(rte_eth_tx_done_cleanup(port_a, 0, 0) >= 0, "");
		} while (rte_mempool_avail_count(pools[p]) != avail &&
			 rte_get_timer_cycles() < deadline);
		TEST_ASSERT_EQUAL(rte_mempool_avail_count(pools[p]), avail,
				  "start %u: the pool's mbufs came back to it", p);
	}
	TEST_ASSERT_SUCCESS(test_port_start(port_a, 0, 0), "");
	for (p = 0; p < 2; p++)
		rte_mempool_free(pools[p]);
	return TEST_SUCCESS;
}

/*
 * A device that takes at most 2 descriptors per packet (max_tx_segs=2)
 * says so in dev_info; a longer chain is refused by tx_prepare and, sent
 * anyway, dropped and counted by tx_burst without reaching the device;
 * chains within the limit go out byte-identical, in order.
 */
#define SEGS_A	"net_refnic_s0"
#define SEGS_B	"net_refnic_s1"

static int
test_tx_max_segs_from_device(void)
{
	const char *extra = getenv("REFNIC_TEST_DEVARGS");
	struct rte_mbuf *tx[4], *rx[4];
	struct refnic_hw_stats hw0, hw1;
	struct rte_eth_dev_info info;
	struct rte_eth_stats st;
	struct rte_ether_addr mac;
	unsigned int in_use;
	char args[256];
	const struct test_pair_conf pair = { .name_a = SEGS_A, .name_b = SEGS_B, .args_a = args };
	uint16_t a, b, n, i;
	int ret = TEST_FAILED;

	snprintf(args, sizeof(args), "%s,max_tx_segs=2", extra != NULL ? extra : "profile=ideal");
	in_use = rte_mempool_in_use_count(test_pool);
	TEST_ASSERT_SUCCESS(test_pair_probe(&pair, &a, &b), "%s", args);
	rte_eth_macaddr_get(b, &mac);
	/* nb_seg_max is a TSO packet's, which max_tx_segs= leaves alone. */
	if (rte_eth_dev_info_get(a, &info) != 0 ||
	    info.tx_desc_lim.nb_seg_max != REFNIC_MAX_TSO_SEGS ||
	    info.tx_desc_lim.nb_mtu_seg_max != 2) {
		printf("    nb_mtu_seg_max %u, expected the device's 2\n",
		       info.tx_desc_lim.nb_mtu_seg_max);
		goto out;
	}
	if (test_port_start(a, 0, 0) != 0 || test_port_start(b, 0, 0) != 0)
		goto out;
	test_hw_stats(SEGS_A, &hw0);

	/* tx_prepare stops at the 3-segment chain. */
	tx[0] = test_make_pkt(&mac, 300, 1, 1);
	tx[1] = test_make_pkt(&mac, 300, 2, 2);
	tx[2] = test_make_pkt(&mac, 300, 3, 3);
	rte_errno = 0;
	n = rte_eth_tx_prepare(a, 0, tx, 3);
	if (n != 2 || rte_errno != EINVAL) {
		printf("    tx_prepare passed %u of 3 (rte_errno %d), expected 2, EINVAL\n",
		       n, rte_errno);
		rte_pktmbuf_free_bulk(tx, 3);
		goto out;
	}
	/* tx_burst anyway: the chain is taken, dropped and counted; the two
	 * around it are sent. */
	tx[3] = test_make_pkt(&mac, 1000, 4, 2);
	rte_pktmbuf_free(tx[0]);
	tx[0] = tx[1];
	tx[1] = tx[2];
	tx[2] = tx[3];
	n = test_tx_all(a, tx, 3);
	if (n != 3 || test_rx_wait(b, rx, 2) != 2) {
		printf("    %u sent, expected 3 taken and 2 received\n", n);
		goto out;
	}
	for (i = 0; i < 2; i++) {
		bool ok = test_pkt_matches(rx[i], &mac, i == 0 ? 300 : 1000, i == 0 ? 2 : 4);

		rte_pktmbuf_free(rx[i]);
		if (!ok) {
			printf("    frame %u not byte-identical\n", i);
			goto out;
		}
	}
	rte_delay_ms(10);
	n = rte_eth_rx_burst(b, 0, rx, 4);
	rte_pktmbuf_free_bulk(rx, n);
	test_hw_stats(SEGS_A, &hw1);
	if (n != 0 || rte_eth_stats_get(a, &st) != 0 || st.oerrors != 1 ||
	    hw1.q[0].tx_malformed != hw0.q[0].tx_malformed ||
	    hw1.q[0].tx_packets - hw0.q[0].tx_packets != 2) {
		printf("    %u more received, oerrors %" PRIu64 " (expected 1), device: %" PRIu64
		       " sent, %" PRIu64 " malformed\n", n, st.oerrors,
		       hw1.q[0].tx_packets - hw0.q[0].tx_packets,
		       hw1.q[0].tx_malformed - hw0.q[0].tx_malformed);
		goto out;
	}
	/* Within the limit, a full burst of each size. */
	if (!dp_send_recv_on(a, b, &mac, TEST_BURST, 1514, 2) ||
	    !dp_send_recv_on(a, b, &mac, TEST_BURST, 60, 1))
		goto out;
	ret = TEST_SUCCESS;
out:
	rte_eth_dev_stop(a);
	rte_eth_dev_stop(b);
	test_pair_teardown(&pair);
	TEST_ASSERT_EQUAL(rte_mempool_in_use_count(test_pool), in_use, "mbufs held");
	return ret;
}

const struct unit_test_suite refnic_datapath_suite = {
	.name = "datapath",
	.setup = dp_setup,
	.teardown = dp_teardown,
	.cases = {
		TEST_CASE(test_tx_one_doorbell_per_burst),
		TEST_CASE(test_rx_one_doorbell_per_refill),
		TEST_CASE(test_pair_byte_identical),
		TEST_CASE(test_mac_filter),
		TEST_CASE(test_jumbo_scatter),
		TEST_CASE(test_jumbo_without_scatter_offload),
		TEST_CASE(test_bad_iova_is_a_dma_error),
		TEST_CASE(test_dma_past_memory_end),
		TEST_CASE(test_mixed_burst_keeps_order),
		TEST_CASE(test_bad_frames_mid_burst),
		TEST_CASE(test_tx_reclaim_is_bounded),
		TEST_CASE(test_tx_free_returns_each_pool),
		TEST_CASE(test_tx_fast_free_pool_per_start),
		TEST_CASE(test_tx_max_segs_from_device),
		TEST_CASES_END()
	},
};

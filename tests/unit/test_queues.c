/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/* Per-queue start/stop, deferred start, descriptor status on full and empty rings. */

#include <rte_mempool.h>

#include "test_common.h"

#define REFNIC_DEFAULT_RX_FREE_THRESH_TEST	32	/* the PMD's default batch */

#define QA	"net_refnic_qa"
#define QB	"net_refnic_qb"

static uint16_t port_a, port_b;
static struct rte_ether_addr mac_b;

static const struct test_pair_conf q_pair = { .name_a = QA, .name_b = QB };

static int
q_setup(void)
{
	return test_pair_setup(&q_pair, &port_a, &port_b, &mac_b) == 0 ?
	       TEST_SUCCESS : TEST_FAILED;
}

static void
q_teardown(void)
{
	test_pair_teardown(&q_pair);
}

/* Send n frames A->B; returns how many the device took on B (delivered or dropped). */
static void
q_send(uint16_t n)
{
	struct rte_mbuf *pkts[TEST_RING_SIZE];
	uint16_t i;

	for (i = 0; i < n; i++)
		pkts[i] = test_make_pkt(&mac_b, 64, i, 1);
	test_tx_all(port_a, pkts, n);
}

static void
q_drain(uint16_t port)
{
	struct rte_mbuf *pkts[TEST_BURST];
	uint16_t n, i;

	while ((n = rte_eth_rx_burst(port, 0, pkts, TEST_BURST)) > 0)
		for (i = 0; i < n; i++)
			rte_pktmbuf_free(pkts[i]);
}

/* Wait until B's device has seen `total` frames arrive (delivered + dropped). */
static bool
q_wait_seen(uint64_t total)
{
	uint64_t deadline = rte_get_timer_cycles() + TEST_WAIT_S * rte_get_timer_hz();
	struct refnic_hw_stats s;

	do {
		test_hw_stats(QB, &s);
		if (s.q[0].rx_packets + s.q[0].rx_no_buffer >= total)
			return s.q[0].rx_packets + s.q[0].rx_no_buffer == total;
		rte_delay_us_sleep(100);
	} while (rte_get_timer_cycles() < deadline);
	return false;
}

/* A stopped RX queue gives its buffers back and the device drops; restarted, it receives. */
static int
test_rx_queue_stop_start(void)
{
	unsigned int in_use = rte_mempool_in_use_count(test_pool);
	struct refnic_hw_stats s;
	struct rte_mbuf *rx;
	uint64_t seen;

	test_hw_stats(QB, &s);
	seen = s.q[0].rx_packets + s.q[0].rx_no_buffer;
	TEST_ASSERT_SUCCESS(rte_eth_dev_rx_queue_stop(port_b, 0), "");
	TEST_ASSERT(rte_mempool_in_use_count(test_pool) < in_use, "RX buffers not returned");
	q_send(8);
	TEST_ASSERT(q_wait_seen(seen + 8), "frames not seen");
	test_hw_stats(QB, &s);
	TEST_ASSERT_EQUAL(s.q[0].rx_no_buffer >= 8, 1, "a stopped queue must drop");
	TEST_ASSERT_SUCCESS(rte_eth_dev_rx_queue_start(port_b, 0), "");
	q_send(1);
	TEST_ASSERT_EQUAL(test_rx_wait(port_b, &rx, 1), 1, "restarted queue receives");
	rte_pktmbuf_free(rx);
	TEST_ASSERT_SUCCESS(rte_eth_dev_tx_queue_stop(port_a, 0), "");
	TEST_ASSERT_SUCCESS(rte_eth_dev_tx_queue_start(port_a, 0), "");
	q_send(1);
	TEST_ASSERT_EQUAL(test_rx_wait(port_b, &rx, 1), 1, "restarted TX queue sends");
	rte_pktmbuf_free(rx);
	return TEST_SUCCESS;
}

/*
 * Bursts on stopped queues of a started port (an application's mistake):
 * they move nothing, write no doorbell, take and leak no mbuf, and the
 * queues restart as good as new.
 */
static int
test_bursts_on_stopped_queues(void)
{
	unsigned int in_use = rte_mempool_in_use_count(test_pool), stopped_use;
	uint64_t rx_db, tx_db;
	struct rte_mbuf *pkts[TEST_BURST], *rx;
	unsigned int i;

	q_drain(port_b);
	TEST_ASSERT_SUCCESS(rte_eth_dev_rx_queue_stop(port_b, 0), "");
	TEST_ASSERT_SUCCESS(rte_eth_dev_tx_queue_stop(port_a, 0), "");
	stopped_use = rte_mempool_in_use_count(test_pool);
	rx_db = test_xstat(port_b, "rx_doorbell_writes");
	tx_db = test_xstat(port_a, "tx_doorbell_writes");
	for (i = 0; i < TEST_BURST; i++)
		pkts[i] = test_make_pkt(&mac_b, 64, i, 1);
	for (i = 0; i < 100; i++) {
		TEST_ASSERT_EQUAL(rte_eth_rx_burst(port_b, 0, &rx, 1), 0, "stopped RX queue received");
		TEST_ASSERT_EQUAL(rte_eth_tx_burst(port_a, 0, pkts, TEST_BURST), 0,
				  "stopped TX queue claims to have sent");
	}
	rte_pktmbuf_free_bulk(pkts, TEST_BURST);
	TEST_ASSERT_EQUAL(test_xstat(port_b, "rx_doorbell_writes"), rx_db,
			  "RX doorbell written on a stopped queue");
	TEST_ASSERT_EQUAL(test_xstat(port_a, "tx_doorbell_writes"), tx_db,
			  "TX doorbell written on a stopped queue");
	TEST_ASSERT_EQUAL(rte_mempool_in_use_count(test_pool), stopped_use,
			  "polling a stopped RX queue took mbufs");
	TEST_ASSERT_SUCCESS(rte_eth_dev_rx_queue_start(port_b, 0), "");
	TEST_ASSERT_SUCCESS(rte_eth_dev_tx_queue_start(port_a, 0), "");
	TEST_ASSERT_EQUAL(rte_mempool_in_use_count(test_pool), in_use,
			  "restarted queues hold a different number of mbufs");
	q_send(1);
	TEST_ASSERT_EQUAL(test_rx_wait(port_b, &rx, 1), 1, "restarted queues carry frames");
	rte_pktmbuf_free(rx);
	return TEST_SUCCESS;
}

/* A deferred queue stays stopped at port start until started on its own. */
static int
test_deferred_start(void)
{
	struct rte_eth_rxconf rxconf = { .rx_deferred_start = 1 };
	struct rte_eth_conf conf = { 0 };
	struct rte_eth_rxq_info info;
	struct rte_mbuf *rx;

	TEST_ASSERT_SUCCESS(rte_eth_dev_stop(port_b), "");
	TEST_ASSERT_SUCCESS(rte_eth_dev_configure(port_b, 1, 1, &conf), "");
	TEST_ASSERT_SUCCESS(rte_eth_rx_queue_setup(port_b, 0, TEST_RING_SIZE, SOCKET_ID_ANY,
						   &rxconf, test_pool), "");
	TEST_ASSERT_SUCCESS(rte_eth_dev_start(port_b), "");
	rte_eth_promiscuous_enable(port_b);
	TEST_ASSERT_SUCCESS(rte_eth_rx_queue_info_get(port_b, 0, &info), "");
	TEST_ASSERT_EQUAL(info.queue_state, RTE_ETH_QUEUE_STATE_STOPPED, "deferred queue");
	TEST_ASSERT_EQUAL(info.conf.rx_deferred_start, 1, "");
	TEST_ASSERT_SUCCESS(rte_eth_dev_rx_queue_start(port_b, 0), "");
	TEST_ASSERT_SUCCESS(rte_eth_rx_queue_info_get(port_b, 0, &info), "");
	TEST_ASSERT_EQUAL(info.queue_state, RTE_ETH_QUEUE_STATE_STARTED, "started");
	q_send(1);
	TEST_ASSERT_EQUAL(test_rx_wait(port_b, &rx, 1), 1, "");
	rte_pktmbuf_free(rx);
	return TEST_SUCCESS;
}

/*
 * A deferred TX queue stays stopped at port start: it sends nothing and
 * rings no doorbell until started on its own, then its frames arrive.
 */
static int
test_tx_deferred_start(void)
{
	struct rte_eth_txconf txconf = { .tx_deferred_start = 1 };
	struct rte_eth_conf conf = { 0 };
	struct rte_eth_txq_info info;
	struct rte_mbuf *m, *rx;
	uint64_t tx_db;

	q_drain(port_b);
	TEST_ASSERT_SUCCESS(rte_eth_dev_stop(port_a), "");
	TEST_ASSERT_SUCCESS(rte_eth_dev_configure(port_a, 1, 1, &conf), "");
	TEST_ASSERT_SUCCESS(rte_eth_rx_queue_setup(port_a, 0, TEST_RING_SIZE, SOCKET_ID_ANY,
						   NULL, test_pool), "");
	TEST_ASSERT_SUCCESS(rte_eth_tx_queue_setup(port_a, 0, TEST_RING_SIZE, SOCKET_ID_ANY,
						   &txconf), "");
	TEST_ASSERT_SUCCESS(rte_eth_dev_start(port_a), "");
	TEST_ASSERT_SUCCESS(rte_eth_tx_queue_info_get(port_a, 0, &info), "");
	TEST_ASSERT_EQUAL(info.queue_state, RTE_ETH_QUEUE_STATE_STOPPED, "deferred queue");
	TEST_ASSERT_EQUAL(info.conf.tx_deferred_start, 1, "");
	tx_db = test_xstat(port_a, "tx_doorbell_writes");
	m = test_make_pkt(&mac_b, 64, 7, 1);
	TEST_ASSERT_EQUAL(rte_eth_tx_burst(port_a, 0, &m, 1), 0, "a deferred queue sent");
	TEST_ASSERT_EQUAL(test_xstat(port_a, "tx_doorbell_writes"), tx_db, "doorbell rung");
	TEST_ASSERT_EQUAL(test_rx_wait_ms(port_b, &rx, 1, 100), 0, "a frame arrived");
	TEST_ASSERT_SUCCESS(rte_eth_dev_tx_queue_start(port_a, 0), "");
	TEST_ASSERT_SUCCESS(rte_eth_tx_queue_info_get(port_a, 0, &info), "");
	TEST_ASSERT_EQUAL(info.queue_state, RTE_ETH_QUEUE_STATE_STARTED, "started");
	TEST_ASSERT_EQUAL(test_tx_all(port_a, &m, 1), 1, "");
	TEST_ASSERT_EQUAL(test_rx_wait(port_b, &rx, 1), 1, "");
	TEST_ASSERT(test_pkt_matches(rx, &mac_b, 64, 7), "intact");
	rte_pktmbuf_free(rx);
	return TEST_SUCCESS;
}

/* RX descriptor status and queue count on an empty, a partly filled and a full ring. */
static int
test_rx_descriptor_status(void)
{
	uint16_t posted = TEST_RING_SIZE - 1;
	struct refnic_hw_stats s;
	uint32_t full;

	q_drain(port_b);
	TEST_ASSERT_EQUAL(rte_eth_rx_queue_count(port_b, 0), 0, "empty");
	TEST_ASSERT_EQUAL(rte_eth_rx_descriptor_status(port_b, 0, 0), RTE_ETH_RX_DESC_AVAIL, "");
	TEST_ASSERT_EQUAL(rte_eth_rx_descriptor_status(port_b, 0, posted),
			  RTE_ETH_RX_DESC_UNAVAIL, "the slot kept empty");
	test_hw_stats(QB, &s);
	q_send(10);
	TEST_ASSERT(q_wait_seen(s.q[0].rx_packets + s.q[0].rx_no_buffer + 10), "");
	TEST_ASSERT_EQUAL(rte_eth_rx_queue_count(port_b, 0), 10, "10 waiting");
	TEST_ASSERT_EQUAL(rte_eth_rx_descriptor_status(port_b, 0, 9), RTE_ETH_RX_DESC_DONE, "");
	TEST_ASSERT_EQUAL(rte_eth_rx_descriptor_status(port_b, 0, 10), RTE_ETH_RX_DESC_AVAIL, "");
	/* Fill it: every posted buffer used (up to 31 may await a refill batch),
	 * the rest dropped. */
	test_hw_stats(QB, &s);
	q_send(posted);
	TEST_ASSERT(q_wait_seen(s.q[0].rx_packets + s.q[0].rx_no_buffer + posted), "");
	full = rte_eth_rx_queue_count(port_b, 0);
	TEST_ASSERT(full + REFNIC_DEFAULT_RX_FREE_THRESH_TEST > posted, "%u waiting", full);
	TEST_ASSERT_EQUAL(rte_eth_rx_descriptor_status(port_b, 0, full - 1),
			  RTE_ETH_RX_DESC_DONE, "");
	TEST_ASSERT_EQUAL(rte_eth_rx_descriptor_status(port_b, 0, full),
			  RTE_ETH_RX_DESC_UNAVAIL, "a full ring has nothing posted beyond");
	q_drain(port_b);
	TEST_ASSERT_EQUAL(rte_eth_rx_queue_count(port_b, 0), 0, "drained");
	return TEST_SUCCESS;
}

/* TX descriptor status while the device holds them, and once it has sent them. */
static int
test_tx_descriptor_status(void)
{
	struct refnic_emu *emu = refnic_emu_lookup(QA);
	uint64_t deadline;
	int ret;

	refnic_emu_set_dataplane_paused(emu, true);
	q_send(10);	/* in flight: the ten descriptors just before the tail */
	TEST_ASSERT_EQUAL(rte_eth_tx_descriptor_status(port_a, 0, 0), RTE_ETH_TX_DESC_DONE,
			  "the next free slot");
	ret = rte_eth_tx_descriptor_status(port_a, 0, TEST_RING_SIZE - 1);
	refnic_emu_set_dataplane_paused(emu, false);
	TEST_ASSERT_EQUAL(ret, RTE_ETH_TX_DESC_FULL, "the newest in flight");
	deadline = rte_get_timer_cycles() + TEST_WAIT_S * rte_get_timer_hz();
	while (rte_eth_tx_descriptor_status(port_a, 0, TEST_RING_SIZE - 1) != RTE_ETH_TX_DESC_DONE &&
	       rte_get_timer_cycles() < deadline)
		rte_delay_us_sleep(100);
	TEST_ASSERT_EQUAL(rte_eth_tx_descriptor_status(port_a, 0, TEST_RING_SIZE - 1),
			  RTE_ETH_TX_DESC_DONE, "sent");
	TEST_ASSERT(rte_eth_tx_done_cleanup(port_a, 0, 0) >= 10, "cleanup frees them");
	q_drain(port_b);
	return TEST_SUCCESS;
}

/* tx_done_cleanup counts packets and stops at free_cnt; stopped queues are safe. */
static int
test_done_cleanup_and_stopped_queues(void)
{
	struct refnic_emu *emu = refnic_emu_lookup(QA);
	struct rte_mbuf *pkts[8];
	unsigned int avail;
	uint64_t deadline;
	int freed;
	uint16_t i;

	rte_eth_tx_done_cleanup(port_a, 0, 0);
	refnic_emu_set_dataplane_paused(emu, true);
	for (i = 0; i < RTE_DIM(pkts); i++)
		pkts[i] = test_make_pkt(&mac_b, 300, i, 2);	/* two segments each */
	TEST_ASSERT_EQUAL(test_tx_all(port_a, pkts, RTE_DIM(pkts)), RTE_DIM(pkts), "");
	/* The witness is the pool: mbufs back in it, whatever the call returns.
	 * (B's RX ring takes none: it refills only in rx_burst.) */
	avail = rte_mempool_avail_count(test_pool);
	TEST_ASSERT_EQUAL(rte_eth_tx_done_cleanup(port_a, 0, 0), 0, "nothing sent yet");
	TEST_ASSERT_EQUAL(rte_mempool_avail_count(test_pool), avail,
			  "mbufs freed before the device sent them");
	refnic_emu_set_dataplane_paused(emu, false);
	deadline = rte_get_timer_cycles() + TEST_WAIT_S * rte_get_timer_hz();
	while (rte_eth_tx_descriptor_status(port_a, 0, TEST_RING_SIZE - 1) != RTE_ETH_TX_DESC_DONE &&
	       rte_get_timer_cycles() < deadline)
		rte_delay_us_sleep(100);
	TEST_ASSERT_EQUAL(rte_eth_tx_done_cleanup(port_a, 0, 1), 1, "one packet, two segments");
	TEST_ASSERT_EQUAL(rte_mempool_avail_count(test_pool), avail + 2,
			  "one packet's two mbufs back in the pool");
	freed = rte_eth_tx_done_cleanup(port_a, 0, 0);
	TEST_ASSERT_EQUAL(freed, RTE_DIM(pkts) - 1, "the other packets");
	TEST_ASSERT_EQUAL(rte_mempool_avail_count(test_pool), avail + 2 * RTE_DIM(pkts),
			  "every mbuf of the eight packets back in the pool");
	TEST_ASSERT_EQUAL(rte_eth_tx_done_cleanup(port_a, 0, 0), 0, "nothing left");
	TEST_ASSERT_EQUAL(rte_mempool_avail_count(test_pool), avail + 2 * RTE_DIM(pkts),
			  "nothing freed twice");
	q_drain(port_b);

	/* Stopped queues: nothing to clean, nothing posted, and no crash. */
	TEST_ASSERT_SUCCESS(rte_eth_dev_tx_queue_stop(port_a, 0), "");
	TEST_ASSERT_SUCCESS(rte_eth_dev_rx_queue_stop(port_b, 0), "");
	TEST_ASSERT_EQUAL(rte_eth_tx_done_cleanup(port_a, 0, 0), 0, "stopped TX queue");
	TEST_ASSERT_EQUAL(rte_eth_rx_queue_count(port_b, 0), 0, "stopped RX queue");
	TEST_ASSERT_EQUAL(rte_eth_rx_descriptor_status(port_b, 0, 0), RTE_ETH_RX_DESC_UNAVAIL, "");
	TEST_ASSERT_SUCCESS(rte_eth_dev_tx_queue_start(port_a, 0), "");
	TEST_ASSERT_SUCCESS(rte_eth_dev_rx_queue_start(port_b, 0), "");
	return TEST_SUCCESS;
}

const struct unit_test_suite refnic_queues_suite = {
	.name = "queues",
	.setup = q_setup,
	.teardown = q_teardown,
	.cases = {
		TEST_CASE(test_rx_queue_stop_start),
		TEST_CASE(test_rx_descriptor_status),
		TEST_CASE(test_tx_descriptor_status),
		TEST_CASE(test_done_cleanup_and_stopped_queues),
		TEST_CASE(test_bursts_on_stopped_queues),
		TEST_CASE(test_deferred_start),
		TEST_CASE(test_tx_deferred_start),
		TEST_CASES_END()
	},
};

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/* Start/stop/close/reset cycles: mbufs come back, counters add up, xstats line up. */

#include <rte_mempool.h>

#include "test_common.h"

#define LC_A	"net_refnic_l0"
#define LC_B	"net_refnic_l1"
#define LC_CYCLES	5

static uint16_t port_a, port_b;

static int
lc_create(void)
{
	return test_pair_create(LC_A, LC_B, &port_a, &port_b) == 0 ? TEST_SUCCESS : TEST_FAILED;
}

static void
lc_destroy(void)
{
	test_pair_destroy(LC_A, LC_B);
}

/* Send n frames both ways; receive only `take` of them, leave the rest in rings. */
static uint16_t
lc_traffic(uint16_t n, uint16_t take)
{
	struct rte_ether_addr any = {{ 0x02, 0, 0, 0, 0, 1 }};
	struct rte_mbuf *pkts[TEST_BURST];
	uint16_t i, got, p;
	const uint16_t ports[2] = { port_a, port_b };

	for (p = 0; p < 2; p++) {
		for (i = 0; i < n; i++)
			pkts[i] = test_make_pkt(&any, 128, i, 1 + i % 2);
		test_tx_all(ports[p], pkts, n);
	}
	got = test_rx_wait(port_b, pkts, take);
	for (i = 0; i < got; i++)
		rte_pktmbuf_free(pkts[i]);
	return got;
}

/* mbufs in use return to the baseline after stop and after close, every cycle. */
static int
test_mbufs_return_on_stop_and_close(void)
{
	unsigned int baseline = rte_mempool_in_use_count(test_pool), c;

	TEST_ASSERT_SUCCESS(lc_create(), "");
	for (c = 0; c < LC_CYCLES; c++) {
		TEST_ASSERT_SUCCESS(test_port_start(port_a, 0, 0), "cycle %u", c);
		TEST_ASSERT_SUCCESS(test_port_start(port_b, 0, 0), "cycle %u", c);
		TEST_ASSERT_EQUAL(lc_traffic(TEST_BURST, TEST_BURST / 2), TEST_BURST / 2,
				  "cycle %u", c);
		TEST_ASSERT_SUCCESS(rte_eth_dev_stop(port_a), "");
		TEST_ASSERT_SUCCESS(rte_eth_dev_stop(port_b), "");
		TEST_ASSERT_EQUAL(rte_mempool_in_use_count(test_pool), baseline,
				  "mbufs leaked after stop, cycle %u", c);
	}
	TEST_ASSERT_SUCCESS(test_port_start(port_a, 0, 0), "");
	TEST_ASSERT_SUCCESS(test_port_start(port_b, 0, 0), "");
	lc_traffic(TEST_BURST, 1);
	lc_destroy();	/* close while started, frames still in the rings */
	TEST_ASSERT_EQUAL(rte_mempool_in_use_count(test_pool), baseline, "leaked after close");
	return TEST_SUCCESS;
}

/* Basic stats count what crossed the cable, exactly, and reset to zero. */
static int
test_stats_counts(void)
{
	struct rte_eth_stats sa, sb;
	int ret = TEST_SUCCESS;

	TEST_ASSERT_SUCCESS(lc_create(), "");
	if (test_port_start(port_a, 0, 0) != 0 || test_port_start(port_b, 0, 0) != 0 ||
	    lc_traffic(TEST_BURST, TEST_BURST) != TEST_BURST ||
	    rte_eth_stats_get(port_a, &sa) != 0 || rte_eth_stats_get(port_b, &sb) != 0)
		ret = TEST_FAILED;
	if (ret == TEST_SUCCESS &&
	    (sa.opackets != TEST_BURST || sb.ipackets != TEST_BURST ||
	     sa.obytes != TEST_BURST * 128 || sb.ibytes != sa.obytes ||
	     sb.opackets != TEST_BURST || sa.ipackets != TEST_BURST || sb.imissed != 0)) {
		printf("    A: out %" PRIu64 "/%" PRIu64 " in %" PRIu64 "; B: in %" PRIu64
		       "/%" PRIu64 " out %" PRIu64 "\n", sa.opackets, sa.obytes, sa.ipackets,
		       sb.ipackets, sb.ibytes, sb.opackets);
		ret = TEST_FAILED;
	}
	if (ret == TEST_SUCCESS && (rte_eth_stats_reset(port_b) != 0 ||
				    rte_eth_stats_get(port_b, &sb) != 0 ||
				    sb.ipackets != 0 || sb.opackets != 0 || sb.ibytes != 0 ||
				    sb.obytes != 0 || sb.imissed != 0 || sb.ierrors != 0)) {
		printf("    B after reset: in %" PRIu64 "/%" PRIu64 " out %" PRIu64 "/%" PRIu64 "\n",
		       sb.ipackets, sb.ibytes, sb.opackets, sb.obytes);
		ret = TEST_FAILED;
	}
	/* A reset that latches zero is no reset: the next traffic counts exactly,
	 * from zero on B, on top of the first on A (which was not reset). */
	if (ret == TEST_SUCCESS &&
	    (lc_traffic(TEST_BURST, TEST_BURST) != TEST_BURST ||
	     rte_eth_stats_get(port_a, &sa) != 0 || rte_eth_stats_get(port_b, &sb) != 0 ||
	     sb.ipackets != TEST_BURST || sb.opackets != TEST_BURST ||
	     sb.ibytes != TEST_BURST * 128 || sb.obytes != TEST_BURST * 128 ||
	     sa.opackets != 2 * TEST_BURST || sa.obytes != 2 * TEST_BURST * 128 ||
	     sa.ipackets != 2 * TEST_BURST)) {
		printf("    after reset and %u more: A out %" PRIu64 "/%" PRIu64 " in %" PRIu64
		       "; B in %" PRIu64 "/%" PRIu64 " out %" PRIu64 "/%" PRIu64 "\n", TEST_BURST,
		       sa.opackets, sa.obytes, sa.ipackets, sb.ipackets, sb.ibytes, sb.opackets,
		       sb.obytes);
		ret = TEST_FAILED;
	}
	lc_destroy();
	return ret;
}

#define QS_QUEUES	4
#define QS_FRAMES	32	/* through queue q: QS_FRAMES * (q + 1) */

/* Every RSS table entry of B to queue q. */
static int
qs_steer(uint16_t q)
{
	struct rte_eth_rss_reta_entry64 reta[REFNIC_RSS_RETA_SIZE / RTE_ETH_RETA_GROUP_SIZE];
	unsigned int i, j;

	for (i = 0; i < RTE_DIM(reta); i++) {
		reta[i].mask = UINT64_MAX;
		for (j = 0; j < RTE_ETH_RETA_GROUP_SIZE; j++)
			reta[i].reta[j] = q;
	}
	return rte_eth_dev_rss_reta_update(port_b, reta, REFNIC_RSS_RETA_SIZE);
}

/* Frames of several flows from A's TX queue q; their bytes added up. */
static int
qs_send(uint16_t q, uint64_t *bytes)
{
	static const uint8_t src[4] = { 10, 0, 0, 1 }, dst[4] = { 10, 0, 0, 2 };
	struct rte_mbuf *m;
	unsigned int i;

	for (i = 0; i < QS_FRAMES * (q + 1u); i++) {
		m = test_make_tcp_pkt(src, dst, false, 1000 + i, 80);
		if (m == NULL)
			return -ENOMEM;
		*bytes += m->pkt_len;
		if (test_tx_all_queue(port_a, q, &m, 1) != 1)
			return -EIO;
	}
	return 0;
}

/* Receive n frames from any of B's queues, counting per queue. */
static unsigned int
qs_receive(unsigned int n, uint64_t pkts[], uint64_t bytes[])
{
	uint64_t deadline = rte_get_timer_cycles() + TEST_WAIT_S * rte_get_timer_hz();
	struct rte_mbuf *rx[TEST_BURST];
	unsigned int got = 0;
	uint16_t q, i, k;

	while (got < n && rte_get_timer_cycles() < deadline) {
		for (q = 0; q < QS_QUEUES; q++) {
			k = rte_eth_rx_burst(port_b, q, rx, TEST_BURST);
			for (i = 0; i < k; i++) {
				bytes[q] += rx[i]->pkt_len;
				rte_pktmbuf_free(rx[i]);
			}
			pkts[q] += k;
			got += k;
		}
	}
	return got;
}

/* Each of the port's queue counters (ethdev's rx/tx_qN_* xstats) is pkts[q] and bytes[q]. */
static int
qs_check(uint16_t port, const char *dir, const uint64_t pkts[], const uint64_t bytes[])
{
	char name[64];
	uint64_t p, b;
	uint16_t q;

	for (q = 0; q < QS_QUEUES; q++) {
		snprintf(name, sizeof(name), "%s_q%u_packets", dir, q);
		p = test_xstat(port, name);
		snprintf(name, sizeof(name), "%s_q%u_bytes", dir, q);
		b = test_xstat(port, name);
		if (p != pkts[q] || b != bytes[q]) {
			printf("    %s queue %u: %" PRIu64 " packets, %" PRIu64 " bytes; want %"
			       PRIu64 ", %" PRIu64 "\n", dir, q, p, b, pkts[q], bytes[q]);
			return -1;
		}
	}
	return 0;
}

/*
 * Queue q of each end carries QS_FRAMES * (q + 1) frames (B's RSS table
 * pointed at q for them): every queue's counters, as ethdev's rx/tx_qN_*
 * xstats show them, are what the application sent and took there, exactly;
 * a reset zeroes them.
 */
static int
qs_run(const char *args_b)
{
	const struct rte_eth_conf rss = {
		.rxmode = { .mq_mode = RTE_ETH_MQ_RX_RSS },
		.rx_adv_conf = { .rss_conf = { .rss_hf = RTE_ETH_RSS_NONFRAG_IPV4_TCP } },
	};
	uint64_t tx_pkts[QS_QUEUES] = { 0 }, tx_bytes[QS_QUEUES] = { 0 };
	uint64_t rx_pkts[QS_QUEUES] = { 0 }, rx_bytes[QS_QUEUES] = { 0 }, zero[QS_QUEUES] = { 0 };
	uint16_t q;
	int ret;

	ret = test_port_create(LC_A, "cable=qstats", &port_a) |
	      test_port_create(LC_B, args_b, &port_b);
	if (ret == 0)
		ret = test_port_setup(port_a, NULL, QS_QUEUES, 0, 0, NULL) |
		      test_port_setup(port_b, &rss, QS_QUEUES, 0, 0, NULL);
	for (q = 0; ret == 0 && q < QS_QUEUES; q++) {
		tx_pkts[q] = QS_FRAMES * (q + 1u);
		ret = qs_steer(q) | qs_send(q, &tx_bytes[q]);
		if (ret == 0 && qs_receive(tx_pkts[q], rx_pkts, rx_bytes) != tx_pkts[q])
			ret = -ETIMEDOUT;
	}
	if (ret == 0 && memcmp(rx_pkts, tx_pkts, sizeof(rx_pkts)) != 0) {
		printf("    frames landed off the queue the RSS table named\n");
		ret = -EINVAL;
	}
	if (ret == 0)
		ret = qs_check(port_a, "tx", tx_pkts, tx_bytes) |
		      qs_check(port_b, "rx", rx_pkts, rx_bytes);
	if (ret == 0)
		ret = rte_eth_stats_reset(port_b) | qs_check(port_b, "rx", zero, zero);
	test_port_destroy(LC_B);
	test_port_destroy(LC_A);
	return ret;
}

/* With the device's counters (statistics DMA) and with the PMD's own. */
static int
test_queue_stats_counts(void)
{
	TEST_ASSERT_SUCCESS(qs_run("cable=qstats"), "with the device's counters");
	TEST_ASSERT_SUCCESS(qs_run("cable=qstats,caps_off=stats_dma"), "with the PMD's own");
	return TEST_SUCCESS;
}

/* Names and values line up by id; the doorbell count is the device's. */
static int
test_xstats_line_up(void)
{
	struct rte_eth_xstat_name *names = NULL;
	struct rte_eth_xstat *values = NULL;
	struct refnic_hw_stats hw;
	int n, i, found = 0, ret = TEST_FAILED;

	TEST_ASSERT_SUCCESS(lc_create(), "");
	if (test_port_start(port_a, 0, 0) != 0 || test_port_start(port_b, 0, 0) != 0 ||
	    lc_traffic(TEST_BURST, TEST_BURST) != TEST_BURST)
		goto out;
	n = rte_eth_xstats_get_names(port_a, NULL, 0);
	names = calloc(n, sizeof(*names));
	values = calloc(n, sizeof(*values));
	if (n <= 0 || rte_eth_xstats_get_names(port_a, names, n) != n ||
	    rte_eth_xstats_get(port_a, values, n) != n)
		goto out;
	test_hw_stats(LC_A, &hw);
	for (i = 0; i < n; i++) {
		if (values[i].id != (uint64_t)i)
			goto out;
		if (strcmp(names[i].name, "tx_doorbell_writes") == 0) {
			found++;
			if (values[i].value != hw.q[0].tx_doorbells || values[i].value == 0) {
				printf("    tx_doorbell_writes %" PRIu64 ", device %" PRIu64 "\n",
				       values[i].value, hw.q[0].tx_doorbells);
				goto out;
			}
		}
		if (strcmp(names[i].name, "admin_commands") == 0 && values[i].value > 0)
			found++;
		if (strcmp(names[i].name, "rx_q0_doorbell_writes") == 0)
			found++;
	}
	ret = found == 3 ? TEST_SUCCESS : TEST_FAILED;
out:
	free(names);
	free(values);
	lc_destroy();
	return ret;
}

/* rte_eth_dev_reset() brings a port back; the app reconfigures and traffic flows. */
static int
test_dev_reset(void)
{
	int ret;

	TEST_ASSERT_SUCCESS(lc_create(), "");
	ret = test_port_start(port_a, 0, 0) | test_port_start(port_b, 0, 0);
	if (ret == 0)
		ret = rte_eth_dev_reset(port_a);
	if (ret == 0)
		ret = test_port_start(port_a, 0, 0);
	if (ret == 0 && lc_traffic(TEST_BURST, TEST_BURST) != TEST_BURST)
		ret = -1;
	lc_destroy();
	TEST_ASSERT_SUCCESS(ret, "port did not come back from reset");
	return TEST_SUCCESS;
}

const struct unit_test_suite refnic_lifecycle_suite = {
	.name = "lifecycle",
	.cases = {
		TEST_CASE(test_mbufs_return_on_stop_and_close),
		TEST_CASE(test_stats_counts),
		TEST_CASE(test_queue_stats_counts),
		TEST_CASE(test_xstats_line_up),
		TEST_CASE(test_dev_reset),
		TEST_CASES_END()
	},
};

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
		TEST_CASE(test_xstats_line_up),
		TEST_CASE(test_dev_reset),
		TEST_CASES_END()
	},
};

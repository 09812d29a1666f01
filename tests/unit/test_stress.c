/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * Concurrency under load, with every frame accounted for.
 *
 * Every lcore (2 to 4, `--lcores` mapped onto the CPUs) forwards
 * on its own queue pair of two wired ports, default (inline) execution:
 * the device's TX work runs on the lcore that rings the doorbell and
 * delivers into the far port's RX ring that RSS picks, so every RX ring is
 * filled by several lcores at once, under the device's queue locks. Port A
 * sends UDP flows, port B sends each frame back (io forwarding), A takes
 * them. At the end: no frame garbled, each RX ring was filled by more than
 * one lcore, the device's counters match what the application sent and
 * received exactly (sent = received + counted drops, both ways), traffic
 * flows again, and every mbuf is back in its pool.
 *
 * It needs two lcores or more (skipped otherwise); devtools/test.sh runs
 * it with --lcores '(0-3)@(0-1)'.
 */

#include <stdlib.h>

#include <rte_launch.h>
#include <rte_lcore.h>

#include "lcore_fwd.h"

#define STRESS_A	"net_refnic_st0"
#define STRESS_B	"net_refnic_st1"
#define STRESS_S	2.0	/* of traffic; REFNIC_STRESS_S to change */

static int
stress_setup(void)
{
	unsigned int n = rte_lcore_count();

	if (n < 2)
		return TEST_SUCCESS;	/* the case skips */
	memset(st_l, 0, sizeof(st_l));
	return st_setup(STRESS_A, STRESS_B, RTE_MIN(n, (unsigned int)ST_MAX_Q), "");
}

static int
test_stress_lcores_share_rx_rings(void)
{
	struct refnic_hw_stats a0, b0, a, b;
	struct st_dir ab, ba;
	struct st_totals t;
	const char *env_s = getenv("REFNIC_STRESS_S");
	double seconds = env_s != NULL ? atof(env_s) : STRESS_S;
	unsigned int n = rte_lcore_count(), q, senders;
	uint64_t t0, end;

	if (n < 2) {
		printf("    needs two lcores or more (--lcores)\n");
		return TEST_SKIPPED;
	}
	test_hw_stats(STRESS_A, &a0);
	test_hw_stats(STRESS_B, &b0);
	st_qbase = 0;
	__atomic_store_n(&st_stop, false, __ATOMIC_RELEASE);
	__atomic_store_n(&st_sending, true, __ATOMIC_RELEASE);
	t0 = rte_get_timer_cycles();
	end = t0 + (uint64_t)(seconds * rte_get_timer_hz());
	st_launch();
	/* The main lcore forwards too, on queue pair 0. */
	while (rte_get_timer_cycles() < end)
		st_round(&st_l[0], 0, 0, true);
	__atomic_store_n(&st_sending, false, __ATOMIC_RELEASE);
	st_wait_quiet(true);
	st_join();
	st_sum(&t);
	test_hw_stats(STRESS_A, &a);
	test_hw_stats(STRESS_B, &b);
	st_dir(&a, &a0, &b, &b0, &ab);
	st_dir(&b, &b0, &a, &a0, &ba);
	printf("    %u lcores forwarding on %u queue pairs, %.2f s: sent %" PRIu64 ", B took %" PRIu64
	       ", sent back %" PRIu64 ", A took %" PRIu64 "\n", n, st_nq,
	       (double)(rte_get_timer_cycles() - t0) / rte_get_timer_hz(), t.sent, t.rx_b,
	       t.fwd, t.rx_a);
	st_dir_print("A to B", &ab);
	st_dir_print("B to A", &ba);

	for (q = 0; q < st_nq; q++)
		TEST_ASSERT(ST_LOAD(st_l[q].sent) > 0 && ST_LOAD(st_l[q].rx_a) > 0,
			    "lcore %u forwarded nothing", q);
	TEST_ASSERT_EQUAL(t.bad, 0, "frames garbled");
	/* Every RX ring of B was filled by more than one lcore's TX pass. */
	for (q = 0; q < st_nq; q++) {
		senders = ST_LOAD(st_l[q].senders);
		TEST_ASSERT(__builtin_popcountll(senders) >= 2,
			    "B's RX queue %u filled by lcores %#x only", q, senders);
	}
	/* Exact accounting, each way: what the application handed over is what
	 * the device sent, which the far device received or counted as dropped,
	 * and what it received the application took. */
	TEST_ASSERT_EQUAL(ab.tx, t.sent, "A's device sent what A's queues took");
	TEST_ASSERT_EQUAL(ab.tx_malformed, 0, "");
	TEST_ASSERT_EQUAL(ab.rx + st_dir_drops(&ab), ab.tx, "A to B: sent = received + drops");
	TEST_ASSERT_EQUAL(t.rx_b, ab.rx, "B's application took what B's device received");
	TEST_ASSERT_EQUAL(ba.tx, t.fwd, "B's device sent what B's queues took");
	TEST_ASSERT_EQUAL(ba.tx_malformed, 0, "");
	TEST_ASSERT_EQUAL(ba.rx + st_dir_drops(&ba), ba.tx, "B to A: sent = received + drops");
	TEST_ASSERT_EQUAL(t.rx_a, ba.rx, "A's application took what A's device received");
	TEST_ASSERT_SUCCESS(st_flows_again(st_port[0], st_port[1]), "");
	TEST_ASSERT_SUCCESS(st_flows_again(st_port[1], st_port[0]), "");
	return st_mbufs_back();
}

const struct unit_test_suite refnic_stress_suite = {
	.name = "stress",
	.setup = stress_setup,
	.teardown = st_teardown,
	.cases = {
		TEST_CASE(test_stress_lcores_share_rx_rings),
		TEST_CASES_END()
	},
};

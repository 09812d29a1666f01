/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * Where device work runs (exec=): inline on the doorbell's thread and on the
 * engine thread give the same frames and the same counts. (Combinations the
 * device cannot model are among the probe suite's bad devargs.)
 */

#include <stdio.h>
#include <string.h>

#include "test_common.h"

#define EX_A	"net_refnic_x0"
#define EX_B	"net_refnic_x1"
#define EX_PKTS	200

/* Counters that depend only on what was sent, not on timing. */
static const char * const same_xstats[] = {
	"tx_good_packets", "tx_good_bytes", "rx_good_packets", "rx_good_bytes",
	"tx_doorbell_writes", "rx_doorbell_writes", "rx_missed_errors",
};

/* Send EX_PKTS frames A -> B in bursts of 32 on a pair made with args; the
 * frames must arrive byte-identical; xstats of both ports into out, and the
 * frames A's engine threads (not the trap) carried into *by_engines. */
static int
ex_run(const char *args, uint64_t out[2][RTE_DIM(same_xstats)], uint64_t *by_engines)
{
	const struct test_pair_conf pair = { .name_a = EX_A, .name_b = EX_B, .args_a = args };
	struct refnic_hw_stats es;
	struct rte_mbuf *pkts[32], *rx[32];
	struct rte_ether_addr mac_b;
	uint16_t a, b, n, got, i;
	unsigned int sent = 0, k;
	int ret = TEST_FAILED;

	if (test_pair_setup(&pair, &a, &b, &mac_b) != 0)
		return TEST_FAILED;
	while (sent < EX_PKTS) {
		n = RTE_MIN(RTE_DIM(pkts), EX_PKTS - sent);
		for (i = 0; i < n; i++)
			pkts[i] = test_make_pkt(&mac_b, 60 + (sent + i) % 1400, sent + i,
						1 + (sent + i) % 3);
		if (test_tx_all(a, pkts, n) != n)
			goto out;
		got = test_rx_wait(b, rx, n);
		for (i = 0; i < got; i++) {
			if (!test_pkt_matches(rx[i], &mac_b, 60 + (sent + i) % 1400, sent + i)) {
				printf("    %s: frame %u differs\n", args, sent + i);
				got = 0;
			}
		}
		rte_pktmbuf_free_bulk(rx, got);
		if (got != n) {
			printf("    %s: %u of %u frames arrived\n", args, got, n);
			goto out;
		}
		sent += n;
	}
	for (k = 0; k < RTE_DIM(same_xstats); k++) {
		out[0][k] = test_xstat(a, same_xstats[k]);
		out[1][k] = test_xstat(b, same_xstats[k]);
	}
	*by_engines = 0;
	for (k = 0; k < REFNIC_EMU_MAX_ENGINES; k++)
		if (refnic_emu_read_engine_stats(refnic_emu_lookup(EX_A), k, &es) == 0)
			*by_engines += es.q[0].tx_packets;
	ret = TEST_SUCCESS;
out:
	test_pair_teardown(&pair);
	return ret;
}

/* The same traffic, inline and on the engine: the same frames and counts;
 * inline, the doorbell's own thread carried every frame. */
static int
test_inline_and_thread_count_alike(void)
{
	static const char * const modes[][2] = {
		{ "profile=ideal,exec=inline", "profile=ideal,exec=thread" },
		{ "profile=vm,exec=inline", "profile=baremetal,exec=thread" },
	};
	uint64_t x[2][2][RTE_DIM(same_xstats)], by_engines[2];
	unsigned int m, p, k;

	for (m = 0; m < RTE_DIM(modes); m++) {
		TEST_ASSERT_SUCCESS(ex_run(modes[m][0], x[0], &by_engines[0]), "%s", modes[m][0]);
		TEST_ASSERT_SUCCESS(ex_run(modes[m][1], x[1], &by_engines[1]), "%s", modes[m][1]);
		TEST_ASSERT_EQUAL(by_engines[0], 0, "%s: engines carried frames", modes[m][0]);
		TEST_ASSERT_EQUAL(by_engines[1], (uint64_t)EX_PKTS, "%s: engines carried %" PRIu64,
				  modes[m][1], by_engines[1]);
		for (p = 0; p < 2; p++)
			for (k = 0; k < RTE_DIM(same_xstats); k++)
				TEST_ASSERT_EQUAL(x[0][p][k], x[1][p][k],
						  "port %c %s: %s vs %s", 'A' + p, same_xstats[k],
						  modes[m][0], modes[m][1]);
		TEST_ASSERT_EQUAL(x[0][0][0], (uint64_t)EX_PKTS, "all sent");
		TEST_ASSERT(x[0][0][4] > 0 && x[0][0][4] <= EX_PKTS / 32 + 1,
			    "%" PRIu64 " TX doorbells for %u packets in bursts of 32",
			    x[0][0][4], EX_PKTS);
	}
	return TEST_SUCCESS;
}

const struct unit_test_suite refnic_exec_suite = {
	.name = "exec",
	.cases = {
		TEST_CASE(test_inline_and_thread_count_alike),
		TEST_CASES_END()
	},
};

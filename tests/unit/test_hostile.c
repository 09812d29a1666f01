/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * A hostile device (fault_corrupt=KIND:N): RX and TX completions, admin
 * replies and events come out garbled. The PMD must survive with what a
 * user can see: a started port that cannot go on recovers by itself
 * (RTE_ETH_EVENT_RECOVERY_SUCCESS), one that is not started or could not
 * recover says so (INTR_RESET, RECOVERY_FAILED) and comes back through
 * rte_eth_dev_reset(), and every mbuf is back in its pool. Out-of-bounds accesses are what the sanitizer
 * build of this suite (test.sh's unit-sanitized) would catch.
 */

#include <rte_mempool.h>

#include "test_common.h"

#define HA		"net_refnic_ha"
#define HB		"net_refnic_hb"
#define ROUNDS		200	/* bursts A -> B */
#define MAX_RECOVERIES	200

/* Per port: events asking the application to reset; recoveries the PMD made. */
static unsigned int reset_events[RTE_MAX_ETHPORTS];
static unsigned int recovered_events[RTE_MAX_ETHPORTS];

static int
event_cb(uint16_t port, enum rte_eth_event_type type, void *arg __rte_unused,
	 void *ret __rte_unused)
{
	if (type == RTE_ETH_EVENT_RECOVERY_SUCCESS)
		__atomic_fetch_add(&recovered_events[port], 1, __ATOMIC_RELAXED);
	else
		__atomic_fetch_add(&reset_events[port], 1, __ATOMIC_RELAXED);
	return 0;
}

static const enum rte_eth_event_type watched[] = {
	RTE_ETH_EVENT_INTR_RESET, RTE_ETH_EVENT_RECOVERY_FAILED, RTE_ETH_EVENT_RECOVERY_SUCCESS,
};

static void
events_watch(uint16_t port, bool on)
{
	unsigned int i;

	for (i = 0; i < RTE_DIM(watched); i++) {
		if (on)
			rte_eth_dev_callback_register(port, watched[i], event_cb, NULL);
		else
			rte_eth_dev_callback_unregister(port, watched[i], event_cb, NULL);
	}
}

struct hostile_run {
	uint64_t received;
	unsigned int recoveries;	/* the application's, after a reset event */
	unsigned int events;		/* reset events on both ports */
	unsigned int recovered;		/* the PMD's own recoveries */
	uint64_t garbled;		/* what the device garbled */
	int in_use_delta;		/* mbufs held after both ports stopped */
	bool started;			/* both ports ran at some point */
	unsigned int failed_starts;	/* bring-ups that failed */
};

/* Back from a failure: reset, reconfigure, start; false if it did not come up. */
static bool
recover(uint16_t port)
{
	rte_eth_dev_stop(port);
	return rte_eth_dev_reset(port) == 0 && test_port_start(port, 0, 0) == 0;
}

/* Reset events taken and recovered from; *seen tracks the count handled. */
static void
recover_pending(uint16_t port, unsigned int *seen, struct hostile_run *r)
{
	unsigned int now = __atomic_load_n(&reset_events[port], __ATOMIC_RELAXED);

	while (*seen != now && r->recoveries < MAX_RECOVERIES) {
		*seen = now;
		r->recoveries++;
		if (recover(port))
			break;
		rte_delay_us_sleep(2000);	/* its failure's event, if any */
		now = __atomic_load_n(&reset_events[port], __ATOMIC_RELAXED);
		if (*seen == now)
			*seen = now - 1;	/* not up: try again */
	}
}

/* Traffic A -> B while the device of `victim` garbles what fault_corrupt says. */
static int
hostile_run(const char *corrupt_a, const char *corrupt_b, const char *victim,
	    struct hostile_run *r)
{
	char args[128];
	struct rte_ether_addr mac;
	struct rte_mbuf *m[TEST_BURST];
	unsigned int in_use, seen_a = 0, seen_b = 0, round, i, tries, got;
	uint16_t a, b, n;

	memset(r, 0, sizeof(*r));
	snprintf(args, sizeof(args), "cable=%s,profile=ideal%s%s", HA, *corrupt_a ? "," : "",
		 corrupt_a);
	if (test_port_create(HA, args, &a) != 0)
		return -1;
	snprintf(args, sizeof(args), "cable=%s,profile=ideal%s%s", HA, *corrupt_b ? "," : "",
		 corrupt_b);
	if (test_port_create(HB, args, &b) != 0) {
		test_port_destroy(HA);
		return -1;
	}
	reset_events[a] = reset_events[b] = 0;
	recovered_events[a] = recovered_events[b] = 0;
	events_watch(a, true);
	events_watch(b, true);
	in_use = rte_mempool_in_use_count(test_pool);
	/* Garbled admin replies may fail a bring-up: try again as a user would. */
	for (tries = 0; tries < 50 && !r->started; tries++) {
		r->started = (test_port_start(a, 0, 0) == 0 || recover(a)) &&
			     (test_port_start(b, 0, 0) == 0 || recover(b));
		r->failed_starts += !r->started;
	}
	rte_eth_macaddr_get(b, &mac);
	for (round = 0; r->started && round < ROUNDS; round++) {
		for (i = 0; i < TEST_BURST; i++)
			m[i] = test_make_pkt(&mac, 64 + (round % 8) * 100, round * TEST_BURST + i, 1);
		n = rte_eth_tx_burst(a, 0, m, TEST_BURST);
		rte_pktmbuf_free_bulk(m + n, TEST_BURST - n);
		for (i = 0, got = 0; i < 4; i++) {
			n = rte_eth_rx_burst(b, 0, m, TEST_BURST);
			got += n;
			rte_pktmbuf_free_bulk(m, n);
		}
		r->received += got;
		if (got == 0)	/* a recovery under way: give it time */
			rte_delay_us_sleep(1000);
		recover_pending(a, &seen_a, r);
		recover_pending(b, &seen_b, r);
	}
	r->garbled = refnic_emu_corrupted(refnic_emu_lookup(victim));
	r->events = reset_events[a] + reset_events[b];
	r->recovered = recovered_events[a] + recovered_events[b];
	rte_eth_dev_stop(a);
	rte_eth_dev_stop(b);
	r->in_use_delta = (int)rte_mempool_in_use_count(test_pool) - (int)in_use;
	events_watch(a, false);
	events_watch(b, false);
	test_port_destroy(HA);
	test_port_destroy(HB);
	printf("    %s%s: %" PRIu64 " garbled, %u recovered by the PMD, %u reset events, "
	       "%u recoveries by the application, %" PRIu64 " received\n", corrupt_a, corrupt_b,
	       r->garbled, r->recovered, r->events, r->recoveries, r->received);
	return 0;
}

/* Queues that see garbage stop; the port recovers, leaking nothing. */
static int
hostile_queue(const char *corrupt_a, const char *corrupt_b, const char *victim)
{
	struct hostile_run r;

	TEST_ASSERT_SUCCESS(hostile_run(corrupt_a, corrupt_b, victim, &r), "ports");
	TEST_ASSERT(r.started, "the ports never started");
	TEST_ASSERT(r.garbled > 0, "the device garbled nothing");
	TEST_ASSERT(r.recovered > 0, "garbage, and no recovery");
	TEST_ASSERT(r.received > 0, "no traffic between failures");
	TEST_ASSERT_EQUAL(r.in_use_delta, 0, "%d mbufs held after stop", r.in_use_delta);
	return TEST_SUCCESS;
}

static int
test_garbled_rx_completions(void)
{
	return hostile_queue("", "fault_corrupt=rx:97", HB);
}

static int
test_garbled_tx_completions(void)
{
	return hostile_queue("fault_corrupt=tx:97", "", HA);
}

/*
 * Garbled admin replies fail the port, never the process; it comes back.
 * (A reset the application makes before the alarm delivers the event
 * takes the event back: a bring-up that recovers at once may count none.)
 */
static int
test_garbled_admin_replies(void)
{
	struct hostile_run r;

	TEST_ASSERT_SUCCESS(hostile_run("fault_corrupt=admin:7", "", HA, &r), "ports");
	TEST_ASSERT(r.started, "no bring-up succeeded in 50 tries at 1 in 7 garbled");
	TEST_ASSERT(r.garbled > 0, "the device garbled nothing");
	TEST_ASSERT(r.failed_starts > 0 || r.events > 0 || r.recoveries > 0 || r.recovered > 0,
		    "no failure seen");
	TEST_ASSERT_EQUAL(r.in_use_delta, 0, "%d mbufs held after stop", r.in_use_delta);
	return TEST_SUCCESS;
}

/* Events of no known type, or naming a queue nobody has, are dropped. */
static int
test_garbled_events(void)
{
	struct refnic_emu *emu;
	uint16_t a;

	TEST_ASSERT_SUCCESS(test_port_create(HA, "cable=loopback,profile=ideal,"
					     "fault_corrupt=event:1", &a), "");
	TEST_ASSERT_SUCCESS(test_port_start(a, 0, 0), "");
	emu = refnic_emu_lookup(HA);
	refnic_emu_set_cable_plugged(emu, false);
	refnic_emu_set_cable_plugged(emu, true);
	refnic_emu_inject_queue_error(emu, true, 0);	/* garbled too: lost */
	rte_delay_ms(100);
	TEST_ASSERT(refnic_emu_corrupted(emu) >= 3, "%" PRIu64 " events garbled",
		    refnic_emu_corrupted(emu));
	TEST_ASSERT_SUCCESS(test_port_start(a, 0, 0), "the port goes on");
	test_port_destroy(HA);
	return TEST_SUCCESS;
}

const struct unit_test_suite refnic_hostile_suite = {
	.name = "hostile",
	.cases = {
		TEST_CASE(test_garbled_rx_completions),
		TEST_CASE(test_garbled_tx_completions),
		TEST_CASE(test_garbled_admin_replies),
		TEST_CASE(test_garbled_events),
		TEST_CASES_END()
	},
};

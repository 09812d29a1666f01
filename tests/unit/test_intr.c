/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * Rx/Tx interrupts and their moderation, as an interrupt-driven application
 * sees them: it sleeps in rte_epoll_wait() on a queue's vector, wakes for
 * traffic, loses nothing, and sleeps for real when idle. Interrupts are
 * counted by the device (xstats); bounds have generous margins, timings are
 * only ever upper bounds on waiting.
 */

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_cpuflags.h>
#include <rte_cycles.h>
#include <rte_epoll.h>
#include <rte_power_intrinsics.h>
#include <rte_power_pmd_mgmt.h>

#include "rte_pmd_refnic.h"
#include "test_common.h"

#define IN_A		"net_refnic_i0"
#define IN_B		"net_refnic_i1"
#define IN_WAKE_MS	2000	/* no wake-up this long with a packet sent: lost */

static uint16_t in_a, in_b;

/* A pair whose receiving port b has Rx interrupts and an RX ring of rx_ring;
 * extra devargs for both. */
static int
in_pair_ring(const char *extra, bool rxq_intr, uint16_t rx_ring)
{
	struct rte_eth_conf conf = { .intr_conf = { .rxq = rxq_intr } };
	char args[128];
	const struct test_pair_conf c = {
		.name_a = IN_A, .name_b = IN_B, .args_a = args, .conf = &conf,
		.rx_ring_b = rx_ring,
	};

	snprintf(args, sizeof(args), "%s%s%s",
		 getenv("REFNIC_TEST_DEVARGS") ?: "profile=ideal", *extra ? "," : "", extra);
	return test_pair_setup(&c, &in_a, &in_b, NULL);
}

static int
in_pair(const char *extra, bool rxq_intr)
{
	return in_pair_ring(extra, rxq_intr, TEST_RING_SIZE);
}

static void
in_pair_destroy(void)
{
	rte_eth_dev_rx_intr_ctl_q(in_b, 0, RTE_EPOLL_PER_THREAD, RTE_INTR_EVENT_DEL, NULL);
	test_pair_destroy(IN_A, IN_B);
}

static uint64_t
thread_cpu_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000ull + ts.tv_nsec / 1000;
}

static uint64_t
now_us(void)
{
	return rte_get_tsc_cycles() * 1000000 / rte_get_tsc_hz();
}

/* Send n frames from a to b, one every gap_us, from a thread of its own. */
struct in_sender {
	unsigned int n;
	unsigned int gap_us;
	unsigned int burst;
	/* A full ring while the receiver sleeps out its moderation interval
	 * (a wake-up late on a loaded machine): the device drops and counts,
	 * as a NIC does. Without it, every frame must arrive. */
	bool may_drop;
	unsigned int sent;
};

static void *
in_send(void *arg)
{
	struct in_sender *s = arg;
	struct rte_ether_addr mac_b;
	struct rte_mbuf *pkts[32];
	unsigned int i, j, k, c;

	rte_eth_macaddr_get(in_b, &mac_b);
	for (i = 0; i < s->n; i += k) {
		k = RTE_MIN(s->burst, s->n - i);
		/* A burst of more than 32 goes out as back-to-back calls. */
		for (j = 0; j < k; j += c) {
			c = RTE_MIN(k - j, RTE_DIM(pkts));
			for (unsigned int l = 0; l < c; l++)
				pkts[l] = test_make_pkt(&mac_b, 64, i + j + l, 1);
			s->sent += test_tx_all(in_a, pkts, c);
		}
		if (s->gap_us != 0)
			rte_delay_us_sleep(s->gap_us);
	}
	return NULL;
}

/*
 * The RX interval B's device holds for queue 0: its vector register, read
 * as a lab instrument on the BAR would, not the driver's idea of it.
 */
static uint32_t
in_device_rx_itr_us(void)
{
	struct refnic_emu_resources res;

	refnic_emu_get_resources(refnic_emu_lookup(IN_B), &res);
	return *(volatile uint32_t *)(res.bar0 + REFNIC_REG_VEC(REFNIC_QUEUE_VECTOR(0)) +
				      REFNIC_VEC_RX_ITR_US);
}

/*
 * The l3fwd-power loop: poll until empty, arm, sleep, disarm. Receives want
 * frames; returns how many, and the sleeps that ended with nothing (lost
 * wake-ups: the sender is done long before IN_WAKE_MS).
 */
/* The longest Rx interval the device held when the queue was armed during
 * in_receive(). */
static uint32_t in_max_itr_us;

static unsigned int
in_receive(unsigned int want, unsigned int *timeouts, unsigned int *wakes)
{
	struct rte_epoll_event ev;
	struct rte_mbuf *rx[32];
	unsigned int got = 0;
	uint16_t n;

	*timeouts = 0;
	*wakes = 0;
	in_max_itr_us = 0;
	while (got < want) {
		while ((n = rte_eth_rx_burst(in_b, 0, rx, RTE_DIM(rx))) != 0) {
			rte_pktmbuf_free_bulk(rx, n);
			got += n;
		}
		if (got >= want)
			break;
		rte_eth_dev_rx_intr_enable(in_b, 0);
		in_max_itr_us = RTE_MAX(in_max_itr_us, in_device_rx_itr_us());
		if (rte_epoll_wait(RTE_EPOLL_PER_THREAD, &ev, 1, IN_WAKE_MS) <= 0) {
			(*timeouts)++;
			rte_eth_dev_rx_intr_disable(in_b, 0);
			if (rte_eth_rx_queue_count(in_b, 0) == 0)
				break;	/* nothing came: the sender lost frames */
			continue;
		}
		(*wakes)++;
		rte_eth_dev_rx_intr_disable(in_b, 0);
	}
	return got;
}

/* Frames the last in_run() received. */
static unsigned int in_last_got;

static int
in_run(struct in_sender *s, unsigned int *timeouts, unsigned int *wakes, uint64_t *elapsed_us)
{
	struct rte_eth_stats before, after;
	uint64_t start = now_us(), missed;
	unsigned int got;
	pthread_t t;

	rte_eth_stats_get(in_b, &before);
	if (pthread_create(&t, NULL, in_send, s) != 0)
		return -1;
	got = in_receive(s->n, timeouts, wakes);
	in_last_got = got;
	pthread_join(t, NULL);
	*elapsed_us = now_us() - start;
	rte_eth_stats_get(in_b, &after);
	missed = after.imissed - before.imissed;
	if (s->sent != s->n || got + missed != s->n || (missed != 0 && !s->may_drop)) {
		printf("    %u of %u frames sent, %u received, %" PRIu64 " dropped by the "
		       "device (full ring)\n", s->sent, s->n, got, missed);
		return -1;
	}
	return 0;
}

static int
in_epoll_add(void)
{
	return rte_eth_dev_rx_intr_ctl_q(in_b, 0, RTE_EPOLL_PER_THREAD, RTE_INTR_EVENT_ADD, NULL);
}

/* Sleeps, wakes for each frame, loses none, and an idle sleep costs no CPU. */
static int
test_rx_intr_wakes_and_sleeps(void)
{
	struct in_sender s = { .n = 300, .gap_us = 300, .burst = 1 };
	unsigned int timeouts, wakes;
	struct rte_epoll_event ev;
	uint64_t cpu, elapsed, intrs;
	int ret;

	TEST_ASSERT_SUCCESS(in_pair("itr=off", true), "pair");
	ret = in_epoll_add();
	if (ret != 0) {
		in_pair_destroy();
		TEST_ASSERT_SUCCESS(ret, "rx_intr_ctl_q: %s", rte_strerror(-ret));
	}
	/* Idle: the sleep lasts, and takes next to no CPU. */
	rte_eth_dev_rx_intr_enable(in_b, 0);
	cpu = thread_cpu_us();
	ret = rte_epoll_wait(RTE_EPOLL_PER_THREAD, &ev, 1, 200);
	cpu = thread_cpu_us() - cpu;
	rte_eth_dev_rx_intr_disable(in_b, 0);
	if (ret != 0 || cpu > 20000) {
		in_pair_destroy();
		TEST_ASSERT(false, "idle wait returned %d after %" PRIu64 " us of CPU", ret, cpu);
	}
	ret = in_run(&s, &timeouts, &wakes, &elapsed);
	intrs = test_xstat(in_b, "rx_q0_interrupts");
	in_pair_destroy();
	TEST_ASSERT_SUCCESS(ret, "frames lost");
	TEST_ASSERT_EQUAL(timeouts, 0, "%u sleeps outlived a waiting frame", timeouts);
	TEST_ASSERT(wakes > 0 && intrs >= wakes && intrs <= s.n,
		    "%u wake-ups, %" PRIu64 " interrupts for %u frames", wakes, intrs, s.n);
	return TEST_SUCCESS;
}

/*
 * 400 frames 200 us apart to a queue armed before each sleep, its interval
 * 2000 us: what the device counted, and how long it took.
 */
struct in_bounded {
	int ret;
	unsigned int timeouts;
	uint64_t elapsed, intrs;
};

static void
in_run_bounded(struct in_bounded *r)
{
	struct in_sender s = { .n = 400, .gap_us = 200, .burst = 1 };
	unsigned int wakes;

	if (r->ret == 0)
		r->ret = in_epoll_add();
	if (r->ret == 0)
		r->ret = in_run(&s, &r->timeouts, &wakes, &r->elapsed);
	r->intrs = test_xstat(in_b, "rx_q0_interrupts");
}

/* No sleep outlived a waiting frame, and at most elapsed / 2000 + 2 raises. */
static int
in_assert_bounded(const struct in_bounded *r, const char *how)
{
	uint64_t bound = r->elapsed / 2000 + 2;

	TEST_ASSERT_EQUAL(r->timeouts, 0, "%u sleeps outlived a waiting frame", r->timeouts);
	TEST_ASSERT(r->intrs >= 1 && r->intrs <= bound,
		    "%" PRIu64 " interrupts in %" PRIu64 " us with 2000 us %s (bound %" PRIu64 ")",
		    r->intrs, r->elapsed, how, bound);
	return TEST_SUCCESS;
}

/* With an interval, the device raises no more than elapsed / interval + 2. */
static int
test_itr_bounds_interrupts(void)
{
	struct in_bounded r = { 0 };

	TEST_ASSERT_SUCCESS(in_pair("rx_itr_us=2000", true), "pair");
	in_run_bounded(&r);
	if (r.ret == 0 && test_xstat(in_b, "rx_q0_itr_us") != 2000)
		r.ret = -1;
	in_pair_destroy();
	TEST_ASSERT_SUCCESS(r.ret, "frames lost, or rx_q0_itr_us is not 2000");
	return in_assert_bounded(&r, "as devarg");
}

/*
 * A device without moderation (caps_off=moderation) raises at once, whatever
 * its interval registers say: the driver refuses the API (config suite),
 * and an interval written behind the driver's back holds nothing back.
 * Inline, so that the raise is done when the sender's burst returns.
 */
static int
test_no_moderation_without_capability(void)
{
	const uint32_t off = REFNIC_REG_VEC(REFNIC_QUEUE_VECTOR(0)) + REFNIC_VEC_RX_ITR_US;
	struct refnic_emu_resources res;
	struct rte_ether_addr mac_b;
	char *env = getenv("REFNIC_TEST_DEVARGS");
	struct refnic_hw_stats hw;
	struct rte_mbuf *m;
	unsigned int i;
	int ret = 0;

	/* Inline whatever the run's devargs say (they are given once). */
	env = env != NULL ? strdup(env) : NULL;
	setenv("REFNIC_TEST_DEVARGS", "profile=ideal,exec=inline", 1);
	ret = in_pair("itr=off,caps_off=moderation", true);
	if (env != NULL)
		setenv("REFNIC_TEST_DEVARGS", env, 1);
	else
		unsetenv("REFNIC_TEST_DEVARGS");
	free(env);
	TEST_ASSERT_SUCCESS(ret, "pair");
	refnic_emu_get_resources(refnic_emu_lookup(IN_B), &res);
	*(volatile uint32_t *)(res.bar0 + off) = REFNIC_ITR_MAX_US;
	res.trap(res.trap_ctx, off, REFNIC_ITR_MAX_US);
	rte_eth_macaddr_get(in_b, &mac_b);
	for (i = 1; ret == 0 && i <= 3; i++) {
		rte_eth_dev_rx_intr_enable(in_b, 0);
		m = test_make_pkt(&mac_b, 64, i, 1);
		if (test_tx_all(in_a, &m, 1) != 1) {
			ret = -1;
			break;
		}
		test_hw_stats(IN_B, &hw);
		if (hw.q[0].rx_interrupts != i) {
			printf("    frame %u: %" PRIu64 " interrupts raised, %u expected\n", i,
			       hw.q[0].rx_interrupts, i);
			ret = -2;
		}
		if (test_rx_wait(in_b, &m, 1) != 1)
			ret = -3;
		else
			rte_pktmbuf_free(m);
	}
	in_pair_destroy();
	TEST_ASSERT_SUCCESS(ret, "an interval held an interrupt back");
	return TEST_SUCCESS;
}

/* A disarmed vector never fires; frames still arrive for polling. */
static int
test_disarmed_never_fires(void)
{
	struct rte_ether_addr mac_b;
	struct rte_mbuf *pkts[32];
	struct rte_epoll_event ev;
	unsigned int i, got;
	uint64_t intrs;
	int ret;

	TEST_ASSERT_SUCCESS(in_pair("itr=off", true), "pair");
	ret = in_epoll_add();
	rte_eth_dev_rx_intr_enable(in_b, 0);
	rte_eth_dev_rx_intr_disable(in_b, 0);
	rte_eth_macaddr_get(in_b, &mac_b);
	for (i = 0; i < RTE_DIM(pkts); i++)
		pkts[i] = test_make_pkt(&mac_b, 64, i, 1);
	if (ret == 0 && test_tx_all(in_a, pkts, RTE_DIM(pkts)) != RTE_DIM(pkts))
		ret = -1;
	if (ret == 0 && rte_epoll_wait(RTE_EPOLL_PER_THREAD, &ev, 1, 100) != 0)
		ret = -2;
	got = test_rx_wait(in_b, pkts, RTE_DIM(pkts));
	rte_pktmbuf_free_bulk(pkts, got);
	intrs = test_xstat(in_b, "rx_q0_interrupts");
	in_pair_destroy();
	TEST_ASSERT_SUCCESS(ret, "disarmed vector: %d", ret);
	TEST_ASSERT_EQUAL(intrs, 0, "%" PRIu64 " interrupts while disarmed", intrs);
	TEST_ASSERT_EQUAL(got, RTE_DIM(pkts), "%u frames polled", got);
	return TEST_SUCCESS;
}

/* Arming with a completion already written fires at once: no lost wake-up. */
static int
test_arm_with_pending_fires(void)
{
	uint64_t deadline = rte_get_timer_cycles() + TEST_WAIT_S * rte_get_timer_hz();
	struct rte_ether_addr mac_b;
	struct rte_mbuf *pkt;
	struct rte_epoll_event ev;
	int ret, woke, landed;

	TEST_ASSERT_SUCCESS(in_pair("itr=off", true), "pair");
	ret = in_epoll_add();
	rte_eth_macaddr_get(in_b, &mac_b);
	pkt = test_make_pkt(&mac_b, 64, 1, 1);
	if (ret == 0 && test_tx_all(in_a, &pkt, 1) != 1)
		ret = -1;
	/* exec=thread: the engine delivers it when it runs; arm only once its
	 * completion is in the ring, or this would test the plain wake-up. */
	while ((landed = rte_eth_rx_queue_count(in_b, 0)) < 1 && rte_get_timer_cycles() < deadline)
		rte_delay_us_sleep(100);
	if (ret == 0 && landed != 1)
		ret = -2;
	rte_eth_dev_rx_intr_enable(in_b, 0);
	woke = rte_epoll_wait(RTE_EPOLL_PER_THREAD, &ev, 1, IN_WAKE_MS);
	rte_eth_dev_rx_intr_disable(in_b, 0);
	if (test_rx_wait(in_b, &pkt, 1) == 1)
		rte_pktmbuf_free(pkt);
	in_pair_destroy();
	TEST_ASSERT_SUCCESS(ret, "send (%d), or the frame never landed", ret);
	TEST_ASSERT_EQUAL(woke, 1, "armed over a waiting frame: epoll returned %d", woke);
	return TEST_SUCCESS;
}

/* TX completion interrupts, through the PMD's own API. */
static int
test_tx_intr(void)
{
	struct rte_ether_addr mac_b;
	struct rte_mbuf *pkts[8];
	struct rte_epoll_event ev;
	uint64_t tx_intrs, rx_intrs;
	unsigned int i;
	int ret, woke = -1;

	TEST_ASSERT_SUCCESS(in_pair("itr=off", true), "pair");
	/* Port b's vector 0 wakes for b's TX queue too: b sends to a. */
	ret = in_epoll_add();
	if (ret == 0)
		ret = rte_pmd_refnic_tx_intr_enable(in_b, 0);
	rte_eth_macaddr_get(in_a, &mac_b);
	for (i = 0; i < RTE_DIM(pkts); i++)
		pkts[i] = test_make_pkt(&mac_b, 64, i, 1);
	if (ret == 0 && test_tx_all(in_b, pkts, RTE_DIM(pkts)) != RTE_DIM(pkts))
		ret = -1;
	if (ret == 0)
		woke = rte_epoll_wait(RTE_EPOLL_PER_THREAD, &ev, 1, IN_WAKE_MS);
	tx_intrs = test_xstat(in_b, "tx_q0_interrupts");
	rx_intrs = test_xstat(in_b, "rx_q0_interrupts");
	in_pair_destroy();
	TEST_ASSERT_SUCCESS(ret, "tx intr: %d", ret);
	TEST_ASSERT_EQUAL(woke, 1, "epoll returned %d", woke);
	TEST_ASSERT_EQUAL(tx_intrs, 1, "%" PRIu64 " TX interrupts", tx_intrs);
	TEST_ASSERT_EQUAL(rx_intrs, 0, "%" PRIu64 " RX interrupts", rx_intrs);
	return TEST_SUCCESS;
}

/* The public API: values take effect and show, bad ones are refused. */
static int
test_itr_api(void)
{
	uint32_t us = 0;
	int on = -1, ret = 0;

	TEST_ASSERT_SUCCESS(in_pair("", true), "pair");
	if (rte_pmd_refnic_itr_adaptive_get(in_b, 0, &on) != 0 || on != 1)
		ret = -1;	/* the default */
	if (ret == 0 && (rte_pmd_refnic_rx_itr_set(in_b, 0, 123) != 0 ||
			 rte_pmd_refnic_rx_itr_get(in_b, 0, &us) != 0 || us != 123))
		ret = -2;
	if (ret == 0 && (rte_pmd_refnic_itr_adaptive_get(in_b, 0, &on) != 0 || on != 1))
		ret = -3;	/* TX still adapts */
	if (ret == 0 && (test_xstat(in_b, "rx_q0_itr_us") != 123 || in_device_rx_itr_us() != 123))
		ret = -4;	/* in the device's register too */
	if (ret == 0 && (rte_pmd_refnic_tx_itr_set(in_b, 0, 77) != 0 ||
			 rte_pmd_refnic_tx_itr_get(in_b, 0, &us) != 0 || us != 77 ||
			 test_xstat(in_b, "tx_q0_itr_us") != 77))
		ret = -5;
	if (ret == 0 && (rte_pmd_refnic_itr_adaptive_get(in_b, 0, &on) != 0 || on != 0))
		ret = -9;	/* static values on both causes: adaptive off */
	if (ret == 0 && (rte_pmd_refnic_rx_itr_set(in_b, 0, RTE_PMD_REFNIC_ITR_MAX_US + 1) !=
			 -EINVAL || rte_pmd_refnic_rx_itr_get(in_b, 0, &us) != 0 || us != 123))
		ret = -6;	/* refused, and nothing changed */
	if (ret == 0 && (rte_pmd_refnic_rx_itr_set(in_b, 1, 10) != -EINVAL ||
			 rte_pmd_refnic_rx_itr_set(RTE_MAX_ETHPORTS, 0, 10) != -ENODEV ||
			 rte_pmd_refnic_rx_itr_get(in_b, 0, NULL) != -EINVAL))
		ret = -7;
	if (ret == 0 && (rte_pmd_refnic_itr_adaptive_set(in_b, 0, 1) != 0 ||
			 rte_pmd_refnic_itr_adaptive_get(in_b, 0, &on) != 0 || on != 1))
		ret = -8;
	in_pair_destroy();
	TEST_ASSERT_SUCCESS(ret, "API step %d", -ret);
	return TEST_SUCCESS;
}

/*
 * An interval set through the API takes effect in the device: on a port
 * with moderation off, 2000 us set at run time bounds the interrupts the
 * device raises to elapsed / 2000 + 2 (400 frames at 200 us: ~50, not 400).
 */
static int
test_itr_api_bounds_interrupts(void)
{
	struct in_bounded r = { 0 };
	uint32_t reg;

	TEST_ASSERT_SUCCESS(in_pair("itr=off", true), "pair");
	r.ret = rte_pmd_refnic_rx_itr_set(in_b, 0, 2000);
	reg = in_device_rx_itr_us();
	in_run_bounded(&r);
	in_pair_destroy();
	TEST_ASSERT_SUCCESS(r.ret, "set, or frames lost");
	/* The count first: it is what the application lives with. */
	if (in_assert_bounded(&r, "set by the API") != TEST_SUCCESS)
		return TEST_FAILED;
	TEST_ASSERT_EQUAL(reg, 2000, "the device's RX interval register holds %u", reg);
	return TEST_SUCCESS;
}

/* The interval the PMD's adaptive table gives a rate (refnic_moderation.c). */
static uint32_t
in_dim_level_us(uint64_t pps)
{
	return pps < 20000 ? 0 : pps < 50000 ? 16 : pps < 200000 ? 50 : pps < 1000000 ? 100 : 250;
}

/*
 * Adaptive: a fast sender lengthens the interval, a slow one shortens it
 * again, as the device's vector register shows. The fast phase is judged by
 * the longest interval the device held when the queue was armed (its last
 * sample may straddle the end of the traffic, and go down at once): at
 * least the level of the phase's mean received rate (its peak rate,
 * sampled, is no lower), and at least 16 us. 32-frame bursts every 100 us give up to 320
 * kpps: 50 or 100 us, never capped by the ring (256 / 2 frames at 320 kpps
 * is 400 us).
 */
static int
test_adaptive_follows_rate(void)
{
	struct in_sender fast = { .n = 6400, .gap_us = 100, .burst = 32, .may_drop = true };
	struct in_sender slow = { .n = 20, .gap_us = 2000, .burst = 1 };
	unsigned int timeouts, wakes;
	uint64_t elapsed = 1, pps, itr_fast, itr_slow, want;
	int ret;

	TEST_ASSERT_SUCCESS(in_pair("itr=adaptive", true), "pair");
	ret = in_epoll_add();
	if (ret == 0)
		ret = in_run(&fast, &timeouts, &wakes, &elapsed);
	itr_fast = in_max_itr_us;
	/* The rate the PMD saw: what it received (not what the device dropped). */
	pps = (uint64_t)in_last_got * 1000000 / RTE_MAX(elapsed, (uint64_t)1);
	if (ret == 0)
		ret = in_run(&slow, &timeouts, &wakes, &elapsed);
	itr_slow = in_device_rx_itr_us();
	in_pair_destroy();
	want = RTE_MAX(in_dim_level_us(pps), (uint32_t)16);
	TEST_ASSERT_SUCCESS(ret, "frames lost (neither received nor counted dropped)");
	printf("    fast phase: %" PRIu64 " pps received, device interval up to %" PRIu64 " us\n",
	       pps, itr_fast);
	TEST_ASSERT(itr_fast >= want, "device interval at %" PRIu64 " pps: %" PRIu64 " us, "
		    "at least %" PRIu64 " expected", pps, itr_fast, want);
	TEST_ASSERT_EQUAL(itr_slow, 0, "device interval at 500 pps: %" PRIu64 " us", itr_slow);
	return TEST_SUCCESS;
}

/*
 * A held interrupt does not wait while the ring fills (1.3): B's RX ring of
 * 1024, an interval of 10 ms (the maximum), and a stream of 32-frame bursts
 * every 100 us (up to 320 kpps): the ring's posted buffers, fewer than the
 * frames sent in one interval, would be used up in 3 to 10 ms. The device
 * raises the held interrupt once half the ring is taken, the receiver
 * drains it, and every frame arrives: none dropped, none while held.
 * Without the early raise the device drops what comes after the ring
 * filled until the interval ends, and counts it (rx_missed_while_held).
 */
static int
test_held_fires_on_ring_fill(void)
{
	struct in_sender s = { .n = 8192, .gap_us = 100, .burst = 32 };
	uint64_t elapsed = 1, held, nobuf, intrs;
	unsigned int timeouts, wakes;
	int ret;

	TEST_ASSERT_SUCCESS(in_pair_ring("rx_itr_us=10000", true, 1024), "pair");
	ret = in_epoll_add();
	if (ret == 0)
		ret = in_run(&s, &timeouts, &wakes, &elapsed);
	held = test_xstat(in_b, "rx_q0_missed_while_held");
	nobuf = test_xstat(in_b, "rx_q0_no_buffer");
	intrs = test_xstat(in_b, "rx_q0_interrupts");
	in_pair_destroy();
	printf("    %u frames at %" PRIu64 " pps, %" PRIu64 " interrupts in %" PRIu64
	       " us (%" PRIu64 " at most without early raises)\n", s.sent,
	       (uint64_t)s.sent * 1000000 / RTE_MAX(elapsed, (uint64_t)1), intrs, elapsed,
	       elapsed / 10000 + 2);
	TEST_ASSERT_EQUAL(held, 0, "%" PRIu64 " frames dropped while the interrupt was held", held);
	TEST_ASSERT_EQUAL(nobuf, 0, "%" PRIu64 " frames dropped for want of a buffer", nobuf);
	TEST_ASSERT_SUCCESS(ret, "frames lost");
	TEST_ASSERT_EQUAL(timeouts, 0, "%u sleeps outlived a waiting frame", timeouts);
	return TEST_SUCCESS;
}

/* Send n frames from B to A (B's TX queue is the one under test). */
static unsigned int
in_send_from_b(unsigned int n)
{
	struct rte_ether_addr mac_a;
	struct rte_mbuf *pkts[32];
	unsigned int i, k, sent = 0;

	rte_eth_macaddr_get(in_a, &mac_a);
	while (sent < n) {
		k = RTE_MIN(n - sent, RTE_DIM(pkts));
		for (i = 0; i < k; i++)
			pkts[i] = test_make_pkt(&mac_a, 64, sent + i, 1);
		if (test_tx_all(in_b, pkts, k) != k)
			break;
		sent += k;
	}
	return sent;
}

/*
 * The TX side of the ring threshold (1.3): B's TX interval is 10 ms. After
 * a first raise, B arms its TX cause and sends 8 frames: the raise is held.
 * 128 more complete half of B's TX ring (256) since the arm, and the held
 * raise goes out at once. Then B disarms, which drops a raise still held:
 * the device counts 2 interrupts with the early raise, 1 without. Judged
 * only when B disarmed within the 10 ms (a loaded machine may preempt the
 * test past the interval, when the held raise is due anyway).
 */
static int
test_tx_held_fires_on_ring_fill(void)
{
	uint64_t hz = rte_get_tsc_hz(), t0 = 0, t_disarm = 0, deadline, intrs = 0;
	struct rte_epoll_event ev;
	int ret, woke_first = -1, woke_held = -1;
	unsigned int sent = 0, cleaned = 0;

	TEST_ASSERT_SUCCESS(in_pair("tx_itr_us=10000", true), "pair");
	ret = in_epoll_add();
	if (ret == 0)
		ret = rte_pmd_refnic_tx_intr_enable(in_b, 0);
	if (ret == 0) {
		sent += in_send_from_b(8);
		woke_first = rte_epoll_wait(RTE_EPOLL_PER_THREAD, &ev, 1, IN_WAKE_MS);
		t0 = rte_get_tsc_cycles();
		/* The completions read, so that the arm has nothing pending. */
		deadline = t0 + TEST_WAIT_S * hz;
		while (cleaned < sent && rte_get_tsc_cycles() < deadline)
			cleaned += rte_eth_tx_done_cleanup(in_b, 0, 0);
		ret = rte_pmd_refnic_tx_intr_enable(in_b, 0);
	}
	if (ret == 0) {
		sent += in_send_from_b(8);
		woke_held = rte_epoll_wait(RTE_EPOLL_PER_THREAD, &ev, 1, 0);
		sent += in_send_from_b(128);
		/* exec=thread: the engine sends them; wait until it has, and a
		 * little more for its raise, which follows the completion. */
		deadline = rte_get_tsc_cycles() + TEST_WAIT_S * hz;
		while (cleaned < sent && rte_get_tsc_cycles() < deadline)
			cleaned += rte_eth_tx_done_cleanup(in_b, 0, 0);
		rte_delay_us_block(100);
		rte_pmd_refnic_tx_intr_disable(in_b, 0);
		t_disarm = rte_get_tsc_cycles();
		intrs = test_xstat(in_b, "tx_q0_interrupts");
	}
	in_pair_destroy();
	TEST_ASSERT_SUCCESS(ret, "TX interrupt: %s", rte_strerror(-ret));
	TEST_ASSERT_EQUAL(woke_first, 1, "first raise: epoll returned %d", woke_first);
	TEST_ASSERT_EQUAL(cleaned, sent, "%u of %u frames completed", cleaned, sent);
	if ((t_disarm - t0) * 1000 / hz >= 10) {
		printf("    %" PRIu64 " ms from the first raise to the disarm: longer than the "
		       "interval, the early raise is not told from the timed one\n",
		       (t_disarm - t0) * 1000 / hz);
		return TEST_SUCCESS;
	}
	TEST_ASSERT_EQUAL(woke_held, 0, "8 frames within the interval woke the queue");
	TEST_ASSERT_EQUAL(intrs, 2, "%" PRIu64 " TX interrupts within %" PRIu64 " us of a "
			  "10000 us interval, 2 expected: the held raise waited while half "
			  "the ring completed", intrs, (t_disarm - t0) * 1000000 / hz);
	return TEST_SUCCESS;
}

#define IN_CAP_RING	64	/* the smallest ring: the cap binds from 640 kpps */

/*
 * Adaptive moderation never programs an interval longer than its ring
 * takes to fill at the rate it measured. B's RX ring is 64 entries; for
 * 2 ms this thread sends 32-frame bursts from A and receives them on B,
 * then arms B's queue (and disarms it), so that every arm is an adaptive
 * decision (they are at least 1 ms apart) on the frames received since the
 * previous arm, which the test counts too. After each arm, the device's RX
 * interval register is compared with the fill time at that rate. The rate
 * table alone would program 100 us from 200 kpps and 250 us from 1 Mpps,
 * where 64 entries fill in 64 us. One thread does both ends: two would
 * measure the scheduler of a loaded machine instead.
 */
static int
test_adaptive_capped_by_ring(void)
{
	uint64_t hz = rte_get_tsc_hz(), poll = 2 * hz / 1000, t, t_prev = 0, end;
	uint64_t got = 0, got_prev = 0, pps, max_pps = 0, fill_us, worst_fill = 0;
	uint32_t itr, max_itr = 0, worst_itr = 0;
	unsigned int arms = 0, over = 0, i, k;
	struct rte_ether_addr mac_b;
	struct rte_mbuf *pkts[32];
	uint16_t n;
	int ret;

	TEST_ASSERT_SUCCESS(in_pair_ring("itr=adaptive", true, IN_CAP_RING), "pair");
	ret = in_epoll_add();
	rte_eth_macaddr_get(in_b, &mac_b);
	end = rte_get_tsc_cycles() + hz / 10;
	while (ret == 0 && rte_get_tsc_cycles() < end) {
		t = rte_get_tsc_cycles() + poll;
		while (rte_get_tsc_cycles() < t) {
			for (i = 0; i < RTE_DIM(pkts); i++)
				pkts[i] = test_make_pkt(&mac_b, 64, i, 1);
			k = rte_eth_tx_burst(in_a, 0, pkts, RTE_DIM(pkts));
			rte_pktmbuf_free_bulk(pkts + k, RTE_DIM(pkts) - k);
			while ((n = rte_eth_rx_burst(in_b, 0, pkts, RTE_DIM(pkts))) != 0) {
				rte_pktmbuf_free_bulk(pkts, n);
				got += n;
			}
		}
		t = rte_get_tsc_cycles();
		rte_eth_dev_rx_intr_enable(in_b, 0);
		itr = in_device_rx_itr_us();
		rte_eth_dev_rx_intr_disable(in_b, 0);
		if (arms++ > 0) {
			pps = (got - got_prev) * hz / (t - t_prev);
			fill_us = pps != 0 ? (uint64_t)IN_CAP_RING * 1000000 / pps : UINT64_MAX;
			max_pps = RTE_MAX(max_pps, pps);
			max_itr = RTE_MAX(max_itr, itr);
			if (itr > fill_us) {
				over++;
				worst_itr = itr;
				worst_fill = fill_us;
			}
		}
		t_prev = t;
		got_prev = got;
	}
	in_pair_destroy();
	TEST_ASSERT_SUCCESS(ret, "rx_intr_ctl_q: %s", rte_strerror(-ret));
	printf("    %u decisions, up to %" PRIu64 " pps received, device interval up to %u us%s\n",
	       arms - 1, max_pps, max_itr,
	       max_pps < 640000 ? " (below 640 kpps the cap does not bind)" : "");
	TEST_ASSERT_EQUAL(over, 0, "%u of %u intervals longer than the ring's fill time, "
			  "e.g. %u us where %u entries fill in %" PRIu64 " us", over, arms - 1,
			  worst_itr, IN_CAP_RING, worst_fill);
	return TEST_SUCCESS;
}

/* Without intr_conf.rxq there are no queue interrupts to ask for. */
static int
test_no_rxq_intr_without_conf(void)
{
	int ctl, en;

	TEST_ASSERT_SUCCESS(in_pair("", false), "pair");
	ctl = in_epoll_add();
	en = rte_eth_dev_rx_intr_enable(in_b, 0);
	test_pair_destroy(IN_A, IN_B);
	TEST_ASSERT(ctl != 0, "rx_intr_ctl_q accepted without intr_conf.rxq");
	TEST_ASSERT(en != 0, "rx_intr_enable accepted without intr_conf.rxq");
	return TEST_SUCCESS;
}

static uint64_t
monitor_read(const struct rte_power_monitor_cond *pmc)
{
	return *(const volatile uint8_t *)pmc->addr;
}

/* The power library's monitor condition: sleep while empty, not once a frame is in. */
static int
test_monitor_addr(void)
{
	struct rte_power_monitor_cond pmc;
	struct rte_ether_addr mac_b;
	struct rte_mbuf *pkt;
	int ret, empty = 1, full = 1;

	TEST_ASSERT_SUCCESS(in_pair("", false), "pair");
	ret = rte_eth_get_monitor_addr(in_b, 0, &pmc);
	if (ret == 0 && pmc.size == 1) {
		empty = pmc.fn(monitor_read(&pmc), pmc.opaque);
		rte_eth_macaddr_get(in_b, &mac_b);
		pkt = test_make_pkt(&mac_b, 64, 7, 1);
		if (test_tx_all(in_a, &pkt, 1) == 1) {
			uint64_t end = rte_get_timer_cycles() + TEST_WAIT_S * rte_get_timer_hz();

			while (rte_eth_rx_queue_count(in_b, 0) == 0 && rte_get_timer_cycles() < end)
				rte_pause();
			full = pmc.fn(monitor_read(&pmc), pmc.opaque);
			if (test_rx_wait(in_b, &pkt, 1) == 1)
				rte_pktmbuf_free(pkt);
		}
	}
	in_pair_destroy();
	TEST_ASSERT_SUCCESS(ret, "get_monitor_addr: %s", rte_strerror(-ret));
	TEST_ASSERT_EQUAL(empty, 0, "empty queue: the callback must let the lcore sleep");
	TEST_ASSERT_EQUAL(full, -1, "a frame waits: the callback must abort the sleep");
	return TEST_SUCCESS;
}

/* The power library's monitor mode on a refnic queue, where the CPU has it. */
static int
test_power_monitor_mode(void)
{
	struct rte_cpu_intrinsics cpu;
	struct rte_ether_addr mac_b;
	struct rte_mbuf *pkts[32];
	unsigned int i, got = 0;
	uint64_t end;
	int ret;

	rte_cpu_get_intrinsics_support(&cpu);
	if (!cpu.power_monitor) {
		printf("    this CPU has no UMWAIT/MONITORX: monitor mode cannot run\n");
		return TEST_SKIPPED;
	}
	TEST_ASSERT_SUCCESS(in_pair("", false), "pair");
	rte_eth_dev_stop(in_b);
	ret = rte_power_ethdev_pmgmt_queue_enable(rte_lcore_id(), in_b, 0,
						  RTE_POWER_MGMT_TYPE_MONITOR);
	if (ret == 0)
		ret = rte_eth_dev_start(in_b);
	rte_eth_macaddr_get(in_b, &mac_b);
	for (i = 0; i < RTE_DIM(pkts); i++)
		pkts[i] = test_make_pkt(&mac_b, 64, i, 1);
	if (ret == 0 && test_tx_all(in_a, pkts, RTE_DIM(pkts)) != RTE_DIM(pkts))
		ret = -1;
	end = rte_get_timer_cycles() + TEST_WAIT_S * rte_get_timer_hz();
	while (ret == 0 && got < RTE_DIM(pkts) && rte_get_timer_cycles() < end) {
		uint16_t n = rte_eth_rx_burst(in_b, 0, pkts, RTE_DIM(pkts));

		rte_pktmbuf_free_bulk(pkts, n);
		got += n;
	}
	rte_eth_dev_stop(in_b);
	rte_power_ethdev_pmgmt_queue_disable(rte_lcore_id(), in_b, 0);
	in_pair_destroy();
	TEST_ASSERT_SUCCESS(ret, "monitor mode: %d", ret);
	TEST_ASSERT_EQUAL(got, RTE_DIM(pkts), "%u frames received", got);
	return TEST_SUCCESS;
}

const struct unit_test_suite refnic_intr_suite = {
	.name = "intr",
	.cases = {
		TEST_CASE(test_rx_intr_wakes_and_sleeps),
		TEST_CASE(test_itr_bounds_interrupts),
		TEST_CASE(test_disarmed_never_fires),
		TEST_CASE(test_no_moderation_without_capability),
		TEST_CASE(test_arm_with_pending_fires),
		TEST_CASE(test_tx_intr),
		TEST_CASE(test_itr_api),
		TEST_CASE(test_itr_api_bounds_interrupts),
		TEST_CASE(test_adaptive_follows_rate),
		TEST_CASE(test_held_fires_on_ring_fill),
		TEST_CASE(test_adaptive_capped_by_ring),
		TEST_CASE(test_tx_held_fires_on_ring_fill),
		TEST_CASE(test_no_rxq_intr_without_conf),
		TEST_CASE(test_monitor_addr),
		TEST_CASE(test_power_monitor_mode),
		TEST_CASES_END()
	},
};

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

#include <stdio.h>
#include <string.h>

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
		__atomic_fetch_add(&recovered_events[port], 1, __ATOMIC_RELEASE);
	else
		__atomic_fetch_add(&reset_events[port], 1, __ATOMIC_RELEASE);
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
	/* Every frame accounted for, by the devices' own counters. */
	uint64_t sent;			/* frames tx_burst took */
	uint64_t a_tx;			/* A's device: frames it sent */
	uint64_t a_lost;		/* ... dropped: malformed, cable */
	uint64_t b_rx;			/* B's device: frames it wrote to the ring */
	uint64_t b_lost;		/* ... dropped: no buffer, filtered, cable */
	uint64_t stray;			/* received frames no sent one matches, in order */
	uint64_t stray_first;		/* the first of them: its position */
	uint64_t gaps;			/* runs of sent frames that never came */
	bool after_ok;			/* a clean burst crossed intact, faults off */
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
	unsigned int now = __atomic_load_n(&reset_events[port], __ATOMIC_ACQUIRE);

	while (*seen != now && r->recoveries < MAX_RECOVERIES) {
		*seen = now;
		r->recoveries++;
		if (recover(port))
			break;
		rte_delay_us_sleep(2000);	/* its failure's event, if any */
		now = __atomic_load_n(&reset_events[port], __ATOMIC_ACQUIRE);
		if (*seen == now)
			*seen = now - 1;	/* not up: try again */
	}
}

/*
 * Frame number seed of a run: its length, unique with its payload (which
 * repeats every 256 seeds) among the run's ROUNDS * TEST_BURST frames.
 */
static uint32_t
hostile_len(uint32_t seed)
{
	return 64 + (seed / TEST_BURST % 8) * 100 + (seed >> 8 & 63);
}

/* Frames sent, in order; what B receives is matched against them in order. */
static uint32_t sent_seed[ROUNDS * TEST_BURST];

/*
 * m is the next sent frame at or after *next, byte for byte: *next moves
 * past it (the frames skipped were lost); false if none is (m was never
 * sent, came twice or out of order).
 */
static bool
hostile_match(const struct rte_mbuf *m, const struct rte_ether_addr *mac, uint64_t sent,
	      uint64_t *next, uint64_t *gaps)
{
	uint64_t k;

	for (k = *next; k < sent; k++)
		if (test_pkt_matches(m, mac, hostile_len(sent_seed[k]), sent_seed[k])) {
			*gaps += k != *next;
			*next = k + 1;
			return true;
		}
	return false;
}

static void
hostile_receive(uint16_t b, const struct rte_ether_addr *mac, struct hostile_run *r,
		uint64_t *next, unsigned int *got)
{
	struct rte_mbuf *m[TEST_BURST];
	uint16_t n, k;

	n = rte_eth_rx_burst(b, 0, m, TEST_BURST);
	for (k = 0; k < n; k++)
		if (!hostile_match(m[k], mac, r->sent, next, &r->gaps) && r->stray++ == 0)
			r->stray_first = r->received + k;
	r->received += n;
	*got += n;
	rte_pktmbuf_free_bulk(m, n);
}

/* Faults off, recoveries over: one burst A -> B arrives whole and intact. */
static bool
hostile_after(uint16_t a, uint16_t b, const struct rte_ether_addr *mac, struct hostile_run *r,
	      unsigned int *seen_a, unsigned int *seen_b)
{
	struct refnic_emu_faults none = { 0 };
	struct rte_mbuf *m[TEST_BURST];
	uint64_t deadline;
	uint16_t n, i, got = 0;
	bool ok = true;

	refnic_emu_set_faults(refnic_emu_lookup(HA), &none);
	refnic_emu_set_faults(refnic_emu_lookup(HB), &none);
	rte_delay_ms(50);	/* a recovery under way finishes, or its event comes */
	recover_pending(a, seen_a, r);
	recover_pending(b, seen_b, r);
	while ((n = rte_eth_rx_burst(b, 0, m, TEST_BURST)) > 0)
		rte_pktmbuf_free_bulk(m, n);
	for (i = 0; i < TEST_BURST; i++)
		m[i] = test_make_pkt(mac, 200 + i, 7000 + i, 1);
	if (test_tx_all(a, m, TEST_BURST) != TEST_BURST)
		return false;
	deadline = rte_get_timer_cycles() + TEST_WAIT_S * rte_get_timer_hz();
	while (got < TEST_BURST && rte_get_timer_cycles() < deadline) {
		n = rte_eth_rx_burst(b, 0, m, TEST_BURST);
		for (i = 0; i < n; i++)
			ok &= test_pkt_matches(m[i], mac, 200 + got + i, 7000 + got + i);
		got += n;
		rte_pktmbuf_free_bulk(m, n);
	}
	return ok && got == TEST_BURST;
}

/* Traffic A -> B while the device of `victim` garbles what fault_corrupt says. */
static int
hostile_run(const char *corrupt_a, const char *corrupt_b, const char *victim,
	    struct hostile_run *r)
{
	char args[128], args_b[128];
	const struct test_pair_conf pair = {
		.name_a = HA, .name_b = HB, .args_a = args, .args_b = args_b,
	};
	struct rte_ether_addr mac;
	struct rte_mbuf *m[TEST_BURST];
	struct refnic_hw_stats sa, sb;
	unsigned int in_use, seen_a = 0, seen_b = 0, round, i, tries, got;
	uint64_t next = 0;
	uint16_t a, b, n;

	memset(r, 0, sizeof(*r));
	snprintf(args, sizeof(args), "profile=ideal%s%s", *corrupt_a ? "," : "", corrupt_a);
	snprintf(args_b, sizeof(args_b), "profile=ideal%s%s", *corrupt_b ? "," : "", corrupt_b);
	if (test_pair_probe(&pair, &a, &b) != 0)
		return -1;
	__atomic_store_n(&reset_events[a], 0, __ATOMIC_RELAXED);
	__atomic_store_n(&reset_events[b], 0, __ATOMIC_RELAXED);
	__atomic_store_n(&recovered_events[a], 0, __ATOMIC_RELAXED);
	__atomic_store_n(&recovered_events[b], 0, __ATOMIC_RELAXED);
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
	/* The devices' counts from here on (bring-ups send nothing). */
	test_hw_stats(HA, &sa);
	test_hw_stats(HB, &sb);
	r->a_tx = sa.q[0].tx_packets;
	r->a_lost = sa.q[0].tx_malformed + sa.cable_tx_dropped;
	r->b_rx = sb.q[0].rx_packets;
	r->b_lost = sb.q[0].rx_no_buffer + sb.rx_filtered + sb.rx_oversize + sb.cable_rx_dropped;
	for (round = 0; r->started && round < ROUNDS; round++) {
		for (i = 0; i < TEST_BURST; i++) {
			uint32_t seed = round * TEST_BURST + i;

			m[i] = test_make_pkt(&mac, hostile_len(seed), seed, 1);
		}
		n = rte_eth_tx_burst(a, 0, m, TEST_BURST);
		for (i = 0; i < n; i++)
			sent_seed[r->sent++] = round * TEST_BURST + i;
		rte_pktmbuf_free_bulk(m + n, TEST_BURST - n);
		for (i = 0, got = 0; i < 4; i++)
			hostile_receive(b, &mac, r, &next, &got);
		if (got == 0)	/* a recovery under way: give it time */
			rte_delay_us_sleep(1000);
		recover_pending(a, &seen_a, r);
		recover_pending(b, &seen_b, r);
	}
	/* What is still on its way, then the counts. */
	for (i = 0, got = 0; r->started && i < 20; i++) {
		hostile_receive(b, &mac, r, &next, &got);
		rte_delay_us_sleep(500);
	}
	r->gaps += next != r->sent;	/* the last ones never came */
	test_hw_stats(HA, &sa);
	test_hw_stats(HB, &sb);
	r->a_tx = sa.q[0].tx_packets - r->a_tx;
	r->a_lost = sa.q[0].tx_malformed + sa.cable_tx_dropped - r->a_lost;
	r->b_rx = sb.q[0].rx_packets - r->b_rx;
	r->b_lost = sb.q[0].rx_no_buffer + sb.rx_filtered + sb.rx_oversize + sb.cable_rx_dropped -
		    r->b_lost;
	r->garbled = refnic_emu_corrupted(refnic_emu_lookup(victim));
	r->after_ok = r->started && hostile_after(a, b, &mac, r, &seen_a, &seen_b);
	/* Acquire: what the PMD did before its event is seen here. */
	r->events = __atomic_load_n(&reset_events[a], __ATOMIC_ACQUIRE) +
		    __atomic_load_n(&reset_events[b], __ATOMIC_ACQUIRE);
	r->recovered = __atomic_load_n(&recovered_events[a], __ATOMIC_ACQUIRE) +
		       __atomic_load_n(&recovered_events[b], __ATOMIC_ACQUIRE);
	rte_eth_dev_stop(a);
	rte_eth_dev_stop(b);
	r->in_use_delta = (int)rte_mempool_in_use_count(test_pool) - (int)in_use;
	events_watch(a, false);
	events_watch(b, false);
	test_port_destroy(HA);
	test_port_destroy(HB);
	printf("    %s%s: %" PRIu64 " garbled, %u recovered by the PMD, %u reset events, "
	       "%u recoveries by the application; %" PRIu64 " sent, A's device sent %" PRIu64
	       " and dropped %" PRIu64 ", B's device took %" PRIu64 " and dropped %" PRIu64
	       ", %" PRIu64 " received in order, in %" PRIu64 " runs, %" PRIu64 " stray\n",
	       corrupt_a, corrupt_b, r->garbled, r->recovered, r->events, r->recoveries, r->sent,
	       r->a_tx, r->a_lost, r->b_rx, r->b_lost, r->received - r->stray, r->gaps + 1,
	       r->stray);
	return 0;
}

/*
 * What arrived, against what was sent: every frame B delivers is one A sent,
 * byte for byte, in order, once; both devices account for every frame
 * (A's sent all tx_burst took, B's took or counted each); and B's frames lost
 * (those in a stopped ring, which the PMD does not count) come in at most one
 * run per recovery. With lossless set, none lost at all.
 */
static int
hostile_accounted(const struct hostile_run *r, bool lossless)
{
	unsigned int recoveries = r->recovered + r->recoveries;

	TEST_ASSERT(r->sent > 0, "nothing sent");
	TEST_ASSERT_EQUAL(r->stray, 0, "%" PRIu64 " frames received that were not sent, or not "
			  "in order, or twice (the first at %" PRIu64 ")", r->stray, r->stray_first);
	TEST_ASSERT_EQUAL(r->a_tx + r->a_lost, r->sent, "A's device: %" PRIu64 " sent, %" PRIu64
			  " dropped, of %" PRIu64, r->a_tx, r->a_lost, r->sent);
	TEST_ASSERT_EQUAL(r->b_rx + r->b_lost, r->a_tx,
			  "B's device: %" PRIu64 " taken, %" PRIu64 " dropped, of %" PRIu64 " sent",
			  r->b_rx, r->b_lost, r->a_tx);
	TEST_ASSERT(r->received <= r->b_rx, "%" PRIu64 " received of %" PRIu64 " taken",
		    r->received, r->b_rx);
	if (lossless) {
		TEST_ASSERT_EQUAL(r->received, r->sent, "%" PRIu64 " of %" PRIu64 " arrived",
				  r->received, r->sent);
		return TEST_SUCCESS;
	}
	TEST_ASSERT(r->gaps <= recoveries, "frames lost in %" PRIu64 " runs, %u recoveries",
		    r->gaps, recoveries);
	return TEST_SUCCESS;
}

/* Queues that see garbage stop; the port recovers, leaking nothing. */
static int
hostile_queue(const char *corrupt_a, const char *corrupt_b, const char *victim, bool lossless)
{
	struct hostile_run r;

	TEST_ASSERT_SUCCESS(hostile_run(corrupt_a, corrupt_b, victim, &r), "ports");
	TEST_ASSERT(r.started, "the ports never started");
	TEST_ASSERT(r.garbled > 0, "the device garbled nothing");
	TEST_ASSERT(r.recovered > 0, "garbage, and no recovery");
	TEST_ASSERT(r.received > 0, "no traffic between failures");
	if (hostile_accounted(&r, lossless) != TEST_SUCCESS)
		return TEST_FAILED;
	TEST_ASSERT(r.after_ok, "no clean burst after the faults stopped");
	TEST_ASSERT_EQUAL(r.in_use_delta, 0, "%d mbufs held after stop", r.in_use_delta);
	return TEST_SUCCESS;
}

/* A frame whose completion is garbled is lost with the rest of its stopped ring. */
static int
test_garbled_rx_completions(void)
{
	return hostile_queue("", "fault_corrupt=rx:97", HB, false);
}

/* A garbled TX completion comes after the frame went: none is lost. */
static int
test_garbled_tx_completions(void)
{
	return hostile_queue("fault_corrupt=tx:97", "", HA, true);
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
	if (hostile_accounted(&r, true) != TEST_SUCCESS)
		return TEST_FAILED;
	TEST_ASSERT(r.after_ok, "no clean burst after the faults stopped");
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

/* Every event the device posts comes out as "RX queue 0 stopped on an error". */
static unsigned int tampered;

static void
tamper_queue_error(void *ctx __rte_unused, uint8_t what, void *entry, size_t len)
{
	struct refnic_event *ev = entry;

	if (what != REFNIC_EMU_CORRUPT_EVENT || len < sizeof(*ev))
		return;
	ev->type = REFNIC_EVENT_QUEUE_ERROR;
	ev->data = (uint32_t)REFNIC_QTYPE_RX << 16 | 0;
	__atomic_fetch_add(&tampered, 1, __ATOMIC_RELAXED);
}

/*
 * An event naming a started queue that the device has not stopped (its
 * status register shows no error) is garbage too: the queue goes on, no
 * recovery, nothing counted as a queue error.
 */
static int
test_spurious_queue_error_event(void)
{
	uint64_t deadline = rte_get_timer_cycles() + TEST_WAIT_S * rte_get_timer_hz();
	static char log[8192];
	struct refnic_emu *emu;
	unsigned int recovered;
	uint64_t errors;
	bool judged;
	uint16_t a;
	FILE *f;

	TEST_ASSERT_SUCCESS(test_port_create(HA, "cable=loopback,profile=ideal", &a), "");
	TEST_ASSERT_SUCCESS(test_port_start(a, 0, 0), "");
	recovered_events[a] = reset_events[a] = 0;
	tampered = 0;
	events_watch(a, true);
	emu = refnic_emu_lookup(HA);
	f = test_log_capture_start(log, sizeof(log));
	refnic_emu_set_tamper(emu, tamper_queue_error, NULL);
	refnic_emu_set_cable_plugged(emu, false);	/* an LSC event, rewritten */
	/* Until the interrupt thread has read it: its line says what it judged. */
	while (!(judged = test_log_has(log, "shows no error: ignored")) &&
	       rte_get_timer_cycles() < deadline)
		rte_delay_ms(1);
	test_log_capture_stop(f);
	refnic_emu_set_tamper(emu, NULL, NULL);
	refnic_emu_set_cable_plugged(emu, true);
	rte_delay_ms(100);
	errors = test_xstat(a, "queue_errors");
	recovered = recovered_events[a] + reset_events[a];
	events_watch(a, false);
	test_port_destroy(HA);
	TEST_ASSERT(tampered > 0, "no event was posted");
	TEST_ASSERT(judged, "the driver never read the event:\n%s", log);
	TEST_ASSERT_EQUAL(errors, 0, "a queue error counted for a healthy queue");
	TEST_ASSERT_EQUAL(recovered, 0, "a recovery for a healthy queue");
	return TEST_SUCCESS;
}

/* --- Admin reply buffers (fault_corrupt=reply) ------------------------- */

#define HR	"net_refnic_hr"

static char reply_log[16384];

/* Lines of reply_log holding needle. */
static unsigned int
log_lines_with(const char *needle)
{
	return test_log_count(reply_log, needle, NULL);
}

/* Every garbled reply from now on (the lab's knob: the port probed clean). */
static void
replies_garbled(bool on)
{
	struct refnic_emu_faults f = { .corrupt_what = REFNIC_EMU_CORRUPT_REPLY,
				       .corrupt_every = 1 };

	if (!on)
		memset(&f, 0, sizeof(f));
	refnic_emu_set_faults(refnic_emu_lookup(HR), &f);
}

/* Whatever a case left: its device behaves again and goes. */
static void
hr_teardown(void)
{
	if (refnic_emu_lookup(HR) != NULL)
		replies_garbled(false);
	test_port_destroy(HR);
}

/* What dev_info says stays within the contract, whatever IDENTIFY said. */
static int
info_within_contract(uint16_t port)
{
	struct rte_eth_dev_info info;
	char fw[64];

	TEST_ASSERT_SUCCESS(rte_eth_dev_info_get(port, &info), "dev_info");
	TEST_ASSERT(info.max_rx_queues >= 1 && info.max_rx_queues <= REFNIC_MAX_QUEUES &&
		    info.max_tx_queues == info.max_rx_queues, "%u queues", info.max_rx_queues);
	TEST_ASSERT(info.tx_desc_lim.nb_mtu_seg_max >= 1 &&
		    info.tx_desc_lim.nb_mtu_seg_max <= REFNIC_MAX_TX_SEGS &&
		    info.tx_desc_lim.nb_seg_max >= info.tx_desc_lim.nb_mtu_seg_max &&
		    info.tx_desc_lim.nb_seg_max <= REFNIC_MAX_TSO_SEGS, "%u/%u TX segments",
		    info.tx_desc_lim.nb_mtu_seg_max, info.tx_desc_lim.nb_seg_max);
	TEST_ASSERT(info.min_mtu >= REFNIC_MIN_MTU && info.max_mtu <= REFNIC_MAX_MTU &&
		    info.min_mtu <= info.max_mtu, "MTU %u-%u", info.min_mtu, info.max_mtu);
	TEST_ASSERT(info.rx_desc_lim.nb_min >= REFNIC_MIN_RING_SIZE &&
		    info.rx_desc_lim.nb_max <= REFNIC_MAX_RING_SIZE &&
		    rte_is_power_of_2(info.rx_desc_lim.nb_min) &&
		    rte_is_power_of_2(info.rx_desc_lim.nb_max), "rings %u-%u",
		    info.rx_desc_lim.nb_min, info.rx_desc_lim.nb_max);
	TEST_ASSERT(info.max_mac_addrs <= 1 + REFNIC_MAX_MAC_FILTERS, "%u MACs",
		    info.max_mac_addrs);
	TEST_ASSERT(info.reta_size == 0 || info.reta_size == REFNIC_RSS_RETA_SIZE, "RETA %u",
		    info.reta_size);
	TEST_ASSERT(rte_eth_dev_fw_version_get(port, fw, sizeof(fw)) == 0 &&
		    strlen(fw) < REFNIC_FW_VERSION_LEN, "fw version");
	return TEST_SUCCESS;
}

/* A bad IDENTIFY at probe: the probe fails with one line naming the field,
 * and leaves no port, no device, no mbuf behind. */
static int
test_bad_identify_fails_probe(void)
{
	unsigned int in_use = rte_mempool_in_use_count(test_pool);
	FILE *f = test_log_capture_start(reply_log, sizeof(reply_log));
	uint16_t port;
	int ret;

	ret = test_port_create(HR, "cable=loopback,profile=ideal,fault_corrupt=reply:1", &port);
	test_log_capture_stop(f);
	if (ret == 0)
		test_port_destroy(HR);
	TEST_ASSERT(ret != 0, "a device with a bad IDENTIFY was accepted");
	printf("    %s", reply_log);
	TEST_ASSERT_EQUAL(log_lines_with("IDENTIFY reply"), 1, "lines naming IDENTIFY");
	TEST_ASSERT(strstr(reply_log, "magic") != NULL, "the line names the field");
	TEST_ASSERT(rte_eth_dev_get_port_by_name(HR, &port) != 0, "a port is left");
	TEST_ASSERT(refnic_emu_lookup(HR) == NULL, "a device is left");
	TEST_ASSERT_EQUAL(rte_mempool_in_use_count(test_pool), in_use, "mbufs held");
	return TEST_SUCCESS;
}

/*
 * Every IDENTIFY variant, one reset each: each refused or clamped with a
 * counted line, dev_info within the contract all along; then the device
 * behaves, the port refuses to start until a reset succeeds, and after one
 * carries traffic again with every mbuf back.
 */
static int
test_bad_identify_every_variant(void)
{
	unsigned int in_use = rte_mempool_in_use_count(test_pool), v, refused = 0;
	uint64_t errors = 0, now;
	struct rte_ether_addr mac;
	struct rte_mbuf *m;
	uint16_t port;
	FILE *f;
	int ret;

	TEST_ASSERT_SUCCESS(test_port_create(HR, "cable=loopback,profile=ideal", &port), "");
	TEST_ASSERT_SUCCESS(test_port_start(port, 0, 0), "");
	replies_garbled(true);
	for (v = 0; v < 15; v++) {
		rte_eth_dev_stop(port);
		f = test_log_capture_start(reply_log, sizeof(reply_log));
		ret = rte_eth_dev_reset(port);
		test_log_capture_stop(f);
		refused += log_lines_with("device refused") != 0;
		now = test_xstat(port, "admin_reply_errors");
		TEST_ASSERT(ret != 0, "variant %u: a garbled reset went through", v);
		TEST_ASSERT(log_lines_with("IDENTIFY reply") >= 1,
			    "variant %u: no line names IDENTIFY:\n%s", v, reply_log);
		TEST_ASSERT(now > errors, "variant %u: nothing counted", v);
		errors = now;
		if (info_within_contract(port) != TEST_SUCCESS)
			return TEST_FAILED;
	}
	printf("    15 IDENTIFY variants: %u refused, %u clamped, %" PRIu64 " reply errors\n",
	       refused, 15 - refused, errors);
	replies_garbled(false);
	/* The device behaves now, but the last reset failed: no start until
	 * one succeeds, not on the limits of an IDENTIFY long gone. */
	ret = test_port_start(port, 0, 0);
	TEST_ASSERT(ret != 0, "a port whose reset failed started without another reset");
	ret = rte_eth_dev_reset(port);
	TEST_ASSERT_SUCCESS(ret, "reset once the device behaves");
	ret = test_port_start(port, 0, 0);
	TEST_ASSERT_SUCCESS(ret, "start once the device behaves");
	rte_eth_macaddr_get(port, &mac);
	m = test_make_pkt(&mac, 200, 7, 2);
	ret |= test_tx_all(port, &m, 1) != 1 || test_rx_wait(port, &m, 1) != 1 ||
	       !test_pkt_matches(m, &mac, 200, 7);
	if (ret == 0)
		rte_pktmbuf_free(m);
	rte_eth_dev_stop(port);
	test_port_destroy(HR);
	TEST_ASSERT_SUCCESS(ret, "no traffic after the device behaved again");
	TEST_ASSERT(refused >= 10, "%u variants refused", refused);
	TEST_ASSERT_EQUAL(rte_mempool_in_use_count(test_pool), in_use, "mbufs held");
	return TEST_SUCCESS;
}

/* Garbled STATS_GET replies are refused, counted, and the last good
 * counters stand: nothing jumps, nothing goes back. */
static int
test_bad_stats_replies(void)
{
	static const char * const kept[] = {
		"tx_doorbell_writes", "rx_doorbell_writes", "device_resets", "dma_errors",
	};
	uint64_t before[RTE_DIM(kept)], base, errors;
	struct rte_ether_addr mac;
	struct rte_mbuf *m[8];
	struct rte_eth_stats st;
	unsigned int i, r;
	uint16_t port;

	TEST_ASSERT_SUCCESS(test_port_create(HR, "cable=loopback,profile=ideal", &port), "");
	TEST_ASSERT_SUCCESS(test_port_start(port, 0, 0), "");
	rte_eth_macaddr_get(port, &mac);
	for (i = 0; i < RTE_DIM(m); i++)
		m[i] = test_make_pkt(&mac, 100, i, 1);
	TEST_ASSERT_EQUAL(test_tx_all(port, m, RTE_DIM(m)), RTE_DIM(m), "sent");
	TEST_ASSERT_EQUAL(test_rx_wait(port, m, RTE_DIM(m)), RTE_DIM(m), "received");
	rte_pktmbuf_free_bulk(m, RTE_DIM(m));
	for (i = 0; i < RTE_DIM(kept); i++)
		before[i] = test_xstat(port, kept[i]);
	base = test_xstat(port, "admin_reply_errors");
	replies_garbled(true);
	for (r = 0; r < 6; r++) {
		for (i = 0; i < RTE_DIM(kept); i++)
			TEST_ASSERT_EQUAL(test_xstat(port, kept[i]), before[i], "%s, read %u",
					  kept[i], r);
		TEST_ASSERT_SUCCESS(rte_eth_stats_get(port, &st), "");
		TEST_ASSERT_EQUAL(st.opackets, RTE_DIM(m), "read %u: the driver's count", r);
	}
	replies_garbled(false);
	/* Each xstat and stats read above made at least one STATS_GET, each
	 * refused; the good ones after are not. */
	errors = test_xstat(port, "admin_reply_errors") - base;
	TEST_ASSERT(errors >= 6 * (RTE_DIM(kept) + 1), "%" PRIu64 " refused replies", errors);
	TEST_ASSERT_SUCCESS(rte_eth_stats_get(port, &st), "");
	TEST_ASSERT_EQUAL(st.opackets, RTE_DIM(m), "the device's count again");
	TEST_ASSERT_EQUAL(st.ipackets, RTE_DIM(m), "the device's count again");
	TEST_ASSERT_EQUAL(test_xstat(port, "admin_reply_errors") - base, errors,
			  "a good reply counted as bad");
	return TEST_SUCCESS;
}

/* One STATS_GET reply the device garbles high, once: a jump no check can
 * tell from traffic, so it is taken. */
static unsigned int stats_jumps;

static void
tamper_stats_high(void *ctx __rte_unused, uint8_t what, void *entry, size_t len)
{
	struct refnic_hw_stats *s = entry;

	if (what != REFNIC_EMU_CORRUPT_REPLY || len != sizeof(*s) || stats_jumps != 0)
		return;
	s->rx_filtered += UINT64_C(1) << 40;
	stats_jumps++;
}

/* A garbled-high reply that was taken does not make the true replies after
 * it look like counters going back: they are taken again, none refused. */
static int
test_stats_jump_does_not_wedge(void)
{
	uint64_t errors, filtered;
	struct refnic_emu *emu;
	uint16_t port;

	TEST_ASSERT_SUCCESS(test_port_create(HR, "cable=loopback,profile=ideal", &port), "");
	TEST_ASSERT_SUCCESS(test_port_start(port, 0, 0), "");
	emu = refnic_emu_lookup(HR);
	errors = test_xstat(port, "admin_reply_errors");
	stats_jumps = 0;
	refnic_emu_set_tamper(emu, tamper_stats_high, NULL);
	filtered = test_xstat(port, "rx_filtered");
	refnic_emu_set_tamper(emu, NULL, NULL);
	TEST_ASSERT_EQUAL(stats_jumps, 1, "the device garbled no reply");
	TEST_ASSERT(filtered >= UINT64_C(1) << 40, "the jump was refused: %" PRIu64, filtered);
	filtered = test_xstat(port, "rx_filtered");
	errors = test_xstat(port, "admin_reply_errors") - errors;
	TEST_ASSERT(filtered < UINT64_C(1) << 40, "the true count was refused: %" PRIu64,
		    filtered);
	TEST_ASSERT_EQUAL(errors, 0, "true replies refused after the jump");
	return TEST_SUCCESS;
}

/* Garbled RSS_GET replies (RETA beyond the queues, unknown hash types)
 * never reach the application: -EIO, counted; then the real table. */
static int
test_bad_rss_replies(void)
{
	struct rte_eth_conf conf = {
		.rxmode = { .mq_mode = RTE_ETH_MQ_RX_RSS },
		.rx_adv_conf.rss_conf.rss_hf = RTE_ETH_RSS_IPV4 | RTE_ETH_RSS_IPV6,
	};
	struct rte_eth_rss_reta_entry64 reta[REFNIC_RSS_RETA_SIZE / RTE_ETH_RETA_GROUP_SIZE];
	struct rte_eth_rss_conf rss = { 0 };
	unsigned int in_use = rte_mempool_in_use_count(test_pool), i;
	uint64_t errors;
	uint16_t port;
	int ret = 0;

	TEST_ASSERT_SUCCESS(test_port_create(HR, "cable=loopback,profile=ideal", &port), "");
	if (rte_eth_dev_configure(port, 2, 1, &conf) != 0 ||
	    rte_eth_rx_queue_setup(port, 0, TEST_RING_SIZE, SOCKET_ID_ANY, NULL, test_pool) != 0 ||
	    rte_eth_rx_queue_setup(port, 1, TEST_RING_SIZE, SOCKET_ID_ANY, NULL, test_pool) != 0 ||
	    rte_eth_tx_queue_setup(port, 0, TEST_RING_SIZE, SOCKET_ID_ANY, NULL) != 0 ||
	    rte_eth_dev_start(port) != 0) {
		test_port_destroy(HR);
		return TEST_FAILED;
	}
	errors = test_xstat(port, "admin_reply_errors");
	replies_garbled(true);
	for (i = 0; i < 6; i++) {
		memset(reta, 0, sizeof(reta));
		reta[0].mask = reta[1].mask = UINT64_MAX;
		ret |= rte_eth_dev_rss_reta_query(port, reta, REFNIC_RSS_RETA_SIZE) != -EIO;
		ret |= rte_eth_dev_rss_hash_conf_get(port, &rss) != -EIO;
	}
	replies_garbled(false);
	errors = test_xstat(port, "admin_reply_errors") - errors;
	memset(reta, 0, sizeof(reta));
	reta[0].mask = reta[1].mask = UINT64_MAX;
	ret |= rte_eth_dev_rss_reta_query(port, reta, REFNIC_RSS_RETA_SIZE) != 0;
	for (i = 0; i < REFNIC_RSS_RETA_SIZE; i++)
		ret |= reta[i / RTE_ETH_RETA_GROUP_SIZE].reta[i % RTE_ETH_RETA_GROUP_SIZE] != i % 2;
	ret |= rte_eth_dev_rss_hash_conf_get(port, &rss) != 0 ||
	       rss.rss_hf != (RTE_ETH_RSS_IPV4 | RTE_ETH_RSS_IPV6);
	rte_eth_dev_stop(port);
	test_port_destroy(HR);
	TEST_ASSERT_SUCCESS(ret, "a garbled RSS_GET reached the application, or the "
			    "good one did not");
	TEST_ASSERT_EQUAL(errors, 12, "refused replies");
	TEST_ASSERT_EQUAL(rte_mempool_in_use_count(test_pool), in_use, "mbufs held");
	return TEST_SUCCESS;
}

const struct unit_test_suite refnic_hostile_suite = {
	.name = "hostile",
	.cases = {
		TEST_CASE(test_garbled_rx_completions),
		TEST_CASE(test_garbled_tx_completions),
		TEST_CASE(test_garbled_admin_replies),
		TEST_CASE(test_garbled_events),
		TEST_CASE(test_spurious_queue_error_event),
		TEST_CASE_ST(NULL, hr_teardown, test_bad_identify_fails_probe),
		TEST_CASE_ST(NULL, hr_teardown, test_bad_identify_every_variant),
		TEST_CASE_ST(NULL, hr_teardown, test_bad_stats_replies),
		TEST_CASE_ST(NULL, hr_teardown, test_stats_jump_does_not_wedge),
		TEST_CASE_ST(NULL, hr_teardown, test_bad_rss_replies),
		TEST_CASES_END()
	},
};

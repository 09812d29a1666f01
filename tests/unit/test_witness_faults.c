/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * Exactly once under faults: witness frames (tests/witness/) from port A
 * to port B over two RSS queues while, at random points of the stream
 * (from a printed seed), the device misses doorbells, garbles what it
 * writes, loses an admin command, fails, stops a queue on an error of its
 * own, and the application flaps the link and restarts a queue. Judged as
 * a user would judge it: no frame duplicated, reordered within its stream
 * or altered; every frame lost counted by a counter the user can read
 * (ethdev's imissed, ierrors, oerrors, rx_nombuf and refnic's drop
 * xstats), exactly; afterwards every mbuf back in its pool.
 *
 * Where refnic counts a frame it loses, as the user reads it: A's oerrors
 * (unsendable, malformed), A's cable_tx_dropped (sent while either end's
 * link was down), B's imissed (no posted buffer: a queue stopped, failed
 * or starved by missed doorbells), B's ierrors (a garbled RX completion:
 * its frame is dropped), B's cable_rx_dropped (arrived while B's device
 * reset), and rx_filtered, rx_oversize, rx_nombuf (none expected here);
 * and frames freed from a ring undelivered when the port recovers or a
 * queue stops: A's oerrors (with tx_qN_ring_discards: taken, never sent)
 * and B's rx_qN_ring_discards (received by B's device, never by the
 * application). B's ipackets is then exactly what the application
 * received, plus B's ierrors and rx ring discards. A port whose recovery
 * fails (or that fails stopped) is reset by the application, as DPDK asks
 * (rte_eth_dev_reset()): the same holds, exactly, and none of the user's
 * counters reads less after the reset than before. The ring cases below
 * take each of these paths alone: frames waiting in an RX or TX ring when
 * the port recovers or the queue restarts, a TX completion garbled after
 * its frame went out (no loss, and none counted), and a recovery that
 * fails, then the reset: the frames in the ring and (RX) those that
 * arrived while the device was down counted, no counter going back, and a
 * stats reset zeroing it all.
 *
 * The schedule depends on frame counts, not on time: REFNIC_WITNESS_SEED
 * replays one; REFNIC_WITNESS_FAULTS (names of wf_fault_names joined by
 * commas) narrows the kinds that fire. A run sends a quarter of
 * REFNIC_WITNESS_FRAMES (default 400000, as the witness suite; the
 * sanitized build runs fewer). REFNIC_WITNESS_SOAK_S turns the case into a
 * soak: runs one after the other, each from its own seed, for that many
 * seconds (devtools/bench.sh witness-soak). REFNIC_WITNESS_VERBOSE prints
 * each fault as it fires.
 */

#include <stdlib.h>

#include "test_common.h"
#include "witness.h"
#include "witness_frame.h"

#define WF_A		"net_refnic_wf_a"
#define WF_B		"net_refnic_wf_b"
#define WF_QUEUES	2
#define WF_STREAMS	(WF_QUEUES * 4)	/* stream s is sent on TX queue s % WF_QUEUES */
#define WF_POOL_SIZE	4095
/* A quarter of a witness path's frames (REFNIC_WITNESS_FRAMES, default
 * 400000): the faults, not the laps of the rings, make the case. */
#define WF_FRAMES_DIV	4
#define WF_DEFAULT_FRAMES	400000
/* One fault every this many frames on average: about twenty a run. */
#define WF_FAULT_SPACING_DIV	20
/* The admin timeout costs the device's 2 s wait: a few a run at most. */
#define WF_ADMIN_TIMEOUTS_MAX	2

enum wf_fault {
	WF_DOORBELL_DROP,	/* the device misses 1 in N TAIL writes, for a while */
	WF_CORRUPT,		/* it garbles completions, replies or events, for a while */
	WF_FATAL,		/* it fails: the port recovers by itself */
	WF_QUEUE_ERROR,		/* it stops a queue on an error of its own */
	WF_ADMIN_TIMEOUT,	/* it never answers one admin command */
	WF_LINK_FLAP,		/* the application sets the link down, then up */
	WF_QUEUE_RESTART,	/* the application stops and starts a queue */
	WF_NB_FAULTS
};

static const char * const wf_fault_names[WF_NB_FAULTS] = {
	"doorbell_drop", "corrupt", "fatal", "queue_error", "admin_timeout", "link_flap",
	"queue_restart",
};

static const enum rte_eth_event_type wf_watched[] = {
	RTE_ETH_EVENT_INTR_RESET, RTE_ETH_EVENT_ERR_RECOVERING,
	RTE_ETH_EVENT_RECOVERY_SUCCESS, RTE_ETH_EVENT_RECOVERY_FAILED,
};

/* Per port (A, B): events seen, by type. */
static unsigned int wf_events[2][RTE_ETH_EVENT_MAX];
static uint16_t wf_port[2];
/* A soak says a failed run in one line (its seed), not frame by frame. */
static bool wf_soak;

/* A run's state: the fault under way ends after `left` bursts. */
struct wf_run {
	uint64_t rng;
	uint64_t sent[WF_STREAMS];	/* frames of each stream built (its next seq) */
	uint64_t built_q[WF_QUEUES];	/* frames built for each TX queue */
	uint64_t built, total;		/* frames built; taken by a TX queue */
	uint64_t target, next_fault;
	unsigned int fired[WF_NB_FAULTS];
	unsigned int admin_timeouts;
	uint32_t kinds;			/* which may fire, a bit each */
	enum wf_fault active;
	unsigned int active_port, left;
	bool any_active;
	struct witness_checker *w;
	struct rte_mempool *pool;
	struct rte_ether_addr mac_b;
	/* Frames built but not yet taken by their TX queue, in order. */
	struct rte_mbuf *pending[WF_QUEUES][TEST_BURST];
	uint16_t nb_pending[WF_QUEUES];
};

/* xorshift64*: the whole schedule from the printed seed. */
static uint32_t
wf_rand(struct wf_run *r, uint32_t bound)
{
	r->rng ^= r->rng >> 12;
	r->rng ^= r->rng << 25;
	r->rng ^= r->rng >> 27;
	return (uint32_t)((r->rng * UINT64_C(2685821657736338717)) >> 32) % bound;
}

static int
wf_event_cb(uint16_t port, enum rte_eth_event_type type, void *arg __rte_unused,
	    void *ret __rte_unused)
{
	__atomic_fetch_add(&wf_events[port == wf_port[1]][type], 1, __ATOMIC_RELEASE);
	return 0;
}

static unsigned int
wf_event_count(unsigned int p, enum rte_eth_event_type type)
{
	return __atomic_load_n(&wf_events[p][type], __ATOMIC_ACQUIRE);
}

static bool
wf_recovering(unsigned int p)
{
	return wf_event_count(p, RTE_ETH_EVENT_ERR_RECOVERING) !=
	       wf_event_count(p, RTE_ETH_EVENT_RECOVERY_SUCCESS) +
	       wf_event_count(p, RTE_ETH_EVENT_RECOVERY_FAILED);
}

/* DPDK: no control call on a port between ERR_RECOVERING and its outcome.
 * A failure found a moment ago raises ERR_RECOVERING from an alarm: give
 * it the time to (a bound, not a measurement). */
static void
wf_wait_recovery(unsigned int p)
{
	uint64_t deadline = rte_get_timer_cycles() + 2 * TEST_WAIT_S * rte_get_timer_hz();

	rte_delay_us_sleep(2000);
	while (wf_recovering(p) && rte_get_timer_cycles() < deadline)
		rte_delay_us_sleep(1000);
}

static struct refnic_emu *
wf_emu(unsigned int p)
{
	return refnic_emu_lookup(p == 0 ? WF_A : WF_B);
}

/* The fault under way ends: its settings off. */
static void
wf_fault_end(struct wf_run *r)
{
	struct refnic_emu_faults none = { 0 };
	unsigned int p = r->active_port;

	if (!r->any_active)
		return;
	switch (r->active) {
	case WF_DOORBELL_DROP:
	case WF_CORRUPT:
		refnic_emu_set_faults(wf_emu(p), &none);
		break;
	case WF_LINK_FLAP:
		wf_wait_recovery(p);
		rte_eth_dev_set_link_up(wf_port[p]);
		break;
	default:
		break;
	}
	r->any_active = false;
}

/* A fault starts, on port p; the lasting ones end after some bursts. */
static void
wf_fault_start(struct wf_run *r, enum wf_fault f, unsigned int p)
{
	struct refnic_emu_faults faults = { 0 }, none = { 0 };
	struct rte_eth_stats stats;
	char what[96] = "";
	uint16_t q;
	int ret;

	r->active = f;
	r->active_port = p;
	r->left = 10 + wf_rand(r, 200);
	r->any_active = false;
	switch (f) {
	case WF_DOORBELL_DROP:
		faults.doorbell_drop = 2 + wf_rand(r, 6);
		refnic_emu_set_faults(wf_emu(p), &faults);
		snprintf(what, sizeof(what), "1 in %u TAIL writes missed", faults.doorbell_drop);
		r->any_active = true;
		break;
	case WF_CORRUPT:
		faults.corrupt_what = 1 + wf_rand(r, REFNIC_EMU_CORRUPT_ANY);
		faults.corrupt_every = 10 + wf_rand(r, 90);
		refnic_emu_set_faults(wf_emu(p), &faults);
		snprintf(what, sizeof(what), "kinds %#x, 1 in %u", faults.corrupt_what,
			 faults.corrupt_every);
		r->any_active = true;
		break;
	case WF_FATAL:
		refnic_emu_inject_fatal(wf_emu(p));
		break;
	case WF_QUEUE_ERROR:
		q = wf_rand(r, WF_QUEUES);
		ret = wf_rand(r, 2);
		refnic_emu_inject_queue_error(wf_emu(p), ret != 0, q);
		snprintf(what, sizeof(what), "%s queue %u", ret != 0 ? "TX" : "RX", q);
		break;
	case WF_ADMIN_TIMEOUT:
		wf_wait_recovery(p);
		/* The next command is lost; a stats read is one (it waits out
		 * the device's admin timeout), then the port recovers. */
		faults.admin_timeout_opcode = REFNIC_EMU_FAULT_ANY_OPCODE;
		faults.admin_timeout_times = 1;
		refnic_emu_set_faults(wf_emu(p), &faults);
		ret = rte_eth_stats_get(wf_port[p], &stats);
		refnic_emu_set_faults(wf_emu(p), &none);
		snprintf(what, sizeof(what), "stats read: %d", ret);
		r->admin_timeouts++;
		break;
	case WF_LINK_FLAP:
		wf_wait_recovery(p);
		ret = rte_eth_dev_set_link_down(wf_port[p]);
		snprintf(what, sizeof(what), "down (%d)", ret);
		r->any_active = true;
		break;
	case WF_QUEUE_RESTART:
		q = wf_rand(r, WF_QUEUES);
		wf_wait_recovery(p);
		if (wf_rand(r, 2) != 0) {
			ret = rte_eth_dev_tx_queue_stop(wf_port[p], q);
			ret |= rte_eth_dev_tx_queue_start(wf_port[p], q);
			snprintf(what, sizeof(what), "TX queue %u (%d)", q, ret);
		} else {
			ret = rte_eth_dev_rx_queue_stop(wf_port[p], q);
			ret |= rte_eth_dev_rx_queue_start(wf_port[p], q);
			snprintf(what, sizeof(what), "RX queue %u (%d)", q, ret);
		}
		break;
	default:
		break;
	}
	r->fired[f]++;
	if (getenv("REFNIC_WITNESS_VERBOSE") != NULL)
		printf("    frame %" PRIu64 ": port %c %s %s\n", r->total, p == 0 ? 'A' : 'B',
		       wf_fault_names[f], what);
}

/* The kinds that fire: REFNIC_WITNESS_FAULTS (names joined by commas), else all. */
static uint32_t
wf_kinds(void)
{
	const char *env = getenv("REFNIC_WITNESS_FAULTS");
	uint32_t kinds = 0;
	unsigned int f;

	if (env == NULL || env[0] == '\0')
		return RTE_LEN2MASK(WF_NB_FAULTS, uint32_t);
	for (f = 0; f < WF_NB_FAULTS; f++) {
		const char *at = strstr(env, wf_fault_names[f]);
		size_t n = strlen(wf_fault_names[f]);

		/* A whole name between commas, not part of another. */
		while (at != NULL && ((at != env && at[-1] != ',') ||
				      (at[n] != '\0' && at[n] != ',')))
			at = strstr(at + 1, wf_fault_names[f]);
		if (at != NULL)
			kinds |= UINT32_C(1) << f;
	}
	return kinds;
}

/* Which fault next: a kind of those that fire, the admin timeout a few
 * times a run; WF_NB_FAULTS if none may. */
static enum wf_fault
wf_pick(struct wf_run *r)
{
	uint32_t kinds = r->kinds;
	enum wf_fault f;

	if (r->admin_timeouts >= WF_ADMIN_TIMEOUTS_MAX)
		kinds &= ~(UINT32_C(1) << WF_ADMIN_TIMEOUT);
	if (kinds == 0)
		return WF_NB_FAULTS;
	do
		f = wf_rand(r, WF_NB_FAULTS);
	while (!(kinds & UINT32_C(1) << f));
	return f;
}

/* What B has on each queue, into the checker. */
static uint64_t
wf_drain(struct wf_run *r)
{
	struct rte_mbuf *rx[TEST_BURST];
	uint64_t got = 0;
	uint16_t q, n, i;

	for (q = 0; q < WF_QUEUES; q++) {
		n = rte_eth_rx_burst(wf_port[1], q, rx, TEST_BURST);
		for (i = 0; i < n; i++)
			witness_check_mbuf(r->w, q, rx[i]);
		rte_pktmbuf_free_bulk(rx, n);
		got += n;
	}
	/* A receives nothing of this run; what it would is counted, not kept. */
	n = rte_eth_rx_burst(wf_port[0], 0, rx, TEST_BURST);
	rte_pktmbuf_free_bulk(rx, n);
	return got;
}

/*
 * One turn of TX queue q: its pending frames first (a queue held by a
 * recovery takes none; they wait, in order), then new ones up to a burst.
 * A frame counts as sent once its queue took it.
 */
static int
wf_send(struct wf_run *r, uint16_t q, uint64_t turn)
{
	static const uint16_t lens[] = { 1, 32, 7, 1, 16, 3, 32, 1, 5 };
	uint16_t want = lens[turn % RTE_DIM(lens)], n = r->nb_pending[q], k, s;
	struct rte_mbuf **m = r->pending[q];
	uint32_t len;

	while (n < want && r->built < r->target) {
		/* Streams q, q + WF_QUEUES, ... by turns: one TX queue each. */
		s = q + WF_QUEUES * (r->built_q[q] % (WF_STREAMS / WF_QUEUES));
		len = WITNESS_FRAME_MIN + (uint32_t)(r->built * 97 %
				(RTE_ETHER_MAX_LEN - 4 - WITNESS_FRAME_MIN));
		/* The sequence number: the stream's count of frames built. */
		m[n] = witness_frame(r->pool, &r->mac_b, len, 1, s, r->sent[s]);
		if (m[n] == NULL)
			break;
		r->sent[s]++;
		r->built_q[q]++;
		r->built++;
		n++;
	}
	k = rte_eth_tx_burst(wf_port[0], q, m, n);
	memmove(m, m + k, (n - k) * sizeof(*m));
	r->nb_pending[q] = n - k;
	r->total += k;
	return k;
}

/* The user's own counters of the frames A's queues took and B never handed
 * over, each where refnic counts it. */
struct wf_counted {
	struct rte_eth_stats a, b;
	uint64_t a_cable_tx_dropped, b_cable_rx_dropped, b_rx_filtered, b_rx_oversize;
	uint64_t b_rx_ring_discards;	/* B's rx_qN_ring_discards, all queues */
};

/* B's frames freed from its RX rings undelivered: -1 without the xstat. */
static int
wf_rx_ring_discards(uint64_t *sum)
{
	char name[RTE_ETH_XSTATS_NAME_SIZE];
	uint64_t v;
	uint16_t q;

	*sum = 0;
	for (q = 0; q < WF_QUEUES; q++) {
		snprintf(name, sizeof(name), "rx_q%u_ring_discards", q);
		v = test_xstat(wf_port[1], name);
		if (v == UINT64_MAX) {
			if (q == 0)
				return -1;	/* queue 0 always has it */
			break;			/* fewer queues: the ring cases */
		}
		*sum += v;
	}
	return 0;
}

static int
wf_read_counted(struct wf_counted *c)
{
	if (rte_eth_stats_get(wf_port[0], &c->a) != 0 || rte_eth_stats_get(wf_port[1], &c->b) != 0)
		return -1;
	c->a_cable_tx_dropped = test_xstat(wf_port[0], "cable_tx_dropped");
	c->b_cable_rx_dropped = test_xstat(wf_port[1], "cable_rx_dropped");
	c->b_rx_filtered = test_xstat(wf_port[1], "rx_filtered");
	c->b_rx_oversize = test_xstat(wf_port[1], "rx_oversize");
	return wf_rx_ring_discards(&c->b_rx_ring_discards);
}

/* No counter of after below before: what a rate tool sees never goes back.
 * Else the first that did, said. */
static bool
wf_counted_not_below(const struct wf_counted *after, const struct wf_counted *before)
{
	const uint64_t *x = (const uint64_t *)after, *y = (const uint64_t *)before;
	size_t w;

	RTE_BUILD_BUG_ON(sizeof(*after) % sizeof(uint64_t) != 0);
	for (w = 0; w < sizeof(*after) / sizeof(uint64_t); w++) {
		if (x[w] < y[w]) {
			printf("    the user's counter at offset %zu of struct wf_counted went back "
			       "from %" PRIu64 " to %" PRIu64 "\n", w * sizeof(uint64_t), y[w], x[w]);
			return false;
		}
	}
	return true;
}

static uint64_t
wf_counted_sum(const struct wf_counted *c)
{
	return c->a.oerrors + c->a_cable_tx_dropped + c->b.imissed + c->b.rx_nombuf +
	       c->b.ierrors + c->b_cable_rx_dropped + c->b_rx_filtered + c->b_rx_oversize +
	       c->b_rx_ring_discards;
}

/* B's device counted every frame it took: the application's, the ones a
 * bad completion threw away (ierrors) and the ones freed from its rings. */
static bool
wf_rx_adds_up(const struct wf_counted *c, uint64_t received)
{
	return c->b.ipackets == received + c->b.ierrors + c->b_rx_ring_discards;
}

/*
 * What the application does on RECOVERY_FAILED or INTR_RESET: reset the
 * port, configure it again. The counters go on across it: none of either
 * port's reads less after than before, and the frames the failed device
 * counted meanwhile are in the reads after (the run's judgement).
 */
static int
wf_reset_if_asked(unsigned int p, unsigned int *handled, struct rte_mempool *pool,
		  unsigned int *resets)
{
	static const struct rte_eth_conf conf = {
		.rxmode.mq_mode = RTE_ETH_MQ_RX_RSS,
		.rx_adv_conf.rss_conf.rss_hf = RTE_ETH_RSS_NONFRAG_IPV4_UDP,
	};
	unsigned int asked = wf_event_count(p, RTE_ETH_EVENT_RECOVERY_FAILED) +
			     wf_event_count(p, RTE_ETH_EVENT_INTR_RESET);
	struct wf_counted before, after;

	if (asked == *handled)
		return 0;
	*handled = asked;
	(*resets)++;
	if (!wf_soak)
		printf("    port %c asked for a reset: rte_eth_dev_reset()\n", p == 0 ? 'A' : 'B');
	if (wf_read_counted(&before) != 0)
		return -1;
	rte_eth_dev_stop(wf_port[p]);
	if (rte_eth_dev_reset(wf_port[p]) != 0 ||
	    test_port_setup(wf_port[p], &conf, WF_QUEUES, 0, 0, pool) != 0)
		return -1;
	if (wf_read_counted(&after) != 0 || !wf_counted_not_below(&after, &before)) {
		printf("    port %c: the user's counters went back across its reset\n",
		       p == 0 ? 'A' : 'B');
		return -1;
	}
	return 0;
}

/* What a run found, and what the soak adds up. */
struct wf_result {
	uint64_t frames, lost, counted, received;
	/* Runs where a port failed to recover (or failed stopped) and the
	 * application reset it; judged as every other run. */
	uint64_t reset_runs;
	/* The lab's view of the difference (wf_lab()). */
	int64_t tx_unsent, rx_undelivered;
	uint64_t leaked;		/* mbufs not back in the pool */
	struct witness_counts t;
	unsigned int fired[WF_NB_FAULTS];
};

/*
 * The devices' own counts, as a lab instrument reads them (not the user):
 * where the frames went that no user counter names. tx_unsent: frames A's
 * queues took that A's device never sent nor counted (oerrors); negative
 * if oerrors counts frames that went out. rx_undelivered: frames B's
 * device received (ipackets) that B's driver never handed over, beyond
 * those ierrors and rx_qN_ring_discards count.
 */
static void
wf_lab(uint64_t taken, const struct wf_counted *c, uint64_t received, struct wf_result *res,
       bool print)
{
	struct refnic_hw_stats ha, hb;
	uint64_t dev_tx = 0, dev_malformed = 0, dev_rx = 0;
	unsigned int q;

	test_hw_stats(WF_A, &ha);
	test_hw_stats(WF_B, &hb);
	for (q = 0; q < REFNIC_MAX_QUEUES; q++) {
		dev_tx += ha.q[q].tx_packets;
		dev_malformed += ha.q[q].tx_malformed;
		dev_rx += hb.q[q].rx_packets;
	}
	res->tx_unsent = (int64_t)(taken - c->a.oerrors - dev_tx + dev_malformed);
	res->rx_undelivered = (int64_t)(dev_rx - received - c->b.ierrors - c->b_rx_ring_discards);
	if (!print)
		return;
	printf("    A: queues took %" PRIu64 ", opackets %" PRIu64 " oerrors %" PRIu64
	       " cable_tx_dropped %" PRIu64 "; A's device sent %" PRIu64 " (malformed %" PRIu64
	       ")\n", taken, c->a.opackets, c->a.oerrors, c->a_cable_tx_dropped, dev_tx,
	       dev_malformed);
	printf("    B: ipackets %" PRIu64 " imissed %" PRIu64 " ierrors %" PRIu64 " rx_nombuf %"
	       PRIu64 " cable_rx_dropped %" PRIu64 " filtered %" PRIu64 " oversize %" PRIu64
	       " rx ring discards %" PRIu64 "; B's device received %" PRIu64
	       ", the application %" PRIu64 "\n",
	       c->b.ipackets, c->b.imissed, c->b.ierrors, c->b.rx_nombuf, c->b_cable_rx_dropped,
	       c->b_rx_filtered, c->b_rx_oversize, c->b_rx_ring_discards, dev_rx, received);
	printf("    uncounted by the user's counters: A's driver took and its device never "
	       "sent %" PRId64 ", B's device received and its driver never handed over %"
	       PRId64 "\n", res->tx_unsent, res->rx_undelivered);
}

/*
 * One run of frames from seed: the stream with faults, then the
 * judgement. TEST_SUCCESS with *res filled, or TEST_FAILED saying why.
 */
static int
wf_one_run(uint64_t seed, uint64_t frames, struct wf_result *res)
{
	static const struct rte_eth_conf conf = {
		.rxmode.mq_mode = RTE_ETH_MQ_RX_RSS,
		.rx_adv_conf.rss_conf.rss_hf = RTE_ETH_RSS_NONFRAG_IPV4_UDP,
	};
	struct test_pair_conf pair = {
		.name_a = WF_A, .name_b = WF_B, .conf = &conf, .nb_queues = WF_QUEUES,
		/* The missed-doorbell check on from the start, as the soak
		 * suite explains: the erratum comes and goes at run time. */
		.args_a = "profile=ideal,doorbell_check=on",
	};
	uint64_t hz = rte_get_timer_hz(), spacing = RTE_MAX(frames / WF_FAULT_SPACING_DIV, UINT64_C(2));
	uint64_t received = 0, lost = 0, turn = 0, progress_at, idle_since, got;
	unsigned int resets_handled[2] = { 0 }, resets = 0, p, e, i;
	struct wf_counted c;
	struct wf_run *r;
	int ret = TEST_FAILED;
	uint16_t q, s;

	memset(res, 0, sizeof(*res));
	r = calloc(1, sizeof(*r));
	TEST_ASSERT(r != NULL, "no memory");
	r->rng = seed | 1;
	r->target = frames;
	r->kinds = wf_kinds();
	r->next_fault = spacing / 2 + wf_rand(r, spacing);
	memset(wf_events, 0, sizeof(wf_events));
	r->pool = rte_pktmbuf_pool_create("wf_pool", WF_POOL_SIZE, 0, 0,
					  RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	r->w = witness_checker_create(WF_STREAMS, frames, WF_QUEUES);
	if (r->pool == NULL || r->w == NULL) {
		printf("    no memory for the pool or the checker\n");
		goto free_run;
	}
	pair.pool = r->pool;
	if (test_pair_setup(&pair, &wf_port[0], &wf_port[1], &r->mac_b) != 0) {
		printf("    the pair does not start\n");
		goto free_run;
	}
	for (p = 0; p < 2; p++)
		for (e = 0; e < RTE_DIM(wf_watched); e++)
			rte_eth_dev_callback_register(wf_port[p], wf_watched[e], wf_event_cb, NULL);

	/* The stream, faults firing on the way; every frame built is sent. */
	progress_at = rte_get_timer_cycles();
	while (r->built < r->target || r->nb_pending[0] != 0 || r->nb_pending[1] != 0) {
		got = 0;
		for (q = 0; q < WF_QUEUES; q++)
			got += wf_send(r, q, turn++);
		received += wf_drain(r);
		if (r->any_active && --r->left == 0)
			wf_fault_end(r);
		if (!r->any_active && r->total >= r->next_fault && r->built < r->target) {
			enum wf_fault f = wf_pick(r);

			if (f != WF_NB_FAULTS)
				wf_fault_start(r, f, wf_rand(r, 2));
			r->next_fault = r->total + spacing / 2 + wf_rand(r, spacing);
		}
		for (p = 0; p < 2; p++)
			if (!wf_recovering(p) && wf_reset_if_asked(p, &resets_handled[p],
								    r->pool, &resets) != 0) {
				printf("    port %u does not come back from its reset\n", p);
				goto out;
			}
		if (got != 0)
			progress_at = rte_get_timer_cycles();
		else if (rte_get_timer_cycles() - progress_at > 4 * TEST_WAIT_S * hz) {
			printf("    A's queues took nothing for %d s: %" PRIu64 " of %" PRIu64
			       " frames sent\n", 4 * TEST_WAIT_S, r->total, r->target);
			goto out;
		}
	}
	wf_fault_end(r);
	for (p = 0; p < 2; p++) {
		struct refnic_emu_faults none = { 0 };

		refnic_emu_set_faults(wf_emu(p), &none);
		wf_wait_recovery(p);
		if (wf_reset_if_asked(p, &resets_handled[p], r->pool, &resets) != 0) {
			printf("    port %u does not come back from its reset\n", p);
			goto out;
		}
	}
	/* The rest arrives, or is counted lost, or nothing moves for TEST_WAIT_S. */
	idle_since = rte_get_timer_cycles();
	for (;;) {
		got = wf_drain(r);
		received += got;
		if (got != 0) {
			idle_since = rte_get_timer_cycles();
			continue;
		}
		rte_delay_us_sleep(1000);
		if (wf_read_counted(&c) != 0)
			goto out;
		if (received + wf_counted_sum(&c) >= r->total ||
		    rte_get_timer_cycles() - idle_since > TEST_WAIT_S * hz)
			break;
	}
	for (s = 0; s < WF_STREAMS; s++)
		lost += witness_lost(r->w, s, r->sent[s]);
	witness_total(r->w, &res->t);
	res->frames = r->total;
	res->lost = lost;
	res->counted = wf_counted_sum(&c);
	res->received = received;
	memcpy(res->fired, r->fired, sizeof(res->fired));
	wf_lab(r->total, &c, received, res, false);
	res->reset_runs = resets != 0;
	if (res->t.duplicated != 0 || res->t.reordered != 0 || res->t.corrupted != 0 ||
	    lost != res->counted || !wf_rx_adds_up(&c, res->t.received) ||
	    r->total != r->built) {
		if (!wf_soak) {
			witness_print(r->w, r->sent, stdout);
			printf("    lost %" PRIu64 ", counted by the user's counters %" PRIu64
			       "\n", lost, res->counted);
			wf_lab(r->total, &c, received, res, true);
		}
		goto out;
	}
	ret = TEST_SUCCESS;
out:
	for (p = 0; p < 2; p++)
		for (e = 0; e < RTE_DIM(wf_watched); e++)
			rte_eth_dev_callback_unregister(wf_port[p], wf_watched[e], wf_event_cb,
							NULL);
	/* Stopped ports hold no mbuf: every one is back in the pool. */
	for (q = 0; q < WF_QUEUES; q++)
		for (i = 0; i < r->nb_pending[q]; i++)
			rte_pktmbuf_free(r->pending[q][i]);
	rte_eth_dev_stop(wf_port[0]);
	rte_eth_dev_stop(wf_port[1]);
	res->leaked = WF_POOL_SIZE - rte_mempool_avail_count(r->pool);
	if (res->leaked != 0) {
		printf("    %" PRIu64 " mbufs of %u not back in the pool\n", res->leaked,
		       WF_POOL_SIZE);
		ret = TEST_FAILED;
	}
	test_pair_teardown(&pair);
free_run:
	witness_checker_free(r->w);
	rte_mempool_free(r->pool);
	free(r);
	return ret;
}

static void
wf_print_result(const char *what, uint64_t seed, const struct wf_result *res)
{
	unsigned int f;

	printf("    %s seed %" PRIu64 ": %" PRIu64 " frames, received %" PRIu64 ", lost %" PRIu64
	       " (counted %" PRIu64 "), duplicated %" PRIu64 ", reordered %" PRIu64
	       ", corrupted %" PRIu64 "; faults:", what, seed, res->frames, res->t.received,
	       res->lost, res->counted, res->t.duplicated, res->t.reordered, res->t.corrupted);
	for (f = 0; f < WF_NB_FAULTS; f++)
		printf(" %s %u", wf_fault_names[f], res->fired[f]);
	printf("; mbufs leaked %" PRIu64 "; lost uncounted (device counts): in TX rings %" PRId64
	       ", in RX rings %" PRId64 "; runs with a port reset %" PRIu64 "\n", res->leaked,
	       res->tx_unsent, res->rx_undelivered, res->reset_runs);
}

static uint64_t
wf_env_u64(const char *name, uint64_t dflt, uint64_t min, uint64_t max)
{
	const char *env = getenv(name);
	uint64_t v = env != NULL ? strtoull(env, NULL, 0) : dflt;

	return v >= min && v <= max ? v : dflt;
}

/*
 * The CI case, or (REFNIC_WITNESS_SOAK_S) the soak: runs one after the
 * other, each from the next seed of the first, until the time is up; a
 * run that fails is said with its seed, and the soak goes on, to add up
 * what it found.
 */
static int
test_witness_under_faults(void)
{
	uint64_t first = wf_env_u64("REFNIC_WITNESS_SEED", rte_rdtsc(), 1, UINT64_MAX), seed;
	uint64_t frames = wf_env_u64("REFNIC_WITNESS_FRAMES", WF_DEFAULT_FRAMES, 1000,
				     100000000) / WF_FRAMES_DIV;
	uint64_t soak_s = wf_env_u64("REFNIC_WITNESS_SOAK_S", 0, 1, 86400);
	uint64_t hz = rte_get_timer_hz(), t0, runs = 0, failed = 0;
	struct wf_result res, sum;
	unsigned int f;

	wf_soak = soak_s != 0;
	printf("    seed %" PRIu64 " (REFNIC_WITNESS_SEED=%" PRIu64 " replays it), %" PRIu64
	       " frames a run%s\n", first, first, frames, soak_s != 0 ? ", soak" : "");
	memset(&sum, 0, sizeof(sum));
	seed = first;
	t0 = rte_get_timer_cycles();
	do {
		if (wf_one_run(seed, frames, &res) != TEST_SUCCESS) {
			printf("    run %" PRIu64 " failed: REFNIC_WITNESS_SEED=%" PRIu64
			       " REFNIC_WITNESS_FRAMES=%" PRIu64 " replays it\n", runs, seed,
			       frames * WF_FRAMES_DIV);
			failed++;
		}
		if (soak_s == 0 || getenv("REFNIC_WITNESS_VERBOSE") != NULL)
			wf_print_result("run", seed, &res);
		sum.frames += res.frames;
		sum.lost += res.lost;
		sum.counted += res.counted;
		sum.reset_runs += res.reset_runs;
		sum.tx_unsent += res.tx_unsent;
		sum.rx_undelivered += res.rx_undelivered;
		sum.leaked += res.leaked;
		sum.t.received += res.t.received;
		sum.t.duplicated += res.t.duplicated;
		sum.t.reordered += res.t.reordered;
		sum.t.corrupted += res.t.corrupted;
		for (f = 0; f < WF_NB_FAULTS; f++)
			sum.fired[f] += res.fired[f];
		runs++;
		seed = seed * UINT64_C(6364136223846793005) + UINT64_C(1442695040888963407);
	} while (rte_get_timer_cycles() - t0 < soak_s * hz);
	if (soak_s != 0) {
		printf("    soak: %" PRIu64 " runs in %.0f s, %" PRIu64 " failed\n", runs,
		       (double)(rte_get_timer_cycles() - t0) / hz, failed);
		wf_print_result("all runs from", first, &sum);
	}
	return failed == 0 ? TEST_SUCCESS : TEST_FAILED;
}

/* ---------------------------------------------- each loss path alone */

/*
 * The soak's losses, one path at a time, deterministically: frames left
 * in a ring when the port recovers or the application restarts the
 * queue, and a TX completion the device garbled after sending its frame.
 * One queue pair; WF_RING_FRAMES frames, then a marker frame sent after
 * the event: once the marker is in, every earlier frame of its stream
 * that will ever arrive has.
 */
#define WF_RING_FRAMES	64

enum wf_ring_event {
	WF_RX_QUEUE_RESTART,	/* B's frames wait in its RX ring; the queue restarts */
	WF_RX_RECOVERY,		/* ... B's device fails and the port recovers */
	WF_TX_QUEUE_RESTART,	/* A's frames wait in its TX ring; the queue restarts */
	WF_TX_RECOVERY,		/* ... A's device fails and the port recovers */
	WF_TX_BAD_COMPLETION,	/* A's frame is sent, its completion garbled */
	WF_TX_SEGS_QUEUE_RESTART, /* as WF_TX_QUEUE_RESTART, frames of WF_RING_SEGS
				   * segments: packets are counted, not segments */
	WF_RX_FAILED_RECOVERY,	/* B's frames wait in its RX ring; B's device fails
				 * and its recovery too; A sends as many again
				 * while B's device is down; the application resets B */
	WF_TX_FAILED_RECOVERY,	/* A's frames wait in its TX ring; A's device fails
				 * and its recovery too; the application resets A */
};

#define WF_RING_SEGS	3

static bool
wf_recovered(uint16_t port, uint64_t before)
{
	uint64_t deadline = rte_get_timer_cycles() + 2 * TEST_WAIT_S * rte_get_timer_hz();

	while (test_xstat(port, "recoveries") == before && rte_get_timer_cycles() < deadline)
		rte_delay_us_sleep(1000);
	return test_xstat(port, "recoveries") != before;
}

/*
 * Port p's device fails, and the resets of all three recovery attempts
 * hang: RECOVERY_FAILED, the port stays failed until rte_eth_dev_reset().
 * The fault is spent by then: the application's reset goes through, once
 * the event came (the recovery's last step, as an application waits for).
 */
static bool
wf_recovery_fails(unsigned int p)
{
	struct refnic_emu_faults hang = { .reset_fail_times = 3 };
	uint64_t deadline = rte_get_timer_cycles() + 4 * TEST_WAIT_S * rte_get_timer_hz();
	unsigned int before = wf_event_count(p, RTE_ETH_EVENT_RECOVERY_FAILED);

	rte_eth_dev_callback_register(wf_port[p], RTE_ETH_EVENT_RECOVERY_FAILED, wf_event_cb,
				      NULL);
	refnic_emu_set_faults(wf_emu(p), &hang);
	refnic_emu_inject_fatal(wf_emu(p));
	while (wf_event_count(p, RTE_ETH_EVENT_RECOVERY_FAILED) == before &&
	       rte_get_timer_cycles() < deadline)
		rte_delay_us_sleep(1000);
	rte_eth_dev_callback_unregister(wf_port[p], RTE_ETH_EVENT_RECOVERY_FAILED, wf_event_cb,
					NULL);
	if (test_xstat(wf_port[p], "recovery_failures") != 1) {
		printf("    port %c's recovery did not fail\n", p == 0 ? 'A' : 'B');
		return false;
	}
	return true;
}

/* What the application does then: stop, reset, configure, start. */
static bool
wf_reset_port(unsigned int p)
{
	rte_eth_dev_stop(wf_port[p]);
	if (rte_eth_dev_reset(wf_port[p]) != 0 ||
	    test_port_setup(wf_port[p], NULL, 1, 0, 0, NULL) != 0) {
		printf("    port %c does not come back from its reset\n", p == 0 ? 'A' : 'B');
		return false;
	}
	return true;
}

/* A port's rte_eth_stats and xstats, as a rate tool samples them. */
struct wf_sample {
	struct rte_eth_stats st;
	struct rte_eth_xstat_name *names;
	uint64_t *values;
	int n;
};

static bool
wf_sample(uint16_t port, struct wf_sample *s)
{
	memset(s, 0, sizeof(*s));
	s->n = rte_eth_xstats_get_names(port, NULL, 0);
	if (s->n <= 0 || rte_eth_stats_get(port, &s->st) != 0)
		return false;
	s->names = calloc(s->n, sizeof(*s->names));
	s->values = calloc(s->n, sizeof(*s->values));
	return s->names != NULL && s->values != NULL &&
	       rte_eth_xstats_get_names(port, s->names, s->n) == s->n &&
	       rte_eth_xstats_get_by_id(port, NULL, s->values, s->n) == s->n;
}

static void
wf_sample_free(struct wf_sample *s)
{
	free(s->names);
	free(s->values);
}

/*
 * Nothing the user counts went back from before to after: every field of
 * rte_eth_stats, every xstat of the same name (but the queues' interrupt
 * intervals, which are settings). Else what did, said.
 */
static bool
wf_sample_not_below(const struct wf_sample *after, const struct wf_sample *before,
		    const char *when)
{
	const uint64_t *x = (const uint64_t *)&after->st, *y = (const uint64_t *)&before->st;
	bool ok = true;
	size_t w;
	int i, j;

	for (w = 0; w < sizeof(after->st) / sizeof(uint64_t); w++)
		if (x[w] < y[w]) {
			printf("    %s: rte_eth_stats at offset %zu went back from %" PRIu64
			       " to %" PRIu64 "\n", when, w * sizeof(uint64_t), y[w], x[w]);
			ok = false;
		}
	for (i = 0; i < before->n; i++) {
		if (strstr(before->names[i].name, "_itr_us") != NULL)
			continue;
		for (j = 0; j < after->n; j++)
			if (strcmp(after->names[j].name, before->names[i].name) == 0)
				break;
		if (j == after->n || after->values[j] < before->values[i]) {
			printf("    %s: xstat %s went back from %" PRIu64 " to %" PRIu64 "\n",
			       when, before->names[i].name, before->values[i],
			       j == after->n ? 0 : after->values[j]);
			ok = false;
		}
	}
	return ok;
}

/* rte_eth_stats_reset() and rte_eth_xstats_reset() zero what they reset,
 * what the ports carried across a reset included. */
static bool
wf_stats_reset_zeroes(void)
{
	const uint64_t zero[sizeof(struct rte_eth_stats) / sizeof(uint64_t)] = { 0 };
	struct rte_eth_stats st;
	struct wf_counted c;
	unsigned int p;

	for (p = 0; p < 2; p++)
		if (rte_eth_stats_reset(wf_port[p]) != 0 || rte_eth_xstats_reset(wf_port[p]) != 0 ||
		    rte_eth_stats_get(wf_port[p], &st) != 0 || memcmp(&st, zero, sizeof(st)) != 0) {
			printf("    port %c: rte_eth_stats not all 0 after a stats reset: ipackets %"
			       PRIu64 " opackets %" PRIu64 " oerrors %" PRIu64 " imissed %" PRIu64
			       "\n", p == 0 ? 'A' : 'B', st.ipackets, st.opackets, st.oerrors,
			       st.imissed);
			return false;
		}
	if (wf_read_counted(&c) != 0 || wf_counted_sum(&c) != 0) {
		printf("    the loss counters are not all 0 after a stats reset\n");
		return false;
	}
	return true;
}

/* The last of sent frames, the marker, is in. */
static bool
wf_marker_in(const struct witness_checker *w, uint64_t sent)
{
	return witness_lost(w, 0, sent) == witness_lost(w, 0, sent - 1);
}

static int
wf_ring_case(enum wf_ring_event ev)
{
	struct test_pair_conf pair = {
		.name_a = WF_A, .name_b = WF_B, .args_a = "profile=ideal",
	};
	struct refnic_emu_faults bad_tx = {
		.corrupt_what = REFNIC_EMU_CORRUPT_TX, .corrupt_every = 1,
	}, none = { 0 };
	uint64_t sent = 0, received = 0, lost, counted, before, deadline, ring_lost, tx_discards;
	uint64_t rx_discards = 0;
	struct wf_sample s_before = { .n = 0 }, s_failed = { .n = 0 }, s_after = { .n = 0 };
	struct refnic_emu *emu_a, *emu_b;
	struct rte_ether_addr mac;
	struct rte_mbuf *m[WF_RING_FRAMES], *rx[TEST_BURST];
	struct witness_checker *w;
	struct witness_counts t;
	struct wf_counted c;
	uint16_t n, i, nb = ev == WF_TX_BAD_COMPLETION ? 1 : WF_RING_FRAMES;
	uint16_t segs = ev == WF_TX_SEGS_QUEUE_RESTART ? WF_RING_SEGS : 1;
	bool tx_ring = ev == WF_TX_QUEUE_RESTART || ev == WF_TX_RECOVERY ||
		       ev == WF_TX_SEGS_QUEUE_RESTART || ev == WF_TX_FAILED_RECOVERY;
	/* The port whose recovery fails and which the application resets. */
	int failing = ev == WF_RX_FAILED_RECOVERY ? 1 : ev == WF_TX_FAILED_RECOVERY ? 0 : -1;
	int ret = TEST_FAILED;

	if (getenv("REFNIC_WITNESS_SOAK_S") != NULL)
		return TEST_SKIPPED;	/* the soak is the case above, alone */
	w = witness_checker_create(1, 2 * WF_RING_FRAMES + 1, 1);
	TEST_ASSERT(w != NULL, "checker");
	if (test_pair_setup(&pair, &wf_port[0], &wf_port[1], &mac) != 0) {
		witness_checker_free(w);
		return TEST_FAILED;
	}
	emu_a = refnic_emu_lookup(WF_A);
	emu_b = refnic_emu_lookup(WF_B);
	if (tx_ring)
		refnic_emu_set_dataplane_paused(emu_a, true);	/* the frames stay in A's ring */
	if (ev == WF_TX_BAD_COMPLETION)
		refnic_emu_set_faults(emu_a, &bad_tx);
	for (i = 0; i < nb; i++) {
		m[i] = witness_frame(test_pool, &mac, 128 * segs, segs, 0, sent++);
		if (m[i] == NULL) {
			rte_pktmbuf_free_bulk(m, i);
			goto out;
		}
	}
	if (test_tx_all(wf_port[0], m, nb) != nb)
		goto out;
	switch (ev) {
	case WF_RX_QUEUE_RESTART:
	case WF_RX_RECOVERY:
	case WF_RX_FAILED_RECOVERY:
		/* In B's ring, completed, not taken yet. */
		if (test_hw_counter_wait(WF_B, offsetof(struct refnic_hw_stats, q[0].rx_packets),
					 nb) != nb)
			goto out;
		rx_discards = nb;
		if (ev == WF_RX_FAILED_RECOVERY) {
			/* Then as many again while B's device is down (its resets
			 * hang): lost there, counted by a device B's driver
			 * cannot ask until the application resets the port. */
			if (!wf_sample(wf_port[1], &s_before) || !wf_recovery_fails(1) ||
			    !wf_sample(wf_port[1], &s_failed))
				goto out;
			for (i = 0; i < nb; i++) {
				m[i] = witness_frame(test_pool, &mac, 128, 1, 0, sent++);
				if (m[i] == NULL) {
					rte_pktmbuf_free_bulk(m, i);
					goto out;
				}
			}
			if (test_tx_all(wf_port[0], m, nb) != nb ||
			    test_hw_counter_wait(WF_B, offsetof(struct refnic_hw_stats,
								cable_rx_dropped), nb) != nb)
				goto out;
			if (!wf_reset_port(1))
				goto out;
		} else if (ev == WF_RX_QUEUE_RESTART) {
			if (rte_eth_dev_rx_queue_stop(wf_port[1], 0) != 0 ||
			    rte_eth_dev_rx_queue_start(wf_port[1], 0) != 0)
				goto out;
		} else {
			before = test_xstat(wf_port[1], "recoveries");
			refnic_emu_inject_fatal(emu_b);
			if (!wf_recovered(wf_port[1], before))
				goto out;
		}
		break;
	case WF_TX_QUEUE_RESTART:
	case WF_TX_SEGS_QUEUE_RESTART:
		if (rte_eth_dev_tx_queue_stop(wf_port[0], 0) != 0 ||
		    rte_eth_dev_tx_queue_start(wf_port[0], 0) != 0)
			goto out;
		refnic_emu_set_dataplane_paused(emu_a, false);
		break;
	case WF_TX_FAILED_RECOVERY:
		if (!wf_sample(wf_port[0], &s_before) || !wf_recovery_fails(0) ||
		    !wf_sample(wf_port[0], &s_failed) || !wf_reset_port(0))
			goto out;
		refnic_emu_set_dataplane_paused(emu_a, false);
		break;
	case WF_TX_RECOVERY:
		before = test_xstat(wf_port[0], "recoveries");
		refnic_emu_inject_fatal(emu_a);
		if (!wf_recovered(wf_port[0], before))
			goto out;
		refnic_emu_set_dataplane_paused(emu_a, false);
		break;
	case WF_TX_BAD_COMPLETION:
		/* The frame goes out; A reads its completion, finds it garbled
		 * and recovers. */
		if (test_hw_counter_wait(WF_B, offsetof(struct refnic_hw_stats, q[0].rx_packets),
					 1) != 1)
			goto out;
		before = test_xstat(wf_port[0], "recoveries");
		rte_eth_tx_done_cleanup(wf_port[0], 0, 0);
		if (!wf_recovered(wf_port[0], before))
			goto out;
		refnic_emu_set_faults(emu_a, &none);
		break;
	}
	/* The marker: the last of the stream. */
	m[0] = witness_frame(test_pool, &mac, 128, 1, 0, sent++);
	if (m[0] == NULL || test_tx_all(wf_port[0], m, 1) != 1)
		goto out;
	deadline = rte_get_timer_cycles() + TEST_WAIT_S * rte_get_timer_hz();
	while (!wf_marker_in(w, sent) && rte_get_timer_cycles() < deadline) {
		n = rte_eth_rx_burst(wf_port[1], 0, rx, TEST_BURST);
		for (i = 0; i < n; i++)
			witness_check_mbuf(w, 0, rx[i]);
		rte_pktmbuf_free_bulk(rx, n);
		received += n;
	}
	if (wf_read_counted(&c) != 0)
		goto out;
	lost = witness_lost(w, 0, sent);
	counted = wf_counted_sum(&c);
	witness_total(w, &t);
	printf("    %" PRIu64 " frames and the marker: received %" PRIu64 ", lost %" PRIu64
	       ", counted by the user's counters %" PRIu64 "\n", sent - 1, received, lost, counted);
	if (!wf_marker_in(w, sent)) {
		printf("    the marker never came\n");
		goto out;
	}
	/* Each path loses its ring's frames, counted where it says; the
	 * garbled completion loses none and counts none. */
	ring_lost = ev == WF_TX_BAD_COMPLETION ? 0 : WF_RING_FRAMES;
	tx_discards = test_xstat(wf_port[0], "tx_q0_ring_discards");
	printf("    A's oerrors %" PRIu64 " (tx_q0_ring_discards %" PRIu64 "), B's "
	       "rx ring discards %" PRIu64 ", cable_rx_dropped %" PRIu64 "\n", c.a.oerrors,
	       tx_discards, c.b_rx_ring_discards, c.b_cable_rx_dropped);
	/* B's failed recovery loses its ring and what came while it was down. */
	if (ev == WF_RX_FAILED_RECOVERY)
		ring_lost += WF_RING_FRAMES;
	if (t.duplicated != 0 || t.reordered != 0 || t.corrupted != 0 || lost != counted ||
	    lost != ring_lost || !wf_rx_adds_up(&c, received) ||
	    tx_discards != (tx_ring ? WF_RING_FRAMES : 0) ||
	    c.b_rx_ring_discards != rx_discards ||
	    c.b_cable_rx_dropped != (ev == WF_RX_FAILED_RECOVERY ? WF_RING_FRAMES : 0)) {
		printf("    expected %" PRIu64 " lost, each counted once where its path says\n",
		       ring_lost);
		wf_lab(sent, &c, received, &(struct wf_result){ .frames = 0 }, true);
		goto out;
	}
	/* The failed port's counters, sampled before its failure, while it
	 * was failed and after its reset, never went back. */
	if (failing >= 0 && (!wf_sample(wf_port[failing], &s_after) ||
			     !wf_sample_not_below(&s_failed, &s_before, "while failed") ||
			     !wf_sample_not_below(&s_after, &s_failed, "after the reset")))
		goto out;
	if (failing >= 0 && !wf_stats_reset_zeroes())
		goto out;
	ret = TEST_SUCCESS;
out:
	wf_sample_free(&s_before);
	wf_sample_free(&s_failed);
	wf_sample_free(&s_after);
	refnic_emu_set_dataplane_paused(emu_a, false);
	refnic_emu_set_faults(emu_a, &none);
	refnic_emu_set_faults(emu_b, &none);
	test_pair_teardown(&pair);
	witness_checker_free(w);
	return ret;
}

static int
test_witness_rx_ring_at_queue_restart(void)
{
	return wf_ring_case(WF_RX_QUEUE_RESTART);
}

static int
test_witness_rx_ring_at_recovery(void)
{
	return wf_ring_case(WF_RX_RECOVERY);
}

static int
test_witness_tx_ring_at_queue_restart(void)
{
	return wf_ring_case(WF_TX_QUEUE_RESTART);
}

static int
test_witness_tx_ring_at_recovery(void)
{
	return wf_ring_case(WF_TX_RECOVERY);
}

static int
test_witness_bad_tx_completion_is_no_loss(void)
{
	return wf_ring_case(WF_TX_BAD_COMPLETION);
}

static int
test_witness_tx_ring_of_chains_at_queue_restart(void)
{
	return wf_ring_case(WF_TX_SEGS_QUEUE_RESTART);
}

static int
test_witness_rx_failed_recovery_then_reset(void)
{
	return wf_ring_case(WF_RX_FAILED_RECOVERY);
}

static int
test_witness_tx_failed_recovery_then_reset(void)
{
	return wf_ring_case(WF_TX_FAILED_RECOVERY);
}

const struct unit_test_suite refnic_witness_faults_suite = {
	.name = "witness_faults",
	.cases = {
		TEST_CASE(test_witness_under_faults),
		TEST_CASE(test_witness_rx_ring_at_queue_restart),
		TEST_CASE(test_witness_rx_ring_at_recovery),
		TEST_CASE(test_witness_tx_ring_at_queue_restart),
		TEST_CASE(test_witness_tx_ring_at_recovery),
		TEST_CASE(test_witness_bad_tx_completion_is_no_loss),
		TEST_CASE(test_witness_tx_ring_of_chains_at_queue_restart),
		TEST_CASE(test_witness_rx_failed_recovery_then_reset),
		TEST_CASE(test_witness_tx_failed_recovery_then_reset),
		TEST_CASES_END()
	},
};

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * The forwarding harness of the stress and soak suites (lcore_fwd.h).
 */

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ip.h>
#include <rte_launch.h>
#include <rte_udp.h>

#include "lcore_fwd.h"

struct rte_mempool *st_pool;
uint16_t st_port[2];
const char *st_name[2];
uint16_t st_nq;

struct st_lcore st_l[RTE_MAX_LCORE];
bool st_stop, st_hold, st_sending;
unsigned int st_qbase;

#define ST_ADD(x, n)	__atomic_store_n(&(x), ST_LOAD(x) + (n), __ATOMIC_RELAXED)

static const struct rte_eth_conf st_conf = {
	.rxmode = { .mq_mode = RTE_ETH_MQ_RX_RSS },
	.rx_adv_conf.rss_conf = {
		.rss_hf = RTE_ETH_RSS_IPV4 | RTE_ETH_RSS_NONFRAG_IPV4_UDP,
	},
	.intr_conf = { .lsc = 1 },
};

int
st_port_start(uint16_t port, uint16_t nq)
{
	return test_port_setup(port, &st_conf, nq, ST_RING, ST_RING, st_pool);
}

int
st_setup(const char *a, const char *b, uint16_t nq, const char *extra)
{
	char args[160];
	struct test_pair_conf c = {
		.name_a = a, .name_b = b, .args_a = args, .conf = &st_conf, .nb_queues = nq,
		.rx_ring = ST_RING, .tx_ring = ST_RING,
	};

	st_name[0] = a;
	st_name[1] = b;
	st_nq = nq;
	st_pool = rte_pktmbuf_pool_create("refnic_stress", ST_POOL_SIZE, 128, 0,
					  RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	if (st_pool == NULL)
		return TEST_FAILED;
	c.pool = st_pool;
	snprintf(args, sizeof(args), "profile=ideal,queues=%u%s", ST_MAX_Q, extra);
	if (test_pair_setup(&c, &st_port[0], &st_port[1], NULL) != 0)
		goto fail;
	if (!test_link_wait(st_port[0], RTE_ETH_LINK_UP)) {
		test_pair_teardown(&c);
		goto fail;
	}
	return TEST_SUCCESS;
fail:
	rte_mempool_free(st_pool);
	st_pool = NULL;
	return TEST_FAILED;
}

void
st_teardown(void)
{
	if (st_pool == NULL)
		return;
	test_pair_destroy(st_name[0], st_name[1]);
	rte_mempool_free(st_pool);
	st_pool = NULL;
}

/* A UDP frame of flow `seq` from lcore `idx`: RSS spreads the flows. */
static struct rte_mbuf *
st_frame(unsigned int idx, uint32_t seq)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(st_pool);
	uint16_t len = 64 + seq % 448, plen, i;
	struct rte_ether_hdr *eh;
	struct rte_ipv4_hdr *ip;
	struct rte_udp_hdr *uh;
	uint8_t *p;

	if (m == NULL)
		return NULL;
	eh = (struct rte_ether_hdr *)rte_pktmbuf_append(m, len);
	if (eh == NULL) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	memset(&eh->dst_addr, 0xff, sizeof(eh->dst_addr));
	memset(&eh->src_addr, 0x02, sizeof(eh->src_addr));
	eh->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	ip = (struct rte_ipv4_hdr *)(eh + 1);
	memset(ip, 0, sizeof(*ip));
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_UDP;
	ip->total_length = rte_cpu_to_be_16(len - sizeof(*eh));
	ip->src_addr = rte_cpu_to_be_32(RTE_IPV4(10, idx, (seq >> 8) & 0xff, seq & 0xff));
	ip->dst_addr = rte_cpu_to_be_32(RTE_IPV4(10, 200, 0, 1));
	uh = (struct rte_udp_hdr *)(ip + 1);
	uh->src_port = rte_cpu_to_be_16(1024 + (seq & 0x3ff));
	uh->dst_port = rte_cpu_to_be_16(9);
	plen = len - sizeof(*eh) - sizeof(*ip) - sizeof(*uh);
	uh->dgram_len = rte_cpu_to_be_16(plen + sizeof(*uh));
	uh->dgram_cksum = 0;
	p = (uint8_t *)(uh + 1);
	/* Payload: magic, sender, seq, then bytes derived from them. */
	p[0] = ST_MAGIC >> 8;
	p[1] = ST_MAGIC & 0xff;
	p[2] = idx;
	memcpy(p + 4, &seq, sizeof(seq));
	for (i = 8; i < plen; i++)
		p[i] = (uint8_t)(seq * 7 + i * 13 + idx);
	return m;
}

/* The sender of a frame st_frame() made, or -1 if it is not one, or garbled. */
static int
st_frame_sender(const struct rte_mbuf *m)
{
	const struct rte_ether_hdr *eh = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	const uint8_t *p = (const uint8_t *)eh + sizeof(*eh) + sizeof(struct rte_ipv4_hdr) +
			   sizeof(struct rte_udp_hdr);
	uint16_t plen, i;
	uint32_t seq;

	if (m->nb_segs != 1 || m->pkt_len < 64 || m->pkt_len != m->data_len)
		return -1;
	plen = m->pkt_len - (p - (const uint8_t *)eh);
	if (p[0] != ST_MAGIC >> 8 || p[1] != (ST_MAGIC & 0xff) || p[2] >= ST_MAX_Q * 2)
		return -1;
	memcpy(&seq, p + 4, sizeof(seq));
	if (m->pkt_len != 64 + seq % 448u)
		return -1;
	for (i = 8; i < plen; i++)
		if (p[i] != (uint8_t)(seq * 7 + i * 13 + p[2]))
			return -1;
	return p[2];
}

/*
 * One lcore's round on queue pair q: a burst from A (while it has frames
 * to send), B's arrivals sent back, A's arrivals checked and freed.
 * Returns how many frames it moved.
 */
unsigned int
st_round(struct st_lcore *l, unsigned int idx, uint16_t q, bool send)
{
	struct rte_mbuf *m[ST_BURST];
	unsigned int i, n, k, moved = 0;
	int who;

	if (send) {
		for (n = 0; n < ST_BURST; n++) {
			m[n] = st_frame(idx, l->seq + n);
			if (m[n] == NULL)
				break;
		}
		k = rte_eth_tx_burst(st_port[0], q, m, n);
		l->seq += k;
		ST_ADD(l->sent, k);
		rte_pktmbuf_free_bulk(m + k, n - k);
		moved += k;
	}
	n = rte_eth_rx_burst(st_port[1], q, m, ST_BURST);
	if (n > 0) {
		uint64_t senders = ST_LOAD(l->senders);

		for (i = 0; i < n; i++) {
			who = st_frame_sender(m[i]);
			if (who < 0)
				ST_ADD(l->bad, 1);
			else
				senders |= UINT64_C(1) << who;
		}
		__atomic_store_n(&l->senders, senders, __ATOMIC_RELAXED);
		ST_ADD(l->rx_b, n);
		k = rte_eth_tx_burst(st_port[1], q, m, n);
		ST_ADD(l->fwd, k);
		rte_pktmbuf_free_bulk(m + k, n - k);
		moved += n;
	}
	n = rte_eth_rx_burst(st_port[0], q, m, ST_BURST);
	for (i = 0; i < n; i++)
		if (st_frame_sender(m[i]) < 0)
			ST_ADD(l->bad, 1);
	ST_ADD(l->rx_a, n);
	rte_pktmbuf_free_bulk(m, n);
	return moved + n;
}

/* A round, counted: done, and idle if it moved no frame. */
static void
st_round_count(struct st_lcore *l, unsigned int idx, uint16_t q, bool send)
{
	if (st_round(l, idx, q, send) == 0)
		ST_ADD(l->idle, 1);
	else
		__atomic_store_n(&l->idle, 0, __ATOMIC_RELAXED);
	ST_ADD(l->rounds, 1);
}

/* A worker lcore: its queue pair is its index (modulo the queues). */
static int
st_worker(void *arg __rte_unused)
{
	unsigned int idx = rte_lcore_index(rte_lcore_id());
	struct st_lcore *l = &st_l[idx];
	uint16_t q = idx - st_qbase;

	if (idx < st_qbase || q >= st_nq) {
		__atomic_store_n(&l->done, true, __ATOMIC_RELEASE);
		return 0;	/* more lcores than queue pairs: this one idles */
	}
	while (!__atomic_load_n(&st_stop, __ATOMIC_ACQUIRE)) {
		if (__atomic_load_n(&st_hold, __ATOMIC_ACQUIRE)) {
			__atomic_store_n(&l->held, true, __ATOMIC_RELEASE);
			while (__atomic_load_n(&st_hold, __ATOMIC_ACQUIRE) &&
			       !__atomic_load_n(&st_stop, __ATOMIC_ACQUIRE))
				rte_pause();
			__atomic_store_n(&l->held, false, __ATOMIC_RELEASE);
			continue;
		}
		st_round_count(l, idx, q, __atomic_load_n(&st_sending, __ATOMIC_RELAXED));
	}
	__atomic_store_n(&l->done, true, __ATOMIC_RELEASE);
	return 0;
}

/*
 * Workers on every worker lcore, and their end. EAL's join
 * (rte_eal_mp_wait_lcore()) waits inside the uninstrumented librte_eal,
 * where ThreadSanitizer cannot see it: each worker's last store releases
 * its done flag, and the join acquires them, so that a stop after the
 * join is ordered after the workers' bursts.
 */
void
st_launch(void)
{
	unsigned int lcore;

	RTE_LCORE_FOREACH_WORKER(lcore)
		__atomic_store_n(&st_l[rte_lcore_index(lcore)].done, false, __ATOMIC_RELAXED);
	rte_eal_mp_remote_launch(st_worker, NULL, SKIP_MAIN);
}

void
st_join(void)
{
	unsigned int lcore;

	__atomic_store_n(&st_stop, true, __ATOMIC_RELEASE);
	rte_eal_mp_wait_lcore();
	RTE_LCORE_FOREACH_WORKER(lcore)
		while (!__atomic_load_n(&st_l[rte_lcore_index(lcore)].done, __ATOMIC_ACQUIRE))
			rte_pause();
}

/*
 * Sending stopped: wait until every forwarding lcore has finished a round
 * (a round under way may hold RX completions its TX pass has not published
 * yet, preempted: four lcores share two CPUs); then until each has done
 * ST_QUIET_ROUNDS rounds more, the last ST_QUIET_ROUNDS of them without a
 * frame. Every frame sent was published before those rounds began, so the
 * rings are empty then, however the lcores were scheduled. Bounded by
 * TEST_WAIT_S. The main lcore serves its queue pair meanwhile, if it has one.
 */
#define ST_QUIET_ROUNDS	1000

void
st_wait_quiet(bool serve)
{
	uint64_t deadline = rte_get_timer_cycles() + TEST_WAIT_S * rte_get_timer_hz();
	uint64_t since[ST_MAX_Q];
	unsigned int i;
	bool quiet;

	unsigned int phase;

	for (phase = 0; phase < 2; phase++) {
		for (i = 0; i < st_nq; i++)
			since[i] = ST_LOAD(st_l[st_qbase + i].rounds);
		do {
			if (serve)
				st_round_count(&st_l[0], 0, 0, false);
			else
				rte_delay_us_sleep(100);
			quiet = true;
			for (i = 0; i < st_nq; i++)
				quiet &= phase == 0 ?
					 ST_LOAD(st_l[st_qbase + i].rounds) - since[i] >= 2 :
					 ST_LOAD(st_l[st_qbase + i].rounds) - since[i] >=
					 ST_QUIET_ROUNDS &&
					 ST_LOAD(st_l[st_qbase + i].idle) >= ST_QUIET_ROUNDS;
		} while (!quiet && rte_get_timer_cycles() < deadline);
	}
}

void
st_sum(struct st_totals *t)
{
	unsigned int i;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < RTE_MAX_LCORE; i++) {
		/* Atomic: EAL's lcore join is not seen by ThreadSanitizer. */
		t->sent += ST_LOAD(st_l[i].sent);
		t->rx_b += ST_LOAD(st_l[i].rx_b);
		t->fwd += ST_LOAD(st_l[i].fwd);
		t->rx_a += ST_LOAD(st_l[i].rx_a);
		t->bad += ST_LOAD(st_l[i].bad);
	}
}

void
st_dir(const struct refnic_hw_stats *tx, const struct refnic_hw_stats *tx0,
       const struct refnic_hw_stats *rx, const struct refnic_hw_stats *rx0, struct st_dir *d)
{
	unsigned int q;

	memset(d, 0, sizeof(*d));
	for (q = 0; q < REFNIC_MAX_QUEUES; q++) {
		d->tx += tx->q[q].tx_packets - tx0->q[q].tx_packets;
		d->tx_malformed += tx->q[q].tx_malformed - tx0->q[q].tx_malformed;
		d->rx += rx->q[q].rx_packets - rx0->q[q].rx_packets;
		d->rx_no_buffer += rx->q[q].rx_no_buffer - rx0->q[q].rx_no_buffer;
	}
	d->cable_tx_dropped = tx->cable_tx_dropped - tx0->cable_tx_dropped;
	d->rx_filtered = rx->rx_filtered - rx0->rx_filtered;
	d->rx_oversize = rx->rx_oversize - rx0->rx_oversize;
	d->cable_rx_dropped = rx->cable_rx_dropped - rx0->cable_rx_dropped;
}

uint64_t
st_dir_drops(const struct st_dir *d)
{
	return d->cable_tx_dropped + d->rx_no_buffer + d->rx_filtered + d->rx_oversize +
	       d->cable_rx_dropped;
}

void
st_dir_print(const char *what, const struct st_dir *d)
{
	printf("    %s: device sent %" PRIu64 " = received %" PRIu64 " + dropped %" PRIu64
	       " (no buffer %" PRIu64 ", link %" PRIu64 ", not ready %" PRIu64
	       ", filtered %" PRIu64 ", oversize %" PRIu64 "); malformed %" PRIu64 "\n",
	       what, d->tx, d->rx, st_dir_drops(d), d->rx_no_buffer, d->cable_tx_dropped,
	       d->cable_rx_dropped, d->rx_filtered, d->rx_oversize, d->tx_malformed);
}

/*
 * A burst on every queue of port `from`, all received on `to` (any queue),
 * intact; single-threaded, after the workers stopped. Frames of the run
 * that arrive meanwhile (a TX queue a fault stalled, re-rung late) are
 * told apart by their sender and only counted.
 */
int
st_flows_again(uint16_t from, uint16_t to)
{
	struct rte_mbuf *m[ST_BURST];
	uint64_t deadline = rte_get_timer_cycles() + TEST_WAIT_S * rte_get_timer_hz();
	unsigned int want = 0, got = 0, bad = 0, late = 0, n, i;
	uint16_t q;
	int who;

	for (q = 0; q < st_nq; q++) {
		for (n = 0; n < ST_BURST; n++) {
			m[n] = st_frame(ST_MAX_Q + q, UINT32_C(0x10000) + q * ST_BURST + n);
			if (m[n] == NULL)
				break;
		}
		want += test_tx_all_queue(from, q, m, n);
	}
	while (got < want && rte_get_timer_cycles() < deadline) {
		for (q = 0; q < st_nq; q++) {
			n = rte_eth_rx_burst(to, q, m, ST_BURST);
			for (i = 0; i < n; i++) {
				who = st_frame_sender(m[i]);
				bad += who < 0;
				late += who >= 0 && who < ST_MAX_Q;
				got += who >= ST_MAX_Q;
			}
			rte_pktmbuf_free_bulk(m, n);
		}
	}
	if (late != 0)
		printf("    port %u to %u: %u frames of the run arrived late\n", from, to, late);
	TEST_ASSERT(want == st_nq * ST_BURST && got == want && bad == 0,
		    "traffic again, port %u to %u: %u sent of %u, %u received, %u garbled",
		    from, to, want, st_nq * ST_BURST, got, bad);
	return TEST_SUCCESS;
}

/* Ports stopped: every mbuf of the pool is back. */
int
st_mbufs_back(void)
{
	rte_eth_dev_stop(st_port[0]);
	rte_eth_dev_stop(st_port[1]);
	TEST_ASSERT_EQUAL(rte_mempool_in_use_count(st_pool), 0, "mbufs not back in the pool");
	TEST_ASSERT_EQUAL(rte_mempool_avail_count(st_pool), ST_POOL_SIZE, "mbufs available");
	return TEST_SUCCESS;
}

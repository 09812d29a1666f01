/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * The forwarding lcores: one burst function per mode, called in turn for
 * each stream of the lcore until the main lcore says stop.
 *
 * io, mac and macswap drop (free, count) what TX refuses, as testpmd does
 * without retries: holding them would stall the RX queue behind a slow peer.
 * Generated frames (txonly, --tx-first) that TX refuses are kept and offered
 * again, so that --count frames are really sent and a --tx-first burst sent
 * as a link comes up (memif) is not lost.
 *
 * With --wait intr an lcore that finds nothing to do sleeps on its RX queues'
 * interrupts, the way l3fwd-power does.
 */

#include <errno.h>
#include <string.h>

#include <rte_branch_prediction.h>
#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_epoll.h>
#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_udp.h>

#include "fwd.h"

static const char *const mode_names[FWD_MODE_COUNT] = {
	[FWD_IO] = "io",
	[FWD_MAC] = "mac",
	[FWD_MACSWAP] = "macswap",
	[FWD_TXONLY] = "txonly",
	[FWD_RXONLY] = "rxonly",
};

/* Set by the main lcore; read by the forwarding lcores between bursts. */
static int fwd_stopping;

const char *
fwd_mode_name(enum fwd_mode mode)
{
	return (unsigned int)mode < FWD_MODE_COUNT ? mode_names[mode] : NULL;
}

int
fwd_mode_parse(const char *name)
{
	int i;

	for (i = 0; i < FWD_MODE_COUNT; i++)
		if (strcmp(name, mode_names[i]) == 0)
			return i;
	return -1;
}

void
fwd_stop_all(void)
{
	__atomic_store_n(&fwd_stopping, 1, __ATOMIC_RELEASE);
}

/*
 * The headers of a generated frame (txonly, --tx-first): from the TX port's
 * address to its peer's, UDP/IPv4 from 198.18.0.1 to 198.18.0.2 (RFC 2544's
 * benchmarking range), port 9 (discard) both ways, as testpmd's txonly.
 */
static void
build_template(struct fwd_stream *s)
{
	struct rte_ether_hdr *eth = (struct rte_ether_hdr *)s->hdr;
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(eth + 1);
	struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(ip + 1);
	uint16_t l3_len = s->pkt_size - sizeof(*eth);

	memset(s->hdr, 0, sizeof(s->hdr));
	rte_ether_addr_copy(&s->eth_dst, &eth->dst_addr);
	rte_ether_addr_copy(&s->eth_src, &eth->src_addr);
	eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->total_length = rte_cpu_to_be_16(l3_len);
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_UDP;
	ip->src_addr = rte_cpu_to_be_32(RTE_IPV4(198, 18, 0, 1));
	ip->dst_addr = rte_cpu_to_be_32(RTE_IPV4(198, 18, 0, 2));
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	udp->src_port = rte_cpu_to_be_16(9);
	udp->dst_port = rte_cpu_to_be_16(9);
	udp->dgram_len = rte_cpu_to_be_16(l3_len - sizeof(*ip));
	/* A UDP checksum of 0 means none (IPv4): every frame is the same. */
}

void
fwd_stream_init(struct fwd_stream *s)
{
	const struct fwd_port *tx = &fwd_ports[s->tx_port];

	s->eth_src = tx->mac;
	s->eth_dst = tx->peer_mac;
	s->pkt_size = fwd_cfg.pkt_size;
	s->print_left = fwd_cfg.print_headers;
	s->tx_left = UINT64_MAX;
	s->nb_pending = 0;
	s->tx_dropped = 0;
	build_template(s);
}

/* Allocate and fill n generated frames; 0 or a negative errno (pool empty). */
static int
build_frames(struct fwd_stream *s, struct rte_mbuf **pkts, uint16_t n)
{
	uint16_t i;

	if (rte_pktmbuf_alloc_bulk(s->pool, pkts, n) != 0)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		uint8_t *data = rte_pktmbuf_mtod(pkts[i], uint8_t *);

		memcpy(data, s->hdr, sizeof(s->hdr));
		/* Zeroed, so that no stale bytes of earlier frames go out. */
		memset(data + sizeof(s->hdr), 0, s->pkt_size - sizeof(s->hdr));
		pkts[i]->data_len = s->pkt_size;
		pkts[i]->pkt_len = s->pkt_size;
	}
	return 0;
}

/* Like testpmd's "set verbose 1": who sent it, to whom, what, how long. */
static void
print_headers(struct fwd_stream *s, struct rte_mbuf **pkts, uint16_t n)
{
	char src[RTE_ETHER_ADDR_FMT_SIZE], dst[RTE_ETHER_ADDR_FMT_SIZE];
	const struct rte_ether_hdr *eth;
	uint16_t i;

	for (i = 0; i < n && s->print_left > 0; i++, s->print_left--) {
		if (rte_pktmbuf_data_len(pkts[i]) < sizeof(*eth)) {
			fprintf(fwd_out, "rx port %u queue %u: runt length=%u\n",
				s->rx_port, s->rx_queue, rte_pktmbuf_pkt_len(pkts[i]));
			continue;
		}
		eth = rte_pktmbuf_mtod(pkts[i], const struct rte_ether_hdr *);
		rte_ether_format_addr(src, sizeof(src), &eth->src_addr);
		rte_ether_format_addr(dst, sizeof(dst), &eth->dst_addr);
		fprintf(fwd_out, "rx port %u queue %u: src=%s dst=%s type=0x%04x length=%u\n",
			s->rx_port, s->rx_queue, src, dst, rte_be_to_cpu_16(eth->ether_type),
			rte_pktmbuf_pkt_len(pkts[i]));
	}
}

static inline uint16_t
rx_burst(struct fwd_stream *s, struct rte_mbuf **pkts)
{
	uint16_t n = rte_eth_rx_burst(s->rx_port, s->rx_queue, pkts, fwd_cfg.burst);

	if (unlikely(s->print_left > 0) && n > 0)
		print_headers(s, pkts, n);
	return n;
}

/* Send; free and count what TX did not take. */
static inline void
tx_or_drop(struct fwd_stream *s, struct rte_mbuf **pkts, uint16_t n)
{
	uint16_t sent = rte_eth_tx_burst(s->tx_port, s->tx_queue, pkts, n);

	if (unlikely(sent < n)) {
		s->tx_dropped += n - sent;
		rte_pktmbuf_free_bulk(&pkts[sent], n - sent);
	}
}

/* Offer the kept generated frames again; those TX refuses stay, oldest first. */
static void
tx_pending(struct fwd_stream *s)
{
	uint16_t sent = rte_eth_tx_burst(s->tx_port, s->tx_queue, s->pending, s->nb_pending);

	if (sent == 0)
		return;
	if (s->tx_left != UINT64_MAX)
		s->tx_left -= sent;
	s->nb_pending -= sent;
	memmove(s->pending, &s->pending[sent], s->nb_pending * sizeof(s->pending[0]));
}

/* Frames too short for an Ethernet header go out untouched. */
static inline struct rte_ether_hdr *
eth_hdr(struct rte_mbuf *m)
{
	if (unlikely(rte_pktmbuf_data_len(m) < sizeof(struct rte_ether_hdr)))
		return NULL;
	return rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
}

/* mac: the TX port's address as source, its peer's as destination. */
static inline void
rewrite_mac(const struct fwd_stream *s, struct rte_ether_hdr *eth)
{
	rte_ether_addr_copy(&s->eth_dst, &eth->dst_addr);
	rte_ether_addr_copy(&s->eth_src, &eth->src_addr);
}

static inline void
rewrite_macswap(const struct fwd_stream *s __rte_unused, struct rte_ether_hdr *eth)
{
	struct rte_ether_addr tmp;

	rte_ether_addr_copy(&eth->dst_addr, &tmp);
	rte_ether_addr_copy(&eth->src_addr, &eth->dst_addr);
	rte_ether_addr_copy(&tmp, &eth->src_addr);
}

/* Receive a burst, rewrite each frame's Ethernet header (if asked), send it on. */
static inline uint16_t
fwd_rewrite(struct fwd_stream *s,
	    void (*rewrite)(const struct fwd_stream *, struct rte_ether_hdr *))
{
	struct rte_mbuf *pkts[FWD_MAX_BURST];
	struct rte_ether_hdr *eth;
	uint16_t n, i;

	if (unlikely(s->nb_pending > 0))
		tx_pending(s);
	n = rx_burst(s, pkts);
	if (n == 0)
		return 0;
	for (i = 0; rewrite != NULL && i < n; i++) {
		eth = eth_hdr(pkts[i]);
		if (eth != NULL)
			rewrite(s, eth);
	}
	tx_or_drop(s, pkts, n);
	return n;
}

static uint16_t
fwd_io(struct fwd_stream *s)
{
	return fwd_rewrite(s, NULL);
}

static uint16_t
fwd_mac(struct fwd_stream *s)
{
	return fwd_rewrite(s, rewrite_mac);
}

static uint16_t
fwd_macswap(struct fwd_stream *s)
{
	return fwd_rewrite(s, rewrite_macswap);
}

static uint16_t
fwd_rxonly(struct fwd_stream *s)
{
	struct rte_mbuf *pkts[FWD_MAX_BURST];
	uint16_t n = rx_burst(s, pkts);

	if (n > 0)
		rte_pktmbuf_free_bulk(pkts, n);
	return n;
}

static uint16_t
fwd_txonly(struct fwd_stream *s)
{
	uint16_t want, n;

	/* Drain what arrives, as rxonly, so the port's RX never backs up. */
	n = fwd_rxonly(s);

	want = RTE_MIN((uint64_t)(fwd_cfg.burst - s->nb_pending), s->tx_left - s->nb_pending);
	if (want > 0 && build_frames(s, &s->pending[s->nb_pending], want) == 0)
		s->nb_pending += want;
	if (s->nb_pending > 0)
		tx_pending(s);
	return n + want;
}

/* Frames each moved; a stream with frames kept for TX is not idle either. */
static uint16_t (* const fwd_burst[FWD_MODE_COUNT])(struct fwd_stream *s) = {
	[FWD_IO] = fwd_io,
	[FWD_MAC] = fwd_mac,
	[FWD_MACSWAP] = fwd_macswap,
	[FWD_TXONLY] = fwd_txonly,
	[FWD_RXONLY] = fwd_rxonly,
};

/* --tx-first: one burst of generated frames starts a forwarding loop. */
static void
tx_first(struct fwd_stream *s)
{
	if (build_frames(s, s->pending, fwd_cfg.burst) != 0)
		return;
	s->nb_pending = fwd_cfg.burst;
	tx_pending(s);
}

/* Arm (or disarm) the Rx interrupts of every stream of the lcore. */
static void
intr_arm(struct fwd_lcore *lc, bool on)
{
	uint16_t i;

	for (i = 0; i < lc->nb_streams; i++) {
		const struct fwd_stream *s = lc->streams[i];

		if (on)
			rte_eth_dev_rx_intr_enable(s->rx_port, s->rx_queue);
		else
			rte_eth_dev_rx_intr_disable(s->rx_port, s->rx_queue);
	}
	lc->intr_armed = on;
}

/*
 * --wait intr, after each pass over the streams: after an idle pass, arm
 * and poll once more (a frame that came before arming raised nothing);
 * after a second idle pass, sleep until a frame or FWD_INTR_SLEEP_MS.
 */
#define FWD_INTR_SLEEP_MS	100	/* how late a sleeping lcore sees a stop */

static void
intr_idle(struct fwd_lcore *lc, bool worked)
{
	struct rte_epoll_event ev[8];

	if (worked) {
		if (lc->intr_armed)
			intr_arm(lc, false);
		return;
	}
	if (!lc->intr_armed) {
		intr_arm(lc, true);
		return;
	}
	lc->intr_waits++;
	if (rte_epoll_wait_interruptible(RTE_EPOLL_PER_THREAD, ev, RTE_DIM(ev),
					 FWD_INTR_SLEEP_MS) > 0)
		lc->intr_wakeups++;
	intr_arm(lc, false);
}

/* Put (or take) the lcore's RX queues in (out of) its own epoll set. */
static int
intr_register(struct fwd_lcore *lc, int op)
{
	uint16_t i;
	int ret;

	for (i = 0; i < lc->nb_streams; i++) {
		const struct fwd_stream *s = lc->streams[i];

		ret = rte_eth_dev_rx_intr_ctl_q(s->rx_port, s->rx_queue, RTE_EPOLL_PER_THREAD,
						op, NULL);
		if (ret != 0 && op == RTE_INTR_EVENT_ADD) {
			fprintf(stderr, "lcore %u: port %u rxq %u: no Rx interrupt: %s\n",
				lc->lcore_id, s->rx_port, s->rx_queue, rte_strerror(-ret));
			return ret;
		}
	}
	return 0;
}

int
fwd_lcore_main(void *arg)
{
	struct fwd_lcore *lc = arg;
	uint32_t work;
	uint16_t i;

	if (fwd_cfg.wait_intr && intr_register(lc, RTE_INTR_EVENT_ADD) != 0)
		return -1;
	for (i = 0; i < lc->nb_streams; i++) {
		struct fwd_stream *s = lc->streams[i];

		if (fwd_cfg.tx_first && s->mode != FWD_TXONLY && s->mode != FWD_RXONLY)
			tx_first(s);
	}
	while (!__atomic_load_n(&fwd_stopping, __ATOMIC_ACQUIRE)) {
		work = 0;
		for (i = 0; i < lc->nb_streams; i++) {
			struct fwd_stream *s = lc->streams[i];

			work += fwd_burst[s->mode](s) + s->nb_pending;
		}
		if (fwd_cfg.wait_intr)
			intr_idle(lc, work != 0);
	}
	if (fwd_cfg.wait_intr) {
		if (lc->intr_armed)
			intr_arm(lc, false);
		intr_register(lc, RTE_INTR_EVENT_DEL);
	}
	/* Built but never sent: back to the pool, so ports stop with no mbuf out. */
	for (i = 0; i < lc->nb_streams; i++) {
		struct fwd_stream *s = lc->streams[i];

		rte_pktmbuf_free_bulk(s->pending, s->nb_pending);
		s->nb_pending = 0;
	}
	return 0;
}

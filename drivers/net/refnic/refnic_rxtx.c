/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * Burst functions: the hot path.
 *
 * The rule this file exists for: one TAIL write per burst that did work,
 * never one per packet (under a hypervisor each such write is a VM exit:
 * freebsd-emulation, 2012-12-27, "[RFC] proposed 'lem' patch to improve
 * behaviour under emulation"). TX fills the descriptors of the whole burst
 * and rings once (or, on a port whose TX path is push, stores a lone
 * packet's push line, which is its doorbell: refnic_wc.c); RX refills in
 * batches of rx_free_thresh and rings once per batch.
 *
 * Completions are device-written and untrusted: the phase bit is read first,
 * then a read barrier, then the rest, and every index and length is checked
 * before it is used. A queue whose device writes garbage stops (counted as an
 * error) rather than touching memory it does not own.
 */

#include <rte_cpuflags.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_tcp.h>
#include <rte_udp.h>
#include <rte_mempool.h>
#include <rte_prefetch.h>

#include "refnic.h"
#include "refnic_rxtx.h"

struct refnic_bar *refnic_port_bar[RTE_MAX_ETHPORTS];

#define TX_FREE_BULK	64	/* mbufs returned to the pool at once */
#define TX_RECLAIM_MAX	64	/* descriptors freed per reclaim, at most */
#define TX_RECLAIM_MIN	8	/* ... and at least, if the device is done with them */

static inline bool
cpl_ready(const volatile uint8_t *phase, uint8_t expected)
{
	return (__atomic_load_n(phase, __ATOMIC_ACQUIRE) & REFNIC_PHASE_BIT) == expected;
}

/* The mbuf packet type of each completion ptype byte (refnic_rx_ptype()). */
uint32_t refnic_rx_ptype_tbl[256];

static inline uint32_t
refnic_rx_ptype(uint8_t hw_ptype)
{
	uint32_t ptype = RTE_PTYPE_L2_ETHER;

	switch (hw_ptype & REFNIC_PTYPE_L3_MASK) {
	case REFNIC_PTYPE_IPV4:
		ptype |= RTE_PTYPE_L3_IPV4_EXT_UNKNOWN;
		break;
	case REFNIC_PTYPE_IPV6:
		ptype |= RTE_PTYPE_L3_IPV6_EXT_UNKNOWN;
		break;
	default:
		return ptype;
	}
	switch (hw_ptype & REFNIC_PTYPE_L4_MASK) {
	case REFNIC_PTYPE_TCP:
		ptype |= RTE_PTYPE_L4_TCP;
		break;
	case REFNIC_PTYPE_UDP:
		ptype |= RTE_PTYPE_L4_UDP;
		break;
	}
	return ptype;
}

#define REFNIC_RXC_OFFLOAD_FLAGS	(REFNIC_RXC_RSS_VALID | REFNIC_RXC_IP_CSUM_GOOD | \
					 REFNIC_RXC_IP_CSUM_BAD | REFNIC_RXC_L4_CSUM_GOOD | \
					 REFNIC_RXC_L4_CSUM_BAD | REFNIC_RXC_VLAN_STRIPPED | \
					 REFNIC_RXC_FLOW_MARK | REFNIC_RXC_TSTAMP | REFNIC_RXC_PTP)

/*
 * The arrival stamp of the frame completed at slot idx (REFNIC_RXC_TSTAMP),
 * written before the completion's phase byte, read after it; and a PTP
 * frame (REFNIC_RXC_PTP) for ptpclient and the like. One latch: index 0.
 */
static inline void
refnic_rx_tstamp(const struct refnic_rx_queue *rxq, uint16_t idx, uint16_t f,
		 struct rte_mbuf *m)
{
	if ((f & REFNIC_RXC_TSTAMP) && rxq->stamps != NULL) {
		*RTE_MBUF_DYNFIELD(m, rxq->ts_offset, rte_mbuf_timestamp_t *) = rxq->stamps[idx];
		m->ol_flags |= rxq->ts_flag;
	}
	if (f & REFNIC_RXC_PTP) {
		m->ol_flags |= RTE_MBUF_F_RX_IEEE1588_PTP;
		m->timesync = 0;
	}
}

/* What the device found out about a frame, in the mbuf's terms. */
static inline void
refnic_rx_offload_flags(const struct refnic_rx_queue *rxq, const struct refnic_rx_cpl *cpl,
			uint16_t f, struct rte_mbuf *m)
{
	if ((f & REFNIC_RXC_RSS_VALID) && (rxq->offloads & RTE_ETH_RX_OFFLOAD_RSS_HASH)) {
		m->hash.rss = cpl->rss_hash;
		m->ol_flags |= RTE_MBUF_F_RX_RSS_HASH;
	}
	if (f & REFNIC_RXC_IP_CSUM_GOOD)
		m->ol_flags |= RTE_MBUF_F_RX_IP_CKSUM_GOOD;
	else if (f & REFNIC_RXC_IP_CSUM_BAD)
		m->ol_flags |= RTE_MBUF_F_RX_IP_CKSUM_BAD;
	if (f & REFNIC_RXC_L4_CSUM_GOOD)
		m->ol_flags |= RTE_MBUF_F_RX_L4_CKSUM_GOOD;
	else if (f & REFNIC_RXC_L4_CSUM_BAD)
		m->ol_flags |= RTE_MBUF_F_RX_L4_CKSUM_BAD;
	if (f & REFNIC_RXC_VLAN_STRIPPED) {
		m->vlan_tci = cpl->vlan_tci;
		m->ol_flags |= RTE_MBUF_F_RX_VLAN | RTE_MBUF_F_RX_VLAN_STRIPPED;
	}
	refnic_rx_flow_mark(cpl, f, m);
}

RTE_INIT(refnic_rx_ptype_tbl_init)
{
	unsigned int i;

	for (i = 0; i < RTE_DIM(refnic_rx_ptype_tbl); i++)
		refnic_rx_ptype_tbl[i] = refnic_rx_ptype(i);
}

/*
 * The ol_flags of each combination of completion flags, for this queue's
 * offloads, as refnic_rx_offload_flags() sets them: the vector burst looks
 * them up (REFNIC_RX_OL_INDEX()).
 */
void
refnic_rx_ol_flags_tbl_init(struct refnic_rx_queue *rxq)
{
	unsigned int i;

	for (i = 0; i < RTE_DIM(rxq->ol_flags_tbl); i++) {
		struct refnic_rx_cpl cpl = { .flags = i << REFNIC_RX_OL_SHIFT };
		struct rte_mbuf m = { .ol_flags = 0 };

		refnic_rx_offload_flags(rxq, &cpl, cpl.flags, &m);
		rxq->ol_flags_tbl[i] = m.ol_flags;
	}
}

/*
 * What a received mbuf's rearm_data holds (data_off, refcnt 1, one segment,
 * port), written in one store at receive time. Buffers are posted raw from
 * the pool, not reset: a pool's mbufs already have next NULL and one
 * segment, and resetting them at refill touched their second cache line,
 * a third of the refill's cost.
 */
uint64_t
refnic_rx_mbuf_initializer(uint16_t port_id)
{
	struct rte_mbuf mb = { .buf_addr = NULL };
	uint64_t rearm;

	mb.nb_segs = 1;
	mb.data_off = RTE_PKTMBUF_HEADROOM;
	mb.port = port_id;
	rte_mbuf_refcnt_set(&mb, 1);
	/* Copied, not read through a uint64_t pointer: the fields were stored
	 * as themselves, and clang -O2 (strict aliasing) read the load from
	 * the initializer's zeros, so every frame arrived with data_off 0. */
	memcpy(&rearm, RTE_PTR_ADD(&mb, offsetof(struct rte_mbuf, rearm_data)), sizeof(rearm));
	return rearm;
}

static void
pool_chunk_iova_check(struct rte_mempool *mp __rte_unused, void *opaque,
		      struct rte_mempool_memhdr *memhdr, unsigned int idx __rte_unused)
{
	bool *iova_is_va = opaque;

	if (memhdr->iova != (rte_iova_t)(uintptr_t)memhdr->addr)
		*iova_is_va = false;
}

/*
 * Where an mbuf of mp keeps its data, as an offset from the mbuf, when its
 * IOVA is its address: IOVA as VA, and every chunk of the pool mapped so.
 * rte_pktmbuf_init() puts buf_addr right after the mbuf and its private
 * area, and buf_iova at the same place in IOVA terms. Then a refill needs
 * no look at the mbuf, whose line the lcore last touched long ago (the
 * load missed in 6 in 10 refill samples). 0: read buf_iova (IOVA as PA,
 * pinned external buffers, a chunk mapped elsewhere).
 */
uint32_t
refnic_rx_buf_offset(struct rte_mempool *mp)
{
	bool iova_is_va = rte_eal_iova_mode() == RTE_IOVA_VA &&
			  !(rte_pktmbuf_priv_flags(mp) & RTE_PKTMBUF_POOL_F_PINNED_EXT_BUF);

	if (iova_is_va)
		rte_mempool_mem_iter(mp, pool_chunk_iova_check, &iova_is_va);
	return iova_is_va ? sizeof(struct rte_mbuf) + rte_pktmbuf_priv_size(mp) +
			    RTE_PKTMBUF_HEADROOM : 0;
}

static_assert(offsetof(struct refnic_rx_desc, buf_len) == 8 &&
	      sizeof(struct refnic_rx_desc) == 16, "buf_len and rsvd: the second 8 bytes");

/* Post n buffers from sw_ring position tail on; they are already allocated. */
static inline void
rx_post(struct refnic_rx_queue *rxq, uint16_t tail, uint16_t n)
{
	/* In locals: the descriptor stores could alias the queue's fields,
	 * which the compiler then reloaded for every buffer. */
	struct rte_mbuf **sw = &rxq->sw_ring[tail];
	struct refnic_rx_desc *d = &rxq->ring[tail];
	uint32_t off = rxq->buf_offset;
	/* buf_len and rsvd, whose last byte is a written-back completion's
	 * done bit, in one store (field by field they took four). */
	uint64_t len_word = rxq->buf_size;
	uint16_t i;

	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = sw[i];

		d[i].addr = likely(off != 0) ? (uintptr_t)m + off :
			    rte_mbuf_iova_get(m) + RTE_PKTMBUF_HEADROOM;
		memcpy(RTE_PTR_ADD(&d[i], offsetof(struct refnic_rx_desc, buf_len)), &len_word,
		       sizeof(len_word));
	}
}

/*
 * Refill every free slot (one stays empty so full and empty differ) once at
 * least free_thresh are free, then write TAIL once. Returns buffers posted.
 */
uint16_t
refnic_rx_refill(struct refnic_rx_queue *rxq)
{
	uint16_t posted = (rxq->tail - rxq->next) & rxq->mask;
	uint16_t want = rxq->mask - posted, done = 0;

	if (want < rxq->free_thresh)
		return 0;
	while (done < want) {
		/* Allocate straight into the ring, one contiguous run at a time. */
		uint16_t run = RTE_MIN(want - done, rxq->size - rxq->tail);

		if (rte_mempool_get_bulk(rxq->mp, (void **)&rxq->sw_ring[rxq->tail], run) != 0) {
			REFNIC_STAT_ADD(rxq->stats.nombuf, run);
			break;
		}
		rx_post(rxq, rxq->tail, run);
		/* Whole, for the doorbell check on another thread. */
		__atomic_store_n(&rxq->tail, (rxq->tail + run) & rxq->mask, __ATOMIC_RELAXED);
		done += run;
	}
	if (done != 0)
		refnic_reg_write(refnic_queue_bar(rxq->port_id), rxq->tail_reg, rxq->tail);
	return done;
}

static void
rx_bad_completion(struct refnic_rx_queue *rxq, uint16_t desc_idx, uint16_t len)
{
	/* Release: the doorbell check reads it (acquire) from a control thread. */
	__atomic_store_n(&rxq->broken, true, __ATOMIC_RELEASE);
	REFNIC_STAT_ADD(rxq->stats.errors, 1);
	PMD_DRV_LOG(ERR, "port %u RX queue %u: bad completion (descriptor %u, expected %u, "
		    "length %u) - queue stopped", rxq->port_id, rxq->qid,
		    desc_idx, rxq->next, len);
	refnic_queue_failed(refnic_adapter(&rte_eth_devices[rxq->port_id]),
			    "bad RX completion");
}

/*
 * The completions ready at rxq->next, one at a time, into at most nb_pkts
 * frames; no refill. Every case goes through here: scattered frames, bad
 * completions, and what the vector burst leaves (refnic_rxtx_vec.c).
 */
uint16_t
refnic_rx_scalar(struct refnic_rx_queue *rxq, struct rte_mbuf **pkts, uint16_t nb_pkts)
{
	struct rte_mbuf *first = rxq->pkt_first, *last = rxq->pkt_last;
	uint16_t next = rxq->next, tail = rxq->tail, nb_rx = 0;
	uint8_t phase = rxq->phase;
	uint64_t bytes = 0;

	/* Nothing is read at or past the tail, in either format: a completion
	 * there completes no buffer, and written back, a slot not posted again
	 * still holds its last lap's completion. */
	while (nb_rx < nb_pkts && next != tail) {
		const struct refnic_rx_cpl *cpl = &rxq->cq[next];
		uint16_t len, flags, desc_idx;
		struct rte_mbuf *m;

		if (!cpl_ready(&cpl->phase, phase))
			break;
		rte_io_rmb();
		/* Each field the device wrote is read once: what is checked is used. */
		len = cpl->len;
		flags = cpl->flags;
		desc_idx = cpl->desc_idx;
		if (unlikely(desc_idx != next || len == 0 || len > rxq->buf_size)) {
			rx_bad_completion(rxq, desc_idx, len);
			break;
		}
		/* A frame longer than any the device may send, or in pieces on a
		 * queue that is not scattered (rxq->scatter), is a device bug:
		 * stop rather than chain on. */
		if (unlikely((!(flags & REFNIC_RXC_EOP) &&
			      !__atomic_load_n(&rxq->scatter, __ATOMIC_ACQUIRE)) ||
			     (first != NULL && first->pkt_len + len > REFNIC_MAX_FRAME_LEN))) {
			rx_bad_completion(rxq, desc_idx, len);
			break;
		}
		m = rxq->sw_ring[next];
		rxq->sw_ring[next] = NULL;
		next = (next + 1) & rxq->mask;
		if (next == 0)
			phase ^= rxq->lap_flip;
		rte_prefetch0(&rxq->cq[next]);
		/* A few ahead: untouched since posted (NULL past the tail). */
		rte_prefetch0_write(rxq->sw_ring[(next + 3) & rxq->mask]);

		/* Posted raw: the fields a reset would set, set now. */
		*(uint64_t *)RTE_PTR_ADD(m, offsetof(struct rte_mbuf, rearm_data)) =
			rxq->mbuf_initializer;
		m->ol_flags = 0;
		m->data_len = len;
		if (first == NULL) {
			first = m;
			first->pkt_len = len;
		} else {
			last->next = m;
			first->pkt_len += len;
			first->nb_segs++;
		}
		last = m;
		if (!(flags & REFNIC_RXC_EOP))
			continue;
		first->packet_type = refnic_rx_ptype_tbl[cpl->ptype] &
				     __atomic_load_n(&rxq->ptype_mask, __ATOMIC_RELAXED);
		if (flags & REFNIC_RXC_OFFLOAD_FLAGS) {
			refnic_rx_offload_flags(rxq, cpl, flags, first);
			if (unlikely(flags & (REFNIC_RXC_TSTAMP | REFNIC_RXC_PTP)))
				refnic_rx_tstamp(rxq, desc_idx, flags, first);
		}
		bytes += first->pkt_len;
		pkts[nb_rx++] = first;
		first = NULL;
	}
	/* Read by the doorbell check on another thread: stored whole. */
	__atomic_store_n(&rxq->next, next, __ATOMIC_RELAXED);
	__atomic_store_n(&rxq->phase, phase, __ATOMIC_RELAXED);
	rxq->pkt_first = first;
	rxq->pkt_last = last;
	REFNIC_STAT_ADD(rxq->stats.packets, nb_rx);
	REFNIC_STAT_ADD(rxq->stats.bytes, bytes);
	return nb_rx;
}

uint16_t
refnic_recv_pkts(void *queue, struct rte_mbuf **pkts, uint16_t nb_pkts)
{
	struct refnic_rx_queue *rxq = queue;
	uint16_t nb_rx;

	/* A stopped queue is gone from the device: no refill, no TAIL write. */
	if (unlikely(!refnic_burst_enter(&rxq->in_burst, &rxq->started, &rxq->broken,
					&rxq->held)))
		return 0;
	nb_rx = refnic_rx_scalar(rxq, pkts, nb_pkts);
	refnic_rx_refill_due(rxq);
	refnic_burst_leave(&rxq->in_burst);
	return nb_rx;
}

static inline void
tx_free_bulk(struct rte_mbuf **mbufs, unsigned int n)
{
	if (n != 0)
		rte_mempool_put_bulk(mbufs[0]->pool, (void **)mbufs, n);
}

/*
 * Fast free with no chain among them: the mbufs go back to their queue's one
 * pool (the application's promise) straight from sw_ring; only the first is
 * read, for that pool.
 */
static void
tx_free_range_untouched(struct refnic_tx_queue *txq, uint16_t head)
{
	struct rte_mempool *mp = txq->fast_pool;
	uint16_t i = txq->clean;

	/* The oldest mbuf's header is long out of cache by now: reading its
	 * pool was most of what reclaiming a lone packet's slot cost. */
	if (unlikely(mp == NULL))
		mp = txq->fast_pool = txq->sw_ring[i]->pool;

	while (i != head) {
		uint16_t run = (head > i ? head : txq->size) - i;

		rte_mempool_put_bulk(mp, (void **)&txq->sw_ring[i], run);
		memset(&txq->sw_ring[i], 0, run * sizeof(txq->sw_ring[0]));
		i = (i + run) & txq->mask;
	}
}

/* Give back the mbufs of descriptors [clean, head). */
void
refnic_tx_free_range(struct refnic_tx_queue *txq, uint16_t head)
{
	bool fast = txq->offloads & RTE_ETH_TX_OFFLOAD_MBUF_FAST_FREE;
	uint16_t i = txq->clean, n = (head - txq->clean) & txq->mask;
	struct rte_mbuf **sw = txq->sw_ring;
	struct rte_mbuf *bulk[TX_FREE_BULK];
	struct rte_mempool *mp = NULL;	/* bulk's pool */
	unsigned int nb_bulk = 0;

	if (n == 0)
		return;
	if (fast && txq->slow_free_left == 0) {
		tx_free_range_untouched(txq, head);
		goto done;
	}
	txq->slow_free_left -= RTE_MIN(txq->slow_free_left, n);
	while (i != head) {
		/* A run without the ring's wrap in it: no mask per mbuf. */
		uint16_t end = head > i ? head : txq->size;

		for (; i != end; i++) {
			struct rte_mbuf *m = sw[i];

			if (unlikely(m == NULL))
				continue;	/* a TSO context descriptor */
			sw[i] = NULL;
			if (!fast) {
				/* Last reference gone (and detached): back to the
				 * pool in bulk. */
				m = rte_pktmbuf_prefree_seg(m);
				if (m == NULL)
					continue;
			} else if (m->next != NULL || m->nb_segs != 1) {
				/* Fast free: one pool, refcnt 1, direct mbufs, as
				 * the app promised; a pool takes back only
				 * unchained mbufs. */
				m->next = NULL;
				m->nb_segs = 1;
			}
			if (unlikely(m->pool != mp || nb_bulk == TX_FREE_BULK)) {
				tx_free_bulk(bulk, nb_bulk);
				nb_bulk = 0;
				mp = m->pool;
			}
			bulk[nb_bulk++] = m;
		}
		i &= txq->mask;
	}
	tx_free_bulk(bulk, nb_bulk);
done:
	txq->nb_free += n;
	txq->clean = head;
}

/*
 * Scan new TX completions: returns the newest head the device reported (all
 * descriptors before it are done). With consume, the completions are used
 * up; without, this only looks (descriptor status).
 */
static uint16_t
tx_scan(struct refnic_tx_queue *txq, bool consume)
{
	uint16_t cq_head = txq->cq_head, head, bad_head;
	uint8_t phase = txq->phase;
	bool bad;

	head = refnic_tx_cpl_walk(txq, txq->hw_head, txq->tail, &cq_head, &phase, &bad,
				  &bad_head);
	if (!consume)
		return head;
	if (unlikely(bad)) {
		/* Not an error of a frame's: the frames went out. The queue's
		 * failure is counted (queue_errors) by refnic_queue_failed(). */
		__atomic_store_n(&txq->broken, true, __ATOMIC_RELEASE);	/* as RX's */
		PMD_DRV_LOG(ERR, "port %u TX queue %u: completion head %u outside [%u, %u] - "
			    "queue stopped", txq->port_id, txq->qid, bad_head, head, txq->tail);
		refnic_queue_failed(refnic_adapter(&rte_eth_devices[txq->port_id]),
				    "bad TX completion");
	}
	/* Read by the doorbell check on another thread: stored whole. */
	__atomic_store_n(&txq->cq_head, cq_head, __ATOMIC_RELAXED);
	__atomic_store_n(&txq->phase, phase, __ATOMIC_RELAXED);
	__atomic_store_n(&txq->hw_head, head, __ATOMIC_RELAXED);
	return head;
}

/*
 * Read TX completions and free what the device is done with: up to twice
 * what the burst needs (want), at least TX_RECLAIM_MIN and at most
 * TX_RECLAIM_MAX descriptors. Freeing more puts many bursts' work on one: a
 * lone packet that reclaimed 64 slots took ~250 cycles more every 64th round
 * trip, which was refnic-pingpong's p99; most of a ring at once cost one
 * unlucky burst ~10 us (its p99.9). Twice, not once: a burst of 32 frees 64
 * every other burst, which costs fewer instructions than 32 in each.
 */
void
refnic_tx_reclaim(struct refnic_tx_queue *txq, uint16_t want)
{
	uint16_t head = tx_scan(txq, true);
	uint16_t max = RTE_MIN(RTE_MAX(2 * want, TX_RECLAIM_MIN), TX_RECLAIM_MAX);

	if (((head - txq->clean) & txq->mask) > max)
		head = (txq->clean + max) & txq->mask;
	if (head != txq->clean)
		refnic_tx_free_range(txq, head);
}

/* Free up to free_cnt packets (0: all) the device is done with; returns packets. */
int
refnic_tx_done_cleanup(void *queue, uint32_t free_cnt)
{
	struct refnic_tx_queue *txq = queue;
	uint16_t head, upto;
	uint32_t pkts = 0;

	/* ethdev 22.11 passes a queue a failed rte_eth_dev_reset() released. */
	if (txq == NULL)
		return -EINVAL;
	if (!txq->started)
		return 0;
	head = tx_scan(txq, true);
	for (upto = txq->clean; upto != head && (free_cnt == 0 || pkts < free_cnt);
	     upto = (upto + 1) & txq->mask)
		if (txq->sw_ring[upto] != NULL &&	/* not a TSO context */
		    txq->sw_ring[upto]->next == NULL)	/* a packet's last segment */
			pkts++;
	if (upto != txq->clean)
		refnic_tx_free_range(txq, upto);
	return pkts;
}

/* Offset 0 is where the next packet goes; the oldest descriptors wrap after. */
int
refnic_tx_descriptor_status(void *queue, uint16_t offset)
{
	struct refnic_tx_queue *txq = queue;
	uint16_t done, used, pos;

	if (offset >= txq->size)
		return -EINVAL;
	if (!txq->started)
		return RTE_ETH_TX_DESC_UNAVAIL;
	done = (tx_scan(txq, false) - txq->clean) & txq->mask;
	used = (txq->tail - txq->clean) & txq->mask;
	pos = (txq->tail + offset - txq->clean) & txq->mask;

	if (pos >= done && pos < used)
		return RTE_ETH_TX_DESC_FULL;	/* handed to the device, not done */
	return RTE_ETH_TX_DESC_DONE;		/* done, or free */
}

/* Has the device completed the posted descriptor at offset from next? */
static inline bool
rx_offset_done(const struct refnic_rx_queue *rxq, uint16_t offset)
{
	uint8_t phase = rxq->phase;

	if (rxq->next + offset >= rxq->size)
		phase ^= rxq->lap_flip;	/* past the ring's end: next lap */
	return cpl_ready(&rxq->cq[(rxq->next + offset) & rxq->mask].phase, phase);
}

/* Offset 0 is the next descriptor the application would receive. */
int
refnic_rx_descriptor_status(void *queue, uint16_t offset)
{
	struct refnic_rx_queue *rxq = queue;

	if (offset >= rxq->size)
		return -EINVAL;
	if (!rxq->started || offset >= ((rxq->tail - rxq->next) & rxq->mask))
		return RTE_ETH_RX_DESC_UNAVAIL;	/* not posted */
	return rx_offset_done(rxq, offset) ? RTE_ETH_RX_DESC_DONE : RTE_ETH_RX_DESC_AVAIL;
}

REFNIC_RX_QUEUE_COUNT_RET
refnic_rx_queue_count(void *queue)
{
	struct refnic_rx_queue *rxq = queue;
	uint16_t posted = (rxq->tail - rxq->next) & rxq->mask;
	uint32_t n = 0;

	if (!rxq->started)
		return 0;
	while (n < posted && rx_offset_done(rxq, n))
		n++;
	return n;
}

/*
 * Frames the device completed into the ring that the application has not
 * received: what freeing the ring discards. The device counts a frame
 * (rx_packets) once all its buffers are written, so a frame counts here by
 * its last completion (EOP), and a frame begun in pkt_first by the rest of
 * it, still in the ring. On a queue stopped by a bad completion, the frame
 * at next is the one rx_bad_completion() counted in ierrors: not again. A
 * queue that does not scatter takes each completion for a frame (a garbled
 * one may have lost its EOP); one that does reads its frame to its EOP.
 * For the control thread that frees the ring, bursts kept out.
 */
uint16_t
refnic_rx_undelivered(const struct refnic_rx_queue *rxq)
{
	uint16_t posted = (rxq->tail - rxq->next) & rxq->mask, n = 0, frames = 0;
	bool in_bad = __atomic_load_n(&rxq->broken, __ATOMIC_ACQUIRE);

	if (in_bad && posted != 0 && rx_offset_done(rxq, 0)) {
		bool eop = !rxq->scatter || (rxq->cq[rxq->next].flags & REFNIC_RXC_EOP);

		for (n = 1; !eop && n < posted && rx_offset_done(rxq, n); n++)
			eop = rxq->cq[(rxq->next + n) & rxq->mask].flags & REFNIC_RXC_EOP;
	}
	for (; n < posted && rx_offset_done(rxq, n); n++)
		if (!rxq->scatter || (rxq->cq[(rxq->next + n) & rxq->mask].flags & REFNIC_RXC_EOP))
			frames++;
	return frames;
}

/*
 * The device's done point for freeing the ring: the newest completion's
 * head. Unlike the burst's walk (refnic_tx_cpl_walk), this one reads on
 * past a garbled completion, to later ones that say where the device got.
 * If the newest is garbled, the device reported a pass it finished but not
 * where it ended: it is taken at its word for all it was given (a garbled
 * completion is not a lost frame), the one guess this count makes.
 */
static uint16_t
tx_done_point(const struct refnic_tx_queue *txq)
{
	uint16_t cq = txq->cq_head, head = txq->hw_head, sq_head, n;
	uint8_t ph = txq->phase;
	bool newest_bad = false;

	for (n = 0; n < txq->size; n++) {
		const volatile struct refnic_tx_cpl *cpl = &txq->cq[cq];

		if ((__atomic_load_n(&cpl->phase, __ATOMIC_ACQUIRE) & REFNIC_PHASE_BIT) != ph)
			break;
		rte_io_rmb();
		sq_head = cpl->sq_head;
		newest_bad = !refnic_tx_cpl_head_ok(txq, head, txq->tail, sq_head);
		if (!newest_bad)
			head = sq_head;
		cq = (cq + 1) & txq->mask;
		if (cq == 0)
			ph ^= REFNIC_PHASE_BIT;
	}
	return newest_bad ? txq->tail : head;
}

/*
 * Packets tx_burst took that the device never sent: what freeing the ring
 * discards. Counted by their last segment (sw_ring holds segments; a TSO
 * context descriptor holds none). For the control thread that frees the
 * ring, bursts kept out.
 */
uint16_t
refnic_tx_unsent(const struct refnic_tx_queue *txq)
{
	uint16_t i, pkts = 0;

	for (i = tx_done_point(txq); i != txq->tail; i = (i + 1) & txq->mask)
		if (txq->sw_ring[i] != NULL && txq->sw_ring[i]->next == NULL)
			pkts++;
	return pkts;
}

/* Sleep on (power library, monitor mode) while the next completion's phase
 * bit is not the one a new completion carries. */
static int
refnic_monitor_ready(const uint64_t value, const uint64_t opaque[RTE_POWER_MONITOR_OPAQUE_SZ])
{
	return (value & REFNIC_PHASE_BIT) == opaque[0] ? -1 : 0;
}

int
refnic_get_monitor_addr(void *queue, struct rte_power_monitor_cond *pmc)
{
	struct refnic_rx_queue *rxq = queue;

	pmc->addr = &rxq->cq[rxq->next].phase;
	pmc->size = sizeof(rxq->cq[0].phase);
	pmc->fn = refnic_monitor_ready;
	pmc->opaque[0] = rxq->phase;
	return 0;
}

#define REFNIC_TX_OFFLOAD_MASK	(RTE_MBUF_F_TX_IP_CKSUM | RTE_MBUF_F_TX_L4_MASK | \
				 RTE_MBUF_F_TX_VLAN | RTE_MBUF_F_TX_TCP_SEG | \
				 RTE_MBUF_F_TX_IEEE1588_TMST)

/* The packet's offloads, as its first descriptor carries them. */
static inline void
refnic_tx_offload_desc(const struct rte_mbuf *m, struct refnic_tx_desc *d)
{
	uint64_t ol = m->ol_flags;

	d->flags = 0;
	d->vlan_tci = 0;
	d->hdr_lens = 0;
	if (likely(!(ol & REFNIC_TX_OFFLOAD_MASK)))
		return;
	if (ol & RTE_MBUF_F_TX_TCP_SEG) {
		d->flags |= REFNIC_TXD_TSO;	/* each frame's checksums too */
	} else {
		if (ol & RTE_MBUF_F_TX_IP_CKSUM)
			d->flags |= REFNIC_TXD_IP_CSUM;
		if ((ol & RTE_MBUF_F_TX_L4_MASK) == RTE_MBUF_F_TX_TCP_CKSUM)
			d->flags |= REFNIC_TXD_L4_CSUM_TCP;
		else if ((ol & RTE_MBUF_F_TX_L4_MASK) == RTE_MBUF_F_TX_UDP_CKSUM)
			d->flags |= REFNIC_TXD_L4_CSUM_UDP;
	}
	if (ol & RTE_MBUF_F_TX_VLAN) {
		d->flags |= REFNIC_TXD_VLAN_INSERT;
		d->vlan_tci = m->vlan_tci;
	}
	/* IEEE 1588: the device latches the time it leaves (timesync on). */
	if (ol & RTE_MBUF_F_TX_IEEE1588_TMST)
		d->flags |= REFNIC_TXD_TSTAMP;
	d->hdr_lens = m->l2_len | m->l3_len << REFNIC_TXD_L3_LEN_SHIFT;
}

/* Frames the device cuts a TSO packet into (refnic_hw.h). */
static inline uint32_t
refnic_tso_frames(const struct rte_mbuf *m)
{
	uint32_t hdr = m->l2_len + m->l3_len + m->l4_len;
	uint32_t payload = m->pkt_len > hdr ? m->pkt_len - hdr : 0;

	return payload == 0 || m->tso_segsz == 0 ? 1 :
	       (payload + m->tso_segsz - 1) / m->tso_segsz;
}

/* A TSO packet's context descriptor at tail; no mbuf behind it. */
static inline void
refnic_tx_ctx(struct refnic_tx_queue *txq, const struct rte_mbuf *m, uint16_t tail)
{
	struct refnic_tx_ctx_desc *c = (struct refnic_tx_ctx_desc *)&txq->ring[tail];

	c->mss = m->tso_segsz;
	c->l4_len = m->l4_len;
	c->rsvd0 = 0;
	c->rsvd1 = 0;
	c->rsvd2 = 0;
	c->flags = REFNIC_TXD_CTX;
	c->rsvd3 = 0;
	txq->sw_ring[tail] = NULL;
	/* Fast free puts sw_ring in bulk: not with this hole in it. */
	txq->slow_free_left = txq->size;
	REFNIC_STAT_ADD(txq->stats.tso, 1);
	REFNIC_STAT_ADD(txq->stats.tso_segs, refnic_tso_frames(m));
}

/*
 * Descriptors for pkts, from *tail on, one at a time; no doorbell. Returns
 * the packets taken (sent or, unsendable, dropped and counted in *dropped):
 * fewer than nb_pkts when the ring is full. Every case goes through here:
 * chains, offloads, and what the vector burst leaves (refnic_rxtx_vec.c).
 */
uint16_t
refnic_tx_scalar(struct refnic_tx_queue *txq, struct rte_mbuf **pkts, uint16_t nb_pkts,
		 uint16_t *tailp, uint64_t *bytes, uint64_t *dropped)
{
	uint16_t tail = *tailp, i;

	for (i = 0; i < nb_pkts; i++) {
		struct rte_mbuf *m = pkts[i], *seg;
		bool tso = m->ol_flags & RTE_MBUF_F_TX_TCP_SEG;
		uint16_t need = m->nb_segs + tso;
		struct refnic_tx_desc first;

		if (unlikely(tso ? m->nb_segs > txq->tso_max_segs ||
				   m->pkt_len > txq->tso_max_size :
				   m->nb_segs > txq->max_segs ||
				   m->pkt_len > REFNIC_MAX_FRAME_LEN)) {
			/* Unsendable: drop it rather than wedge the queue. */
			rte_pktmbuf_free(m);
			(*dropped)++;
			continue;
		}
		if (unlikely(need > txq->nb_free)) {
			refnic_tx_reclaim(txq, RTE_MAX(need, nb_pkts - i));
			if (need > txq->nb_free)
				break;
		}
		if (unlikely(tso)) {
			refnic_tx_ctx(txq, m, tail);
			tail = (tail + 1) & txq->mask;
		}
		/* Each descriptor is written once, whole: offloads on the first,
		 * EOP on the last. */
		refnic_tx_offload_desc(m, &first);
		for (seg = m; seg != NULL; seg = seg->next) {
			struct refnic_tx_desc *d = &txq->ring[tail];

			d->addr = rte_mbuf_data_iova(seg);
			d->len = seg->data_len;
			d->flags = (seg == m ? first.flags : 0) |
				   (seg->next == NULL ? REFNIC_TXD_EOP : 0);
			d->vlan_tci = seg == m ? first.vlan_tci : 0;
			d->hdr_lens = seg == m ? first.hdr_lens : 0;
			txq->sw_ring[tail] = seg;
			tail = (tail + 1) & txq->mask;
		}
		txq->nb_free -= need;
		if (m->nb_segs > 1)	/* fast free must unchain it first */
			txq->slow_free_left = txq->size;
		*bytes += m->pkt_len;
	}
	*tailp = tail;
	return i;
}

uint16_t
refnic_xmit_pkts(void *queue, struct rte_mbuf **pkts, uint16_t nb_pkts)
{
	struct refnic_tx_queue *txq = queue;
	uint64_t bytes = 0, dropped = 0;
	uint16_t tail, n;

	/* Nothing sent is nothing claimed: the application keeps its mbufs. */
	if (unlikely(!refnic_burst_enter(&txq->in_burst, &txq->started, &txq->broken,
					&txq->held)))
		return 0;
	tail = txq->tail;
	if (txq->nb_free < txq->free_thresh)
		refnic_tx_reclaim(txq, nb_pkts);
	n = refnic_tx_scalar(txq, pkts, nb_pkts, &tail, &bytes, &dropped);
	refnic_tx_notify(txq, pkts, n, tail, bytes, dropped);
	refnic_burst_leave(&txq->in_burst);
	return n;
}

/*
 * Checksum requests the device can carry out: the headers they name lie in
 * the packet and match its IP version. l2_len and l3_len fit the
 * descriptor's 7 and 9 bits by construction (the mbuf's are the same).
 */
static int
refnic_tx_offload_check(const struct rte_mbuf *m)
{
	uint64_t ol = m->ol_flags, l4 = ol & RTE_MBUF_F_TX_L4_MASK;
	uint32_t l4_hdr = l4 == RTE_MBUF_F_TX_TCP_CKSUM ? sizeof(struct rte_tcp_hdr) :
			  l4 == RTE_MBUF_F_TX_UDP_CKSUM ? sizeof(struct rte_udp_hdr) : 0;

	if (!(ol & (RTE_MBUF_F_TX_IP_CKSUM | RTE_MBUF_F_TX_L4_MASK)))
		return 0;
	if (m->l2_len < RTE_ETHER_HDR_LEN || m->l3_len < sizeof(struct rte_ipv4_hdr) ||
	    m->l2_len + m->l3_len + l4_hdr > m->pkt_len)
		return -EINVAL;
	if ((ol & RTE_MBUF_F_TX_IP_CKSUM) && !(ol & RTE_MBUF_F_TX_IPV4))
		return -EINVAL;		/* an IPv4 header checksum needs IPv4 */
	if ((ol & RTE_MBUF_F_TX_IPV6) && m->l3_len < sizeof(struct rte_ipv6_hdr))
		return -EINVAL;
	if (l4 != 0 && !(ol & (RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_IPV6)))
		return -EINVAL;		/* the pseudo-header needs the IP version */
	return 0;
}

/*
 * A TSO packet the device can segment (refnic_hw.h): TCP over IPv4 or IPv6
 * as the flags say, headers within the packet, an MSS from
 * REFNIC_MIN_TSO_MSS up to what a frame holds, within the device's limits.
 * The checksums are the device's to make: no L4 flag but TCP's.
 */
static int
refnic_tso_check(const struct refnic_tx_queue *txq, const struct rte_mbuf *m)
{
	uint64_t ol = m->ol_flags, l4 = ol & RTE_MBUF_F_TX_L4_MASK;
	uint32_t hdr = m->l2_len + m->l3_len + m->l4_len;

	if (m->nb_segs > txq->tso_max_segs || m->pkt_len > txq->tso_max_size)
		return -EINVAL;
	if (!(ol & (RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_IPV6)) ||
	    (l4 != 0 && l4 != RTE_MBUF_F_TX_TCP_CKSUM) ||
	    ((ol & RTE_MBUF_F_TX_IP_CKSUM) && !(ol & RTE_MBUF_F_TX_IPV4)))
		return -EINVAL;
	/* l2_len and l3_len fit the descriptor by construction, as above. */
	if (m->l2_len < RTE_ETHER_HDR_LEN ||
	    m->l3_len < ((ol & RTE_MBUF_F_TX_IPV6) ? sizeof(struct rte_ipv6_hdr) :
			 sizeof(struct rte_ipv4_hdr)) ||
	    m->l4_len < sizeof(struct rte_tcp_hdr) || m->l4_len > 60 || hdr > m->pkt_len)
		return -EINVAL;
	if (m->tso_segsz < REFNIC_MIN_TSO_MSS || hdr + m->tso_segsz > REFNIC_MAX_FRAME_LEN)
		return -EINVAL;
	return 0;
}

/* What the device cannot send is refused here, before tx_burst. */
uint16_t
refnic_prep_pkts(void *queue, struct rte_mbuf **pkts, uint16_t nb_pkts)
{
	const struct refnic_tx_queue *txq = queue;
	uint16_t i;

	for (i = 0; i < nb_pkts; i++) {
		struct rte_mbuf *m = pkts[i], *seg;
		bool tso = m->ol_flags & RTE_MBUF_F_TX_TCP_SEG;

		/* A TSO packet's own limits are refnic_tso_check()'s. */
		if (m->pkt_len < RTE_ETHER_HDR_LEN ||
		    (!tso && (m->nb_segs > txq->max_segs || m->pkt_len > REFNIC_MAX_FRAME_LEN))) {
			rte_errno = EINVAL;
			return i;
		}
		/* Only what this device does (tx_ol_ok: its capabilities). */
		if (m->ol_flags & RTE_MBUF_F_TX_OFFLOAD_MASK & ~txq->tx_ol_ok ||
		    (m->ol_flags & RTE_MBUF_F_TX_L4_MASK) == RTE_MBUF_F_TX_SCTP_CKSUM) {
			rte_errno = ENOTSUP;
			return i;
		}
		if (tso ? refnic_tso_check(txq, m) != 0 : refnic_tx_offload_check(m) != 0) {
			rte_errno = EINVAL;
			return i;
		}
		for (seg = m; seg != NULL; seg = seg->next) {
			if (seg->data_len == 0) {
				rte_errno = EINVAL;
				return i;
			}
		}
	}
	return i;
}

/*
 * The port's burst functions, chosen at each start in this process: the
 * AVX2 ones where the CPU has AVX2 and EAL's --force-max-simd-bitwidth
 * allows 256 bits (its default on x86), else the SSE ones where the CPU has
 * SSE4.2 and EAL allows 128 bits, else the scalar ones; simd= may say
 * scalar, or ask for sse or avx2 whatever EAL's limit (avx2 on a CPU
 * without it gets what sse would). All give the same frames and counts
 * (the vector bursts fall back to the scalar cores for what they do not do).
 */
void
refnic_burst_select(struct rte_eth_dev *dev)
{
	enum refnic_simd_mode simd = refnic_adapter(dev)->args.simd;
	bool sse = false, avx2 = false, rx_scalar = false;
	uint16_t q;

	/* The vector RX reads 16-byte completions only: stamps are scalar. */
	for (q = 0; q < dev->data->nb_rx_queues; q++) {
		const struct refnic_rx_queue *rxq = dev->data->rx_queues[q];

		if (rxq != NULL && rxq->stamps != NULL)
			rx_scalar = true;
	}

#ifdef RTE_ARCH_X86
	switch (simd) {
	case REFNIC_SIMD_AUTO:
		avx2 = refnic_vec_avx2_usable();
		sse = !avx2 && refnic_vec_usable();
		break;
	case REFNIC_SIMD_AVX2:
		avx2 = rte_cpu_get_flag_enabled(RTE_CPUFLAG_AVX2) == 1;
		sse = !avx2 && rte_cpu_get_flag_enabled(RTE_CPUFLAG_SSE4_2) == 1;
		break;
	case REFNIC_SIMD_SSE:
		sse = rte_cpu_get_flag_enabled(RTE_CPUFLAG_SSE4_2) == 1;
		break;
	default:
		break;
	}
#endif
	if (simd == REFNIC_SIMD_AVX2 && !avx2)
		PMD_DRV_LOG(WARNING, "port %u: simd=avx2, but the CPU has no AVX2: %s bursts",
			    dev->data->port_id, sse ? "SSE" : "scalar");
	else if (simd == REFNIC_SIMD_SSE && !sse)
		PMD_DRV_LOG(WARNING, "port %u: simd=sse, but the CPU has no SSE4.2: scalar bursts",
			    dev->data->port_id);
#ifdef RTE_ARCH_X86
	if (avx2) {
		dev->rx_pkt_burst = rx_scalar ? refnic_recv_pkts : refnic_recv_pkts_vec_avx2;
		dev->tx_pkt_burst = refnic_xmit_pkts_vec_avx2;
		return;
	}
	if (sse) {
		dev->rx_pkt_burst = rx_scalar ? refnic_recv_pkts : refnic_recv_pkts_vec;
		dev->tx_pkt_burst = refnic_xmit_pkts_vec;
		return;
	}
#endif
	dev->rx_pkt_burst = refnic_recv_pkts;
	dev->tx_pkt_burst = refnic_xmit_pkts;
}

/* Each pair of bursts by the name burst_mode_get gives it. */
static const struct {
	eth_rx_burst_t rx;
	eth_tx_burst_t tx;
	const char *name;
} refnic_bursts[] = {
	{ refnic_recv_pkts, refnic_xmit_pkts, "Scalar" },
#ifdef RTE_ARCH_X86
	{ refnic_recv_pkts_vec, refnic_xmit_pkts_vec, "Vector SSE" },
	{ refnic_recv_pkts_vec_avx2, refnic_xmit_pkts_vec_avx2, "Vector AVX2" },
#endif
};

static const char *
burst_name(const struct rte_eth_dev *dev, bool tx)
{
	unsigned int i;

	for (i = 0; i < RTE_DIM(refnic_bursts); i++)
		if (tx ? dev->tx_pkt_burst == refnic_bursts[i].tx :
			 dev->rx_pkt_burst == refnic_bursts[i].rx)
			return refnic_bursts[i].name;
	return NULL;
}

const char *
refnic_rx_burst_name(const struct rte_eth_dev *dev)
{
	return burst_name(dev, false);
}

const char *
refnic_tx_burst_name(const struct rte_eth_dev *dev)
{
	return burst_name(dev, true);
}

bool
refnic_burst_is_ours(const struct rte_eth_dev *dev)
{
	return refnic_rx_burst_name(dev) != NULL && refnic_tx_burst_name(dev) != NULL;
}

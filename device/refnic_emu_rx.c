/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * RX delivery: frames from the cable judged as the port's receive plan
 * asks (filters, size, parse, flow rules, RSS, checksum verdicts), then
 * written into posted buffers with their completions. Plain frames go a
 * burst at a time: classified first, then delivered a queue at a time;
 * a frame the burst cannot take goes by itself.
 */

#include <string.h>

#include <rte_common.h>
#include <rte_memcpy.h>
#include <rte_prefetch.h>

#include "refnic_emu_clock.h"
#include "refnic_emu_corrupt.h"
#include "refnic_emu_dma_map.h"
#include "refnic_emu_filter.h"
#include "refnic_emu_flow.h"
#include "refnic_emu_intr.h"
#include "refnic_emu_offload.h"
#include "refnic_emu_parse.h"
#include "refnic_emu_priv.h"
#include "refnic_emu_queue.h"
#include "refnic_emu_queue_priv.h"
#include "refnic_emu_rss.h"
#include "refnic_emu_simd.h"
#include "refnic_emu_trap.h"

/* refnic_emu_flow.c's table, for the plan: is any rule in it? */
static inline bool
rx_flows_any(const struct refnic_emu *emu)
{
	return __atomic_load_n(&emu->flows.nb, __ATOMIC_RELAXED) != 0;
}

/* The rings' prefetches take a line per four entries. */
_Static_assert(sizeof(struct refnic_rx_desc) * 4 == RTE_CACHE_LINE_SIZE &&
	       sizeof(struct refnic_rx_cpl) * 4 == RTE_CACHE_LINE_SIZE, "four to a line");

/* A frame dropped for want of a buffer: was the RX interrupt held back? */
static inline bool
rxq_intr_held(struct refnic_emu *emu, const struct refnic_emu_rxq *rxq)
{
	const struct refnic_emu_vector *vec;

	if (!rxq->intr)
		return false;	/* then its vector may be anything */
	vec = &emu->intr->vec[rxq->vector];
	return (__atomic_load_n(&vec->pending, __ATOMIC_RELAXED) & REFNIC_EMU_CAUSE_RX) &&
	       __atomic_load_n(&vec->due_tsc, __ATOMIC_RELAXED) != 0;
}

/* Copy the first len bytes of a frame (which may span segments). */
static void
frame_peek(const struct refnic_frame *f, uint8_t *dst, uint32_t len)
{
	uint16_t s;
	uint32_t n;

	for (s = 0; s < f->nb_segs && len > 0; s++) {
		n = RTE_MIN(len, f->seg_len[s]);
		memcpy(dst, f->seg[s], n);
		dst += n;
		len -= n;
	}
}

/* Packet type, as the completion reports it. */
static uint8_t
rx_ptype(const struct refnic_pkt_hdrs *h)
{
	uint8_t l3 = h->ip_version == 4 ? REFNIC_PTYPE_IPV4 :
		     h->ip_version == 6 ? REFNIC_PTYPE_IPV6 : REFNIC_PTYPE_L2;

	if (h->ip_version == 0 || h->frag)
		return l3;
	return l3 | (h->proto == EMU_IPPROTO_TCP ? REFNIC_PTYPE_TCP :
		     h->proto == EMU_IPPROTO_UDP ? REFNIC_PTYPE_UDP : 0);
}

/*
 * A device model, unlike a NIC's parser, costs the CPU it runs on (the
 * sender's lcore, inline): it skips what nobody enabled, and decides what
 * that is when the configuration changes, not per frame.
 */
void
refnic_emu_rx_plan_update(struct refnic_emu *emu)
{
	uint8_t plan = 0;

	if (!(emu->rx_mode & REFNIC_RX_MODE_PROMISC) || (emu->features & REFNIC_CAP_VLAN_FILTER))
		plan |= REFNIC_EMU_RX_FILTER;
	if (emu->features & REFNIC_CAP_RX_PTYPE)
		plan |= REFNIC_EMU_RX_PTYPE;
	if (emu->features & REFNIC_CAP_RX_CSUM)
		plan |= REFNIC_EMU_RX_CSUM;
	if (emu->rss.hash_types != 0) {
		plan |= REFNIC_EMU_RX_RSS;
		refnic_emu_rss_table_update(&emu->rss_table, emu->rss.key);
	}
	if (rx_flows_any(emu))
		plan |= REFNIC_EMU_RX_FLOW;
	if (emu->features & REFNIC_CAP_VLAN_STRIP)
		plan |= REFNIC_EMU_RX_STRIP;
	emu->rx_plan = plan;
}

/* Does a frame need parsing? For its packet type, a checksum verdict, an
 * RSS hash or the flow table. */
#define RX_PLAN_PARSE	(REFNIC_EMU_RX_PTYPE | REFNIC_EMU_RX_CSUM | REFNIC_EMU_RX_RSS | \
			 REFNIC_EMU_RX_FLOW)

/* Posted buffers needed for len bytes, or 0 if the ring has too few. */
static uint16_t
rx_buffers_needed(const struct refnic_emu_rxq *rxq, uint16_t tail, uint32_t len)
{
	uint16_t avail = (tail - rxq->head) & (rxq->size - 1);
	uint16_t n = 0, idx = rxq->head;

	while (len > 0) {
		uint16_t buf_len = rxq->ring[idx].buf_len;

		if (n == avail || buf_len < rxq->buf_size)
			return 0;
		len -= RTE_MIN(len, buf_len);
		idx = (idx + 1) & (rxq->size - 1);
		n++;
	}
	return n;
}

/* What the device learnt about a frame, for its completions. */
struct rx_meta {
	uint8_t ptype;
	bool hashed;
	uint32_t hash;
	uint16_t flags;		/* checksum verdicts, VLAN stripped */
	uint16_t vlan_tci;
	uint16_t last_flags;	/* on the frame's last completion: stamp, PTP */
	uint64_t stamp;		/* arrival, device clock ns, with REFNIC_RXC_TSTAMP */
};

/* The flow table's queue for a frame, its hash or mark; UINT16_MAX: drop. */
static uint16_t
rx_flow_classify(struct refnic_emu *emu, const uint8_t *hdr, const struct refnic_pkt_hdrs *h,
		 uint32_t len, struct rx_meta *meta)
{
	struct refnic_emu_flow_verdict v;
	uint16_t qid;

	switch (refnic_emu_flow_lookup(emu, hdr, h, len, &v)) {
	case REFNIC_EMU_FLOW_DROP:
		return UINT16_MAX;
	case REFNIC_EMU_FLOW_QUEUE:
		qid = v.queue;
		meta->hash = v.hash;
		meta->hashed = v.hashed;
		break;
	default:
		qid = refnic_emu_rss_queue(emu, hdr, h, &meta->hash, &meta->hashed);
		break;
	}
	if (v.marked) {	/* the mark takes the hash's place (refnic_hw.h) */
		meta->hash = v.mark;
		meta->hashed = false;
		meta->flags |= REFNIC_RXC_FLOW_MARK;
	}
	/* An shm cable's view holds the far end's table, as its file had it. */
	return qid & (REFNIC_MAX_QUEUES - 1);
}

/*
 * The buffer two ahead of the head idx, which the driver last touched on
 * another core; only one it posted (before the taken tail): the
 * descriptors beyond are the driver's, maybe being written.
 */
static inline void
rx_prefetch_buffer(struct refnic_emu *emu, const struct refnic_emu_rxq *rxq,
		   const struct refnic_dma_window *win, uint16_t idx, uint16_t tail)
{
	uint16_t mask = rxq->size - 1;
	uint64_t iova;
	void *va;

	if (((tail - idx) & mask) <= 2)
		return;
	iova = rxq->ring[(idx + 2) & mask].addr;
	va = refnic_emu_dma_window_peek(win, iova, RTE_CACHE_LINE_SIZE);
	if (va == NULL)
		va = refnic_emu_dma_map_cached(emu, iova, RTE_CACHE_LINE_SIZE);
	if (va != NULL)
		rte_prefetch0_write(va);
}

/* chunk bytes of f from segment *s at *seg_off into dst, across segments. */
static __rte_noinline void
rx_copy_segments(uint8_t *dst, const struct refnic_frame *f, uint32_t chunk, uint16_t *s,
		 uint32_t *seg_off)
{
	uint32_t copied = 0;

	while (copied < chunk) {
		uint32_t k = RTE_MIN(chunk - copied, f->seg_len[*s] - *seg_off);

		rte_memcpy(dst + copied, f->seg[*s] + *seg_off, k);
		copied += k;
		*seg_off += k;
		if (*seg_off == f->seg_len[*s]) {
			(*s)++;
			*seg_off = 0;
		}
	}
}

/*
 * A plain frame's completion, all but its phase (the batch's publish): the
 * frame's only buffer, no hash, verdict or tag.
 */
static __rte_always_inline void
rx_cpl_write(struct refnic_rx_cpl *cpl, uint16_t idx, uint32_t len, uint8_t ptype)
{
	cpl->rss_hash = 0;
	cpl->desc_idx = idx;
	cpl->len = len;
	cpl->flags = REFNIC_RXC_EOP;
	cpl->vlan_tci = 0;
	cpl->ptype = ptype;
}

/* Scatter f into n posted buffers; false on a DMA error (frame dropped). */
static __rte_always_inline bool
rx_scatter(struct refnic_emu *emu, struct refnic_rx_batch *batch, struct refnic_emu_rxq *rxq,
	   const struct refnic_frame *f, uint16_t n, uint16_t tail, const struct rx_meta *meta)
{
	uint32_t seg_off = 0, left = f->len;
	uint16_t s = 0, b;

	for (b = 0; b < n; b++) {
		uint16_t idx = rxq->head;
		struct refnic_rx_desc d = rxq->ring[idx];

		/* Read before its completion may be written over it (write-back):
		 * the two types do not alias for the compiler. */
		rte_compiler_barrier();

		/* A line holds four of each: the next line, once. */
		if ((idx & 3) == 0) {
			rte_prefetch0(&rxq->ring[(idx + 4) & (rxq->size - 1)]);
			rte_prefetch0(&rxq->cq[(idx + 4) & (rxq->size - 1)]);
		}
		rx_prefetch_buffer(emu, rxq, &batch->win, idx, tail);
		/* What is used is what is checked: rx_buffers_needed() read
		 * the ring, the driver may have written it since. */
		if (unlikely(d.buf_len < rxq->buf_size))
			return false;
		uint32_t chunk = RTE_MIN(left, (uint32_t)d.buf_len);
		struct refnic_rx_cpl *cpl = &rxq->cq[idx];
		uint8_t *dst = refnic_emu_dma_window_map(emu, &batch->win, d.addr, chunk);

		if (dst == NULL)
			return false;
		/* The common frame: in one segment, into one buffer. */
		if (likely(chunk <= f->seg_len[s] - seg_off)) {
			rte_memcpy(dst, f->seg[s] + seg_off, chunk);
			seg_off += chunk;
			if (seg_off == f->seg_len[s]) {
				s++;
				seg_off = 0;
			}
		} else {
			rx_copy_segments(dst, f, chunk, &s, &seg_off);
		}
		left -= chunk;
		batch->stats->dma_writes += 2;

		cpl->rss_hash = meta->hash;
		cpl->desc_idx = idx;
		cpl->len = chunk;
		cpl->flags = (left == 0 ? REFNIC_RXC_EOP | meta->last_flags : 0) |
			     (meta->hashed ? REFNIC_RXC_RSS_VALID : 0) | meta->flags;
		/* Before the phase byte, which the batch's publish writes. */
		if (unlikely(left == 0 && (meta->last_flags & REFNIC_RXC_TSTAMP)))
			rxq->stamps[idx] = meta->stamp;
		cpl->vlan_tci = meta->vlan_tci;
		cpl->ptype = meta->ptype;
		if (unlikely(batch->garble))
			refnic_emu_corrupt_rx_cpl(emu, cpl, rxq->size);
		/* The phase bit goes out with the batch: refnic_emu_rxq_publish().
		 * Atomic: an interrupt's arm reads it unlocked (refnic_emu_rxq_full()). */
		__atomic_store_n(&rxq->head, (idx + 1) & (rxq->size - 1), __ATOMIC_RELAXED);
	}
	return true;
}

/*
 * The frame's arrival time (1.4): into the queue's stamp slot, if it has
 * them, and, timesync on, into the RX latch if it is a PTP event message.
 */
static void
rx_stamp(struct refnic_emu *emu, const struct refnic_emu_rxq *rxq, const uint8_t *hdr,
	 uint32_t hdr_len, struct rx_meta *meta)
{
	bool event;

	meta->stamp = refnic_emu_clock_now(emu->clock);
	if (rxq->stamps != NULL)
		meta->last_flags |= REFNIC_RXC_TSTAMP;
	if (emu_timesync(emu) && refnic_emu_ptp_classify(hdr, hdr_len, &event)) {
		meta->last_flags |= REFNIC_RXC_PTP;
		if (event)
			refnic_emu_ptp_latch(emu->clock, emu->bar0, false, meta->stamp);
	}
}

/* Ethernet, a VLAN tag, IPv6 or IPv4 with options, L4 ports. */
#define RX_HDR_MAX	(EMU_ETH_HLEN + 4 + 60 + 4)

/* emu's configuration as it is, for the rest of the pass (one lock a pass). */
static __rte_always_inline void
rx_config_hold(struct refnic_rx_batch *b, struct refnic_emu *emu)
{
	if (unlikely(b->config != emu)) {
		/* A pass's first frame holds nothing yet. */
		if (b->config != NULL)
			refnic_emu_rx_batch_end(b);
		b->config_readers = emu_rx_config_hold(emu);
		b->config = emu;
	}
}

/* A frame nothing will take: counted (hostile tests add every frame up). */
#define RX_DROPPED	UINT16_MAX

/*
 * Is emu taking frames at all? Not unless it is up, and not with its PHY
 * off (LINK_SET): what comes in from another process or the kernel is not
 * taken. In this process, nothing is sent to a port that is down.
 */
static __rte_always_inline bool
rx_port_takes(struct refnic_emu *emu)
{
	if (unlikely(emu_state(emu) != REFNIC_STATE_READY) ||
	    unlikely(__atomic_load_n(&emu->phy_down, __ATOMIC_ACQUIRE))) {
		emu_stats(emu)->cable_rx_dropped++;
		return false;
	}
	return true;
}

/*
 * A frame's queue and what its completion will say, doing what the plan
 * asks and no more: the filters, the size, then the parser for a type, a
 * checksum, a hash or a rule (counted in *parsed). RX_DROPPED if it is not
 * taken (counted).
 */
static __rte_always_inline uint16_t
rx_classify(struct refnic_emu *emu, uint8_t plan, const struct refnic_frame *f,
	    const uint8_t *hdr, uint32_t hdr_len, struct rx_meta *meta, unsigned int *parsed)
{
	struct refnic_pkt_hdrs hdrs;
	uint16_t qid = 0;

	/* Promiscuous without a VLAN filter takes every frame: not looked at. */
	if ((plan & REFNIC_EMU_RX_FILTER) && !refnic_emu_rx_accept(emu, hdr, hdr_len)) {
		emu_stats(emu)->rx_filtered++;
		return RX_DROPPED;
	}
	if (f->len > emu->mtu + REFNIC_ETH_OVERHEAD) {
		emu_stats(emu)->rx_oversize++;
		return RX_DROPPED;
	}
	meta->ptype = REFNIC_PTYPE_L2;
	if (!(plan & RX_PLAN_PARSE))
		return 0;
	refnic_emu_parse_inline(hdr, hdr_len, &hdrs);
	(*parsed)++;
	/* Flow rules before RSS; with none, one test. */
	if (plan & REFNIC_EMU_RX_FLOW) {
		qid = rx_flow_classify(emu, hdr, &hdrs, f->len, meta);
		if (qid == UINT16_MAX) {
			emu_stats(emu)->rx_filtered++;
			return RX_DROPPED;
		}
	} else if (plan & REFNIC_EMU_RX_RSS) {
		qid = refnic_emu_rss_queue(emu, hdr, &hdrs, &meta->hash, &meta->hashed);
	}
	if (plan & REFNIC_EMU_RX_PTYPE)
		meta->ptype = rx_ptype(&hdrs);
	if (plan & REFNIC_EMU_RX_CSUM)
		meta->flags |= refnic_emu_rx_csum(f, &hdrs);
	return qid;
}

/*
 * A classified frame into queue qid by itself: its tag stripped if asked,
 * its buffers found, its bytes scattered, stamped if the queue stamps, and
 * a held interrupt raised at once when the ring is half taken.
 */
static __rte_always_inline bool
rx_deliver_one(struct refnic_emu *emu, const struct refnic_frame *f, uint16_t qid,
	       struct rx_meta *meta, const uint8_t *hdr, uint32_t hdr_len, uint8_t plan,
	       struct refnic_rx_batch *b)
{
	struct refnic_frame stripped;
	struct refnic_hw_queue_stats *qs;
	struct refnic_emu_rxq *rxq;
	uint16_t tail, n;

	if ((plan & REFNIC_EMU_RX_STRIP) &&
	    refnic_emu_vlan_strip(f, &stripped, &meta->vlan_tci)) {
		meta->flags |= REFNIC_RXC_VLAN_STRIPPED;
		f = &stripped;
	}
	rxq = &emu->rxq[qid];
	emu_rx_batch_hold(b, emu, rxq);
	qs = &b->stats->q[qid];
	if (!rxq->enabled) {
		qs->rx_no_buffer++;
		return false;
	}
	tail = emu_db_tail(&emu->rxdb[qid]);
	if (tail >= rxq->size) {
		refnic_emu_queue_error(emu, false, qid, &rxq->enabled, "RX tail beyond ring");
		qs->rx_no_buffer++;
		return false;
	}
	n = rx_buffers_needed(rxq, tail, f->len);
	/* A device that cannot scatter (caps_off=scatter) writes a frame into
	 * one buffer or not at all: one longer than its buffers is oversize. */
	if (unlikely(n > 1) && !emu_has_cap(emu, REFNIC_CAP_SCATTER)) {
		emu_stats(emu)->rx_oversize++;
		return false;
	}
	/* Stamped once taken: a frame dropped here latches nothing. */
	if (unlikely(rxq->stamps != NULL || emu_timesync(emu)) && n != 0)
		rx_stamp(emu, rxq, hdr, hdr_len, meta);
	if (n == 0) {
		qs->rx_no_buffer++;
		if (rxq_intr_held(emu, rxq))
			qs->rx_missed_while_held++;
		return false;
	}
	if (!rx_scatter(emu, b, rxq, f, n, tail, meta)) {
		refnic_emu_queue_error(emu, false, qid, &rxq->enabled, "RX buffer DMA error");
		qs->rx_no_buffer++;
		return false;
	}
	qs->rx_packets++;
	qs->rx_bytes += f->len;
	/* Half the ring taken while the driver sleeps: a held interrupt goes
	 * now, mid-batch, not when the pass ends, by which time a long pass
	 * may have filled the ring while the interrupt was held. (A far end's
	 * port over shm: at the pass's end, when its file learns the index.) */
	if (unlikely(rxq->intr) && likely(emu->view_cable == NULL) &&
	    emu_queue_intr_armed(emu, rxq->intr, rxq->vector, REFNIC_EMU_CAUSE_RX) &&
	    refnic_emu_rxq_full(emu, qid)) {
		refnic_emu_rxq_publish(rxq);
		emu_path_stats(emu)->rx_publishes++;
		refnic_emu_intr_fire(emu, rxq->vector, REFNIC_EMU_CAUSE_RX, true);
	}
	return true;
}

static __rte_always_inline bool
rx_frame(struct refnic_emu *emu, const struct refnic_frame *f, struct refnic_rx_batch *b)
{
	uint8_t hdr_copy[RX_HDR_MAX];
	uint32_t hdr_len = RTE_MIN(f->len, sizeof(hdr_copy));
	struct rx_meta meta = { .hash = 0 };
	unsigned int parsed = 0;
	const uint8_t *hdr;
	uint16_t qid;
	uint8_t plan;

	rx_config_hold(b, emu);
	plan = emu->rx_plan;
	if (!rx_port_takes(emu))
		return false;
	/* Parse the headers where they are; gather them only if split. */
	if (f->seg_len[0] >= hdr_len) {
		hdr = f->seg[0];
	} else {
		frame_peek(f, hdr_copy, hdr_len);
		hdr = hdr_copy;
	}
	qid = rx_classify(emu, plan, f, hdr, hdr_len, &meta, &parsed);
	if (parsed != 0)
		emu_path_stats(emu)->rx_parsed++;
	if (qid == RX_DROPPED)
		return false;
	return rx_deliver_one(emu, f, qid, &meta, hdr, hdr_len, plan, b);
}

bool
refnic_emu_rx_frame(struct refnic_emu *emu, const struct refnic_frame *f,
		    struct refnic_rx_batch *b)
{
	return rx_frame(emu, f, b);
}

/*
 * Plans whose frames are classified a burst at a time before any queue is
 * held: a queue, hash or verdict per frame, or a tag to find. Without them
 * every frame goes to queue 0 and is judged (filters, size, type) where it
 * is copied: one first touch of its line, not two a burst apart.
 */
#define RX_PLAN_CLASSIFY	(REFNIC_EMU_RX_CSUM | REFNIC_EMU_RX_RSS | REFNIC_EMU_RX_FLOW | \
				 REFNIC_EMU_RX_STRIP)

/* A frame's verdict from the classify stage. */
struct rx_verdict {
	uint16_t qid;			/* RX_DROPPED: not taken, counted */
	bool alone;			/* a tag to strip: delivered by itself */
	struct rx_meta meta;
};

/* One queue's share of a burst, as it goes through the stages. */
struct rx_queue_burst {
	struct refnic_emu_rxq *rxq;
	uint16_t qid, tail;
	unsigned int looked;		/* frames looked at */
	unsigned int taken, filtered, oversize, no_buffer;
	unsigned int placed;		/* taken in vector groups */
	uint32_t bytes;
	bool dma_error;
};

/*
 * Can queue qid of a port taking bursts take its frames as one? Held,
 * enabled, with neither stamps nor an interrupt to raise mid-batch, and a
 * sane tail. Else its frames go one by one, which says why.
 */
static __rte_always_inline bool
rx_queue_open(struct refnic_emu *emu, struct refnic_rx_batch *b, struct rx_queue_burst *qb,
	      uint16_t qid)
{
	struct refnic_emu_rxq *rxq = &emu->rxq[qid];

	emu_rx_batch_hold(b, emu, rxq);
	if (!rxq->enabled || rxq->intr || rxq->stamps != NULL)
		return false;
	qb->tail = emu_db_tail(&emu->rxdb[qid]);
	if (qb->tail >= rxq->size)
		return false;
	qb->rxq = rxq;
	qb->qid = qid;
	return true;
}

/*
 * Of a classified queue's n frames (verdicts v[order[k]]), how many come
 * before the first to go alone: a tag to strip, only plans that strip
 * have one. The groups stop there; the scalar loop stops at that frame.
 */
static __rte_always_inline unsigned int
rx_burst_run(const struct rx_verdict *v, const uint8_t *order, unsigned int n, uint8_t plan)
{
	unsigned int k = 0;

	if (!(plan & REFNIC_EMU_RX_STRIP))
		return n;
	while (k < n && !v[order[k]].alone)
		k++;
	return k;
}

/*
 * Stage one of a queue's burst: each frame judged (unless classified),
 * its buffer checked and translated, nothing written yet. Stops before a
 * frame it cannot take as the others (a tag to strip; a buffer shorter
 * than the queue's or than the frame: the per-frame path judges it), or
 * at one whose buffer does not translate.
 */
static __rte_always_inline void
rx_burst_map(struct refnic_emu *emu, struct refnic_rx_batch *b, struct rx_queue_burst *qb,
	     uint8_t **dst, const struct refnic_plain_frame *pf, const uint8_t *order,
	     unsigned int n, const struct rx_verdict *v, uint8_t plan)
{
	struct refnic_emu_rxq *rxq = qb->rxq;
	uint32_t max_len = emu->mtu + REFNIC_ETH_OVERHEAD;
	uint16_t mask = rxq->size - 1, idx = rxq->head;
	/* Frames with nothing left to judge (classified, or nothing to
	 * filter): a group at a time while each fits (refnic_emu_simd.h);
	 * the frame a group stopped at, alone. */
	refnic_emu_rx_place_t place = v != NULL || !(plan & REFNIC_EMU_RX_FILTER) ?
				      refnic_emu_simd_stages[emu->simd].rx_place : NULL;
	unsigned int i, run = n;

	if (place != NULL && v != NULL)
		run = rx_burst_run(v, order, n, plan);
	for (i = 0; i < n; i++) {
		const struct refnic_plain_frame *fr;
		struct refnic_rx_desc d;

		if (place != NULL && i < run) {
			unsigned int span = RTE_MIN(run - i,
						    RTE_MIN((unsigned int)((qb->tail - idx) & mask),
							    (unsigned int)rxq->size - idx));

			if (span >= REFNIC_EMU_SIMD_GROUP) {
				unsigned int got = place(&rxq->ring[idx], &pf[i], span,
							 rxq->buf_size, max_len,
							 emu_dma_cache(emu), &b->win,
							 &dst[i]);

				i += got;
				qb->taken += got;
				qb->placed += got;
				idx = (idx + got) & mask;
				if (i == n)
					break;
			}
		}
		fr = &pf[i];
		dst[i] = NULL;
		if (v == NULL) {
			if ((plan & REFNIC_EMU_RX_FILTER) &&
			    !refnic_emu_rx_accept(emu, fr->data,
						  RTE_MIN(fr->len, (uint32_t)RX_HDR_MAX))) {
				qb->filtered++;
				continue;
			}
			if (fr->len > max_len) {
				qb->oversize++;
				continue;
			}
		} else if (v[order[i]].alone) {
			break;
		}
		if (idx == qb->tail) {
			qb->no_buffer++;
			continue;
		}
		d = rxq->ring[idx];
		if (d.buf_len < rxq->buf_size || fr->len > d.buf_len)
			break;
		dst[i] = refnic_emu_dma_window_map(emu, &b->win, d.addr, fr->len);
		if (unlikely(dst[i] == NULL)) {
			qb->dma_error = true;	/* counted (dma_errors) by the look-up */
			break;
		}
		/* The driver's buffer, last touched on its core: the copy comes
		 * a burst later. A line holds four descriptors: the next, once. */
		rte_prefetch0_write(dst[i]);
		if ((idx & 3) == 0) {
			rte_prefetch0(&rxq->ring[(idx + 4) & mask]);
			rte_prefetch0(&rxq->cq[(idx + 4) & mask]);
		}
		idx = (idx + 1) & mask;
		qb->taken++;
	}
	qb->looked = i;
}

/* A classified frame's completion, all but its phase (the batch's publish). */
static __rte_always_inline void
rx_cpl_write_meta(struct refnic_rx_cpl *cpl, uint16_t idx, uint32_t len,
		  const struct rx_meta *meta)
{
	cpl->rss_hash = meta->hash;
	cpl->desc_idx = idx;
	cpl->len = len;
	cpl->flags = REFNIC_RXC_EOP | (meta->hashed ? REFNIC_RXC_RSS_VALID : 0) | meta->flags;
	cpl->vlan_tci = meta->vlan_tci;
	cpl->ptype = meta->ptype;
}

/* Stage two: the bytes copied and the completions written, in ring order. */
static __rte_always_inline void
rx_burst_copy(struct refnic_emu *emu, struct refnic_rx_batch *b, struct rx_queue_burst *qb,
	      uint8_t *const *dst, const struct refnic_plain_frame *pf, const uint8_t *order,
	      const struct rx_verdict *v, uint8_t plan)
{
	struct refnic_emu_rxq *rxq = qb->rxq;
	uint16_t mask = rxq->size - 1, idx = rxq->head;
	unsigned int i;

	/* Descriptors read before completions go over them (write-back). */
	rte_compiler_barrier();
	for (i = 0; i < qb->looked; i++) {
		const struct refnic_plain_frame *fr = &pf[i];
		struct refnic_rx_cpl *cpl = &rxq->cq[idx];
		uint8_t ptype = REFNIC_PTYPE_L2;

		if (dst[i] == NULL)
			continue;
		/* Typed where it is copied, when no classify stage typed it. */
		if (v == NULL && (plan & REFNIC_EMU_RX_PTYPE)) {
			struct refnic_pkt_hdrs h;

			refnic_emu_parse_inline(fr->data, RTE_MIN(fr->len, (uint32_t)RX_HDR_MAX),
						&h);
			ptype = rx_ptype(&h);
		}
		rte_memcpy(dst[i], fr->data, fr->len);
		qb->bytes += fr->len;
		if (v == NULL)
			rx_cpl_write(cpl, idx, fr->len, ptype);
		else
			rx_cpl_write_meta(cpl, idx, fr->len, &v[order[i]].meta);
		if (unlikely(b->garble))
			refnic_emu_corrupt_rx_cpl(emu, cpl, rxq->size);
		idx = (idx + 1) & mask;
	}
	__atomic_store_n(&rxq->head, idx, __ATOMIC_RELAXED);	/* read unlocked by an arm */
}

/* Stage three: the counters, once; returns the frames the burst consumed. */
static __rte_always_inline unsigned int
rx_burst_count(struct refnic_emu *emu, struct refnic_rx_batch *b, struct rx_queue_burst *qb,
	       bool typed_here)
{
	struct refnic_hw_queue_stats *qs = &b->stats->q[qb->qid];
	struct refnic_emu_path_stats *ps;

	qs->rx_packets += qb->taken;
	qs->rx_bytes += qb->bytes;
	b->stats->dma_writes += 2 * qb->taken;
	if (unlikely((qb->no_buffer | qb->filtered | qb->oversize) != 0)) {
		qs->rx_no_buffer += qb->no_buffer;
		b->stats->rx_filtered += qb->filtered;
		b->stats->rx_oversize += qb->oversize;
	}
	ps = emu_path_stats(emu);
	ps->rx_bursts += qb->taken != 0;	/* one that stopped at once took none */
	ps->rx_burst_frames += qb->taken;
	ps->rx_vec_frames += qb->placed;
	if (typed_here)
		ps->rx_parsed += qb->taken;
	if (unlikely(qb->dma_error)) {
		refnic_emu_queue_error(emu, false, qb->qid, &qb->rxq->enabled, "RX buffer DMA error");
		qs->rx_no_buffer++;
		return qb->looked + 1;	/* that frame is dropped */
	}
	return qb->looked;
}

/*
 * Frames into queue qid as a NIC's pipeline takes them: every frame judged
 * and its buffer checked and translated first, then the bytes copied and
 * the completions written, then the counters added, once for the burst.
 * Frames pf[k], k < n, in the order they go; verdicts v[order[k]], or v
 * and order NULL if not classified.
 * Returns the frames done; the caller delivers the next by itself, and the
 * rest too if *open went false (the queue takes no bursts in this pass).
 */
static __rte_always_inline unsigned int
rx_queue_burst(struct refnic_emu *emu, struct refnic_rx_batch *b, uint16_t qid,
	       const struct refnic_plain_frame *pf, const uint8_t *order, unsigned int n,
	       const struct rx_verdict *v, uint8_t plan, bool *open)
{
	uint8_t *dst[RX_BURST_MAX];	/* where each frame goes; NULL: not taken */
	struct rx_queue_burst qb = { .looked = 0 };

	*open = rx_queue_open(emu, b, &qb, qid);
	if (!*open)
		return 0;
	n = RTE_MIN(n, (unsigned int)RX_BURST_MAX);
	rx_burst_map(emu, b, &qb, dst, pf, order, n, v, plan);
	rx_burst_copy(emu, b, &qb, dst, pf, order, v, plan);
	return rx_burst_count(emu, b, &qb, v == NULL && (plan & REFNIC_EMU_RX_PTYPE));
}

/* Can plain frames into emu go in bursts? It is up, takes frames, and no
 * frame needs a stamp latched or a far end's view. */
static __rte_always_inline bool
rx_port_bursts(struct refnic_emu *emu)
{
	return emu_state(emu) == REFNIC_STATE_READY &&
	       !__atomic_load_n(&emu->phy_down, __ATOMIC_ACQUIRE) && !emu_timesync(emu) &&
	       emu->view_cable == NULL;
}

/* Frames all for queue 0, judged as they are copied; returns those done alone. */
static __rte_always_inline unsigned int
rx_burst_unclassified(struct refnic_emu *emu, uint8_t plan, const struct refnic_plain_frame *pf,
		      unsigned int n, struct refnic_rx_batch *b)
{
	struct refnic_frame f;
	unsigned int k = 0, single = 0;
	bool open = true;

	while (k < n) {
		if (open)
			k += rx_queue_burst(emu, b, 0, pf + k, NULL, n - k, NULL, plan, &open);
		if (k == n)
			break;
		/* The frame the burst stopped at (f made ready at the first:
		 * most passes have none). */
		if (single == 0)
			refnic_emu_frame_plain_init(&f);
		refnic_emu_frame_plain_set(&f, &pf[k++]);
		rx_frame(emu, &f, b);
		single++;
	}
	return single;
}

/* Stage zero of a classified burst: every frame's queue and verdicts,
 * before any queue is held. */
static void
rx_burst_classify(struct refnic_emu *emu, uint8_t plan, const struct refnic_plain_frame *pf,
		  unsigned int n, struct rx_verdict *v)
{
	struct refnic_frame f;
	unsigned int i, parsed = 0;

	refnic_emu_frame_plain_init(&f);
	for (i = 0; i < n; i++) {
		const uint8_t *p = pf[i].data;

		refnic_emu_frame_plain_set(&f, &pf[i]);
		v[i].meta = (struct rx_meta){ .hash = 0 };
		v[i].qid = rx_classify(emu, plan, &f, p, RTE_MIN(pf[i].len, (uint32_t)RX_HDR_MAX),
				       &v[i].meta, &parsed);
		/* refnic_emu_vlan_strip()'s test, on a frame of one segment. */
		v[i].alone = (plan & REFNIC_EMU_RX_STRIP) && pf[i].len >= EMU_ETH_HLEN + 4 &&
			     (p[12] << 8 | p[13]) == EMU_ETH_P_VLAN;
	}
	if (parsed != 0)
		emu_path_stats(emu)->rx_parsed += parsed;
}

/* A classified burst's frames grouped by queue, in arrival order in each. */
struct rx_by_queue {
	uint64_t queues;		/* a bit per queue with frames */
	uint8_t start[REFNIC_MAX_QUEUES];	/* its first in order[] */
	uint8_t count[REFNIC_MAX_QUEUES];
	uint8_t order[RX_BURST_MAX];	/* frame indexes: their verdicts */
	/* The frames in that order: a queue's lie together, for the stages. */
	struct refnic_plain_frame pf[RX_BURST_MAX];
};
_Static_assert(REFNIC_MAX_QUEUES <= 64 && RX_BURST_MAX <= UINT8_MAX, "rx_by_queue's widths");

/* Stage one: a counting sort, over the queues that have frames only. */
static void
rx_burst_group(const struct refnic_plain_frame *pf, const struct rx_verdict *v, unsigned int n,
	       struct rx_by_queue *g)
{
	uint8_t at[REFNIC_MAX_QUEUES];
	unsigned int i, pos = 0;
	uint64_t m;

	g->queues = 0;
	for (i = 0; i < n; i++) {
		uint16_t q = v[i].qid;

		if (q == RX_DROPPED)
			continue;
		if (!(g->queues & RTE_BIT64(q))) {
			g->queues |= RTE_BIT64(q);
			g->count[q] = 0;
		}
		g->count[q]++;
	}
	for (m = g->queues; m != 0; m &= m - 1) {
		unsigned int q = __builtin_ctzll(m);

		g->start[q] = at[q] = pos;
		pos += g->count[q];
	}
	for (i = 0; i < n; i++) {
		if (v[i].qid == RX_DROPPED)
			continue;
		g->pf[at[v[i].qid]] = pf[i];
		g->order[at[v[i].qid]++] = i;
	}
}

/* A queue's frames pf[k], verdicts v[order[k]]: in bursts as far as they
 * go, the rest one by one with their verdicts; returns those done alone. */
static unsigned int
rx_queue_deliver(struct refnic_emu *emu, struct refnic_rx_batch *b, uint16_t qid,
		 const struct refnic_plain_frame *pf, const uint8_t *order, unsigned int n,
		 const struct rx_verdict *v, uint8_t plan)
{
	struct refnic_frame f;
	unsigned int k = 0, single = 0;
	bool open = true;

	refnic_emu_frame_plain_init(&f);
	while (k < n) {
		const struct refnic_plain_frame *fr;
		struct rx_meta meta;

		/* A frame classified to go alone skips the burst it would stop. */
		if (open && !v[order[k]].alone)
			k += rx_queue_burst(emu, b, qid, pf + k, order + k, n - k, v, plan, &open);
		if (k == n)
			break;
		fr = &pf[k];
		meta = v[order[k++]].meta;
		refnic_emu_frame_plain_set(&f, fr);
		rx_deliver_one(emu, &f, qid, &meta, fr->data,
			       RTE_MIN(fr->len, (uint32_t)RX_HDR_MAX), plan, b);
		single++;
	}
	return single;
}

/*
 * Frames classified first (queue, hash, verdicts), then delivered a queue
 * at a time: one hold, one publish, one counter add per queue per burst.
 * Returns the frames done alone.
 */
static __rte_noinline unsigned int
rx_burst_classified(struct refnic_emu *emu, uint8_t plan, const struct refnic_plain_frame *pf,
		    unsigned int n, struct refnic_rx_batch *b)
{
	struct rx_verdict v[RX_BURST_MAX];
	unsigned int i, m, single = 0;
	struct rx_by_queue g;
	uint64_t q;

	for (i = 0; i < n; i += m) {
		m = RTE_MIN(n - i, (unsigned int)RX_BURST_MAX);
		rx_burst_classify(emu, plan, pf + i, m, v);
		rx_burst_group(pf + i, v, m, &g);
		for (q = g.queues; q != 0; q &= q - 1) {
			uint16_t qid = __builtin_ctzll(q);

			single += rx_queue_deliver(emu, b, qid, &g.pf[g.start[qid]],
						   &g.order[g.start[qid]], g.count[qid], v, plan);
		}
	}
	return single;
}

static __rte_always_inline void
rx_plain(struct refnic_emu *emu, const struct refnic_plain_frame *pf, unsigned int n,
	 struct refnic_rx_batch *b)
{
	unsigned int i, single;
	struct refnic_frame f;
	uint8_t plan;

	rx_config_hold(b, emu);
	plan = emu->rx_plan;
	if (unlikely(!rx_port_bursts(emu))) {
		/* Every frame by itself, which says where it went. */
		refnic_emu_frame_plain_init(&f);
		for (i = 0; i < n; i++) {
			refnic_emu_frame_plain_set(&f, &pf[i]);
			rx_frame(emu, &f, b);
		}
		single = n;
	} else if (plan & RX_PLAN_CLASSIFY) {
		single = rx_burst_classified(emu, plan, pf, n, b);
	} else {
		single = rx_burst_unclassified(emu, plan, pf, n, b);
	}
	if (single != 0)
		emu_path_stats(emu)->rx_single_frames += single;
}

void
refnic_emu_rx_plain(struct refnic_emu *emu, const struct refnic_plain_frame *pf,
		    unsigned int n, struct refnic_rx_batch *b)
{
	rx_plain(emu, pf, n, b);
}

/* The same stages compiled for one frame, without their loops. */
void
refnic_emu_rx_plain_one(struct refnic_emu *emu, const struct refnic_plain_frame *pf,
			struct refnic_rx_batch *b)
{
	rx_plain(emu, pf, 1, b);
}

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * The device's TX engine: after a doorbell, a pass fetches the queue's
 * descriptors from host memory (a run of plain ones at a time, or a line
 * the driver pushed), checks and translates them, does the offloads asked,
 * hands the frames to the cable, and writes one completion for the pass.
 */

#include <stddef.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_prefetch.h>

#include "refnic_emu_cable.h"
#include "refnic_emu_clock.h"
#include "refnic_emu_corrupt.h"
#include "refnic_emu_dma_map.h"
#include "refnic_emu_intr.h"
#include "refnic_emu_offload.h"
#include "refnic_emu_parse.h"
#include "refnic_emu_priv.h"
#include "refnic_emu_push.h"
#include "refnic_emu_push_priv.h"
#include "refnic_emu_queue.h"
#include "refnic_emu_queue_priv.h"
#include "refnic_emu_simd.h"
#include "refnic_emu_trap.h"
#include "refnic_emu_tso.h"
#include "refnic_emu_tx_pass.h"

#define TX_BUDGET		512	/* descriptors per queue per engine pass */

/* The ring's prefetches take a line per four entries. */
_Static_assert(sizeof(struct refnic_tx_desc) * 4 == RTE_CACHE_LINE_SIZE, "four to a line");

/*
 * The common packet: one descriptor at *idx (before the tail), a frame's
 * size, no TSO. False if the descriptor there is not one.
 */
static __rte_always_inline bool
tx_gather_single(struct refnic_emu *emu, const struct refnic_tx_desc *ring, struct tx_pass *p,
		 uint16_t *idx, struct refnic_frame *f, bool *malformed)
{
	struct refnic_tx_desc d = ring[*idx];

	if (unlikely((d.flags & (REFNIC_TXD_EOP | REFNIC_TXD_CTX | REFNIC_TXD_TSO)) !=
		     REFNIC_TXD_EOP || d.len < EMU_ETH_HLEN || d.len > REFNIC_MAX_FRAME_LEN))
		return false;
	f->offload = d.flags & (REFNIC_TXD_OFFLOADS | REFNIC_TXD_TSTAMP);
	f->vlan_tci = d.vlan_tci;
	f->hdr_lens = d.hdr_lens;
	*idx = (*idx + 1) & p->mask;
	/* Mapped once: a failed map counts its DMA error once. */
	f->seg[0] = refnic_emu_dma_window_map(emu, &p->win, d.addr, d.len);
	if (unlikely(f->seg[0] == NULL)) {
		f->nb_segs = 0;
		f->len = 0;
		*malformed = true;
		return true;
	}
	p->dma_reads++;
	f->seg_len[0] = d.len;
	f->nb_segs = 1;
	f->len = d.len;
	*malformed = false;
	return true;
}

/*
 * Gather the packet starting at *idx into f. Returns false when the packet is
 * not complete yet (no EOP before tail). Sets *malformed on a bad chain.
 */
static bool
tx_gather(struct refnic_emu *emu, struct refnic_emu_txq *txq, struct tx_pass *p,
	  uint16_t *idx, struct refnic_frame *f, bool *malformed)
{
	uint16_t i = *idx, tail = p->tail, mask = p->mask, max_segs = p->max_segs;
	const struct refnic_tx_desc *ring = txq->ring;
	struct refnic_tx_desc d;
	bool ctx = false;

	/* The common packet first. */
	if (likely(i != tail) && likely(tx_gather_single(emu, ring, p, idx, f, malformed)))
		return true;
	f->nb_segs = 0;
	f->len = 0;
	f->offload = 0;
	*malformed = false;
	do {
		if (i == tail)
			return false;
		d = ring[i];
		i = (i + 1) & mask;
		if (unlikely(d.flags & REFNIC_TXD_CTX)) {
			/* TSO's context: first, once, and not a packet by itself. */
			const struct refnic_tx_ctx_desc *c = (const void *)&d;

			if (ctx || f->nb_segs != 0 || (d.flags & REFNIC_TXD_EOP))
				*malformed = true;
			ctx = true;
			f->mss = c->mss;
			f->l4_len = c->l4_len;
			max_segs = REFNIC_MAX_TSO_SEGS;
			continue;
		}
		if (f->nb_segs == 0 && !*malformed) {
			/* Offloads are what the packet's first descriptor asks. */
			f->offload = d.flags & (REFNIC_TXD_OFFLOADS | REFNIC_TXD_TSTAMP);
			f->vlan_tci = d.vlan_tci;
			f->hdr_lens = d.hdr_lens;
		}
		if (f->nb_segs == max_segs || d.len == 0) {
			*malformed = true;
			continue;
		}
		f->seg[f->nb_segs] = refnic_emu_dma_window_map(emu, &p->win, d.addr, d.len);
		if (f->seg[f->nb_segs] == NULL) {
			*malformed = true;
			continue;
		}
		p->dma_reads++;
		f->seg_len[f->nb_segs++] = d.len;
		f->len += d.len;
	} while (!(d.flags & REFNIC_TXD_EOP));
	/* A plain frame's bounds first: one test for the TSO ones. */
	if (likely(!ctx && !(f->offload & REFNIC_TXD_TSO))) {
		if (f->len < EMU_ETH_HLEN || f->len > REFNIC_MAX_FRAME_LEN)
			*malformed = true;
	} else if (!ctx || !(f->offload & REFNIC_TXD_TSO) || f->len < EMU_ETH_HLEN ||
		   f->len > REFNIC_MAX_TSO_SIZE) {
		*malformed = true;
	}
	*idx = i;
	return true;
}

/*
 * The headers of a frame two descriptors ahead of idx (which is before the
 * tail): the first look at a frame (RX filtering and parsing, at the far
 * end) misses, since whoever filled the buffer (a peer's delivery, an
 * application) did so on another core. The descriptor line four ahead too.
 */
static inline void
tx_prefetch(const struct refnic_emu_txq *txq, const struct tx_pass *p, uint16_t idx)
{
	const struct refnic_tx_desc *d = &txq->ring[(idx + 2) & p->mask];
	const void *va;

	if ((idx & 3) == 0)	/* four to a line: the next line, once */
		rte_prefetch0(&txq->ring[(idx + 4) & p->mask]);
	if (((p->tail - idx) & p->mask) <= 2 || (d->flags & REFNIC_TXD_CTX))
		return;
	va = refnic_emu_dma_window_peek(&p->win, d->addr, d->len);
	if (va == NULL)
		va = refnic_emu_dma_lookup(p->dma, d->addr, d->len);
	if (va != NULL)
		rte_prefetch0(va);
}

/*
 * A run of plain descriptors from *idx (up to max, before the tail), as a
 * NIC's fetch engine takes a burst: each read once, checked, translated,
 * and its bytes prefetched for the copy that comes when the burst is
 * handed over. Stops at the first other descriptor. A buffer that does not
 * translate is tx_malformed, as before. Frames into pf; returns the
 * descriptors consumed.
 */
static __rte_always_inline unsigned int
tx_plain_run(struct refnic_emu *emu, const struct refnic_emu_txq *txq, struct tx_pass *p,
	     uint16_t *idxp, unsigned int max, struct refnic_plain_frame *pf, unsigned int *np,
	     struct refnic_hw_queue_stats *qs)
{
	refnic_emu_tx_fetch_t fetch = refnic_emu_simd_stages[emu->simd].tx_fetch;
	unsigned int used = 0, k = *np, bad = 0, vec = 0;
	uint16_t idx = *idxp;
	uint64_t bytes = 0;

	while (used < max && idx != p->tail) {
		const struct refnic_tx_desc *d;
		uint16_t flags, len;
		uint64_t addr;
		const uint8_t *va;

		/* Whole groups while each passes (refnic_emu_simd.h); the
		 * descriptor a group stopped at is judged below, alone. */
		if (fetch != NULL) {
			unsigned int span = RTE_MIN(max - used,
						    RTE_MIN((unsigned int)((p->tail - idx) & p->mask),
							    (unsigned int)p->mask + 1 - idx));

			if (span >= REFNIC_EMU_SIMD_GROUP) {
				unsigned int got = fetch(&txq->ring[idx], span, p->dma, &p->win,
							 &pf[k], &bytes);

				used += got;
				k += got;
				vec += got;
				idx = (idx + got) & p->mask;
				if (got == span)
					continue;
			}
		}
		d = &txq->ring[idx];
		flags = d->flags;
		len = d->len;
		addr = d->addr;
		if ((flags & REFNIC_TXD_PLAIN_MASK) != REFNIC_TXD_EOP ||
		    len < EMU_ETH_HLEN || len > REFNIC_MAX_FRAME_LEN)
			break;
		if ((idx & 3) == 0)	/* four to a line: the next line, once */
			rte_prefetch0(&txq->ring[(idx + 4) & p->mask]);
		va = refnic_emu_dma_window_map(emu, &p->win, addr, len);
		idx = (idx + 1) & p->mask;
		used++;
		if (unlikely(va == NULL)) {
			bad++;
			continue;
		}
		rte_prefetch0(va);
		pf[k].data = va;
		pf[k].len = len;
		bytes += len;
		k++;
	}
	p->packets += k - *np;
	p->dma_reads += k - *np;
	p->bytes += bytes;
	qs->tx_malformed += bad;
	if (vec != 0)
		emu_path_stats(emu)->tx_vec_descs += vec;
	*np = k;
	*idxp = idx;
	return used;
}

/*
 * Does the device have what the packet's first descriptor asks of it? A
 * device without an offload (caps_off=tx_csum, vlan_insert, tso) cannot do
 * the work asked: the packet is malformed, dropped whole and counted, as
 * a NIC does a descriptor it cannot parse. With TSO the checksum flags are
 * ignored (refnic_hw.h): segmentation makes the checksums itself.
 */
static bool
tx_offloads_offered(const struct refnic_emu *emu, uint16_t offload)
{
	if ((offload & REFNIC_TXD_VLAN_INSERT) && !emu_has_cap(emu, REFNIC_CAP_VLAN_INSERT))
		return false;
	if (offload & REFNIC_TXD_TSO)
		return true;	/* TSO itself: tx_tso() */
	return !(offload & (REFNIC_TXD_IP_CSUM | REFNIC_TXD_L4_CSUM_TCP |
			    REFNIC_TXD_L4_CSUM_UDP)) ||
	       emu_has_cap(emu, REFNIC_CAP_TX_CSUM);
}

/*
 * A TSO packet's frames, each through the normal delivery; returns how many.
 * *malformed if the device cannot segment it (TSO off, or a packet out of
 * the contract's bounds). The bounds bound the work: at most
 * REFNIC_MAX_TSO_SIZE / REFNIC_MIN_TSO_MSS frames.
 */
static unsigned int
tx_tso(struct refnic_emu *emu, struct refnic_hw_queue_stats *qs, const struct refnic_frame *f,
       struct refnic_rx_batch *batch, bool *malformed)
{
	struct refnic_emu_tso t;
	struct refnic_frame seg;
	unsigned int n = 0;

	if (!emu_has_cap(emu, REFNIC_CAP_TSO) || !refnic_emu_tso_start(&t, f)) {
		*malformed = true;
		return 0;
	}
	while (refnic_emu_tso_next(&t, &seg)) {
		qs->tx_packets++;
		qs->tx_bytes += seg.len;
		refnic_emu_cable_tx(emu, &seg, batch);
		n++;
	}
	return n;
}

/* What the pass does next with the descriptors at idx. */
enum tx_step {
	TX_STEP_NEXT,		/* taken as a plain frame: on to the next */
	TX_STEP_FRAME,		/* a packet gathered into f, to send */
	TX_STEP_STOP,		/* not fetched yet, or not complete */
};

/* A pushed line at idx (push is for lone packets): a plain one joins the
 * pass's plain frames, any other is gathered. */
static __rte_always_inline enum tx_step
tx_take_pushed(struct refnic_emu *emu, struct refnic_emu_txq *txq, struct tx_pass *p,
	       const struct refnic_emu_push *push, uint16_t *idx, struct refnic_frame *f,
	       bool *malformed, struct refnic_plain_frame *pf, unsigned int *np,
	       unsigned int *done, struct refnic_rx_batch *batch)
{
	p->st->tx_push_lines++;
	/* A lone plain packet all in its line: with the pass's plain
	 * ones (the line stays put: new ones wait for this lock). */
	if (likely(refnic_emu_push_plain(push, &pf[*np], idx, p->mask))) {
		refnic_emu_push_pop(txq);
		(*done)++;
		p->packets++;
		p->bytes += pf[*np].len;
		if (++*np == TX_PLAIN_BURST)
			tx_plain_flush(emu, pf, np, batch);
		return TX_STEP_NEXT;
	}
	tx_plain_flush(emu, pf, np, batch);
	refnic_emu_push_gather(emu, push, f, idx, p->mask, malformed);
	refnic_emu_push_pop(txq);
	return TX_STEP_FRAME;
}

/* Descriptors fetched from the ring at idx: a run of plain ones joins the
 * pass's plain frames, any other packet is gathered. */
static __rte_always_inline enum tx_step
tx_take_fetched(struct refnic_emu *emu, struct refnic_emu_txq *txq, struct tx_pass *p,
		uint16_t *idx, struct refnic_frame *f, bool *malformed,
		struct refnic_plain_frame *pf, unsigned int *np, unsigned int *done,
		struct refnic_rx_batch *batch)
{
	unsigned int used;

	if (!p->fetched)
		return TX_STEP_STOP;
	/* The common packets: a run of them goes with the pass's next ones. */
	used = tx_plain_run(emu, txq, p, idx, RTE_MIN(TX_PLAIN_BURST - *np, TX_BUDGET - *done),
			    pf, np, p->qs);
	if (used != 0) {
		*done += used;
		if (*np == TX_PLAIN_BURST)
			tx_plain_flush(emu, pf, np, batch);
		return TX_STEP_NEXT;
	}
	tx_plain_flush(emu, pf, np, batch);
	/* The driver wrote these on another core: start the misses early. */
	tx_prefetch(txq, p, *idx);
	return tx_gather(emu, txq, p, idx, f, malformed) ? TX_STEP_FRAME : TX_STEP_STOP;
}

/*
 * A gathered packet: its offloads done (what the device lacks it does
 * not do, caps_off=), TSO's frames sent, or dropped and counted if
 * malformed; else stamped if asked and handed to the cable. Returns the
 * frames TSO made, which count against the pass's budget too.
 */
static __rte_always_inline unsigned int
tx_packet_send(struct refnic_emu *emu, struct tx_pass *p, struct refnic_frame *f,
	       bool malformed, struct refnic_rx_batch *batch)
{
	struct refnic_hw_queue_stats *qs = p->qs;
	unsigned int made = 0;

	/* A plain packet (no offload, TSO or stamp asked) tests once. */
	if (unlikely(f->offload != 0) && !malformed) {
		if ((f->offload & REFNIC_TXD_OFFLOADS) && !tx_offloads_offered(emu, f->offload)) {
			malformed = true;
		} else if (f->offload & REFNIC_TXD_TSO) {
			made = tx_tso(emu, qs, f, batch, &malformed);
			if (!malformed)
				return made;
		} else if (f->offload & REFNIC_TXD_OFFLOADS) {
			malformed = !refnic_emu_tx_offload(f);
		}
	}
	if (malformed) {
		qs->tx_malformed++;
		return made;
	}
	p->packets++;
	p->bytes += f->len;
	/* The time it leaves, for IEEE 1588 (REFNIC_TXD_TSTAMP). */
	if (unlikely(f->offload & REFNIC_TXD_TSTAMP) && emu_timesync(emu))
		refnic_emu_ptp_latch(emu->clock, emu->bar0, true, refnic_emu_clock_now(emu->clock));
	refnic_emu_cable_tx(emu, f, batch);
	return made;
}

unsigned int
refnic_emu_tx_service(struct refnic_emu *emu, uint16_t qid, uint64_t now,
		      uint64_t *next_due_tsc)
{
	struct refnic_emu_txq *txq = &emu->txq[qid];
	struct refnic_plain_frame pf[TX_PLAIN_BURST];
	unsigned int done = 0, np = 0, ret;
	struct refnic_rx_batch batch;
	struct refnic_frame f;
	struct tx_pass p;
	enum tx_step step;
	uint16_t idx;
	bool malformed;

	if (!tx_pass_begin(emu, qid, now, next_due_tsc, &p, &ret, true))
		return ret;
	refnic_emu_rx_batch_init(&batch);
	idx = txq->head;
	while (idx != p.tail && done < TX_BUDGET) {
		uint16_t start = idx;
		/* No call per packet while no line waits (push is for lone ones). */
		const struct refnic_emu_push *push = txq->push_cons == txq->push_prod ? NULL :
			refnic_emu_push_front(txq, idx, p.tail);

		if (push != NULL)
			step = tx_take_pushed(emu, txq, &p, push, &idx, &f, &malformed, pf, &np,
					      &done, &batch);
		else
			step = tx_take_fetched(emu, txq, &p, &idx, &f, &malformed, pf, &np,
					       &done, &batch);
		if (step == TX_STEP_NEXT)
			continue;
		if (step == TX_STEP_STOP)
			break;
		done += (idx - start) & p.mask;
		done += tx_packet_send(emu, &p, &f, malformed, &batch);
	}
	tx_plain_flush(emu, pf, &np, &batch);
	refnic_emu_cable_tx_flush(emu, &batch);
	return tx_pass_end(emu, qid, &p, idx, done, true);
}

void
refnic_emu_tx_run(struct refnic_emu *emu, uint16_t qid)
{
	struct refnic_emu_txq *txq = &emu->txq[qid];

	rte_spinlock_lock(&txq->lock);
	refnic_emu_tx_run_locked(emu, qid);
	rte_spinlock_unlock(&txq->lock);
}

uint64_t
refnic_emu_tx_take_wait(struct refnic_emu *emu, uint16_t qid)
{
	return __atomic_exchange_n(&emu->txq[qid].take_wait_max, 0, __ATOMIC_RELAXED);
}

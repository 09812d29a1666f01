/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * The push window (REFNIC_PUSH_BASE): what a line store costs, how it
 * reaches the device, and what the device makes of it.
 *
 * The driver stores a line and fences, then the trap says how many bytes it
 * stored. The platform decides how they travel: mapped write-combining, in
 * bursts of REFNIC_PUSH_BURST bytes, each costing the writer a burst of the
 * profile; uncached, one transaction per 8-byte store, each costing a BAR
 * store of the profile (numbers and sources in refnic_emu_profile.c). The device takes a copy of the
 * line as it arrived, as a NIC latches a posted write's payload, so that the
 * driver may store the next line at once.
 *
 * A line for a created TX queue is the queue's doorbell: its packet waits in
 * the queue's push FIFO and is sent without a descriptor fetch (the queue's
 * work, inline or on an engine, takes it). A line for a queue not created is
 * the driver's self-test: kept for REFNIC_ADMIN_PUSH_CHECK.
 */

#include <rte_cycles.h>
#include <rte_pause.h>

#include "refnic_emu_dma_map.h"
#include "refnic_emu_parse.h"
#include "refnic_emu_priv.h"
#include "refnic_emu_push.h"
#include "refnic_emu_queue.h"
#include "refnic_emu_queue_priv.h"
#include "refnic_emu_trap.h"
#include "refnic_emu_tx_pass.h"

/*
 * The transactions len stored bytes take on their way, *whole if each
 * burst comes in one.
 */
static uint32_t
push_xfers(const struct refnic_emu *emu, uint32_t len, bool *whole)
{
	if (unlikely(emu->faults.wc_garble)) {
		*whole = false;
		return len / 8;
	}
	if (emu->push_wc) {
		*whole = true;
		return (len + REFNIC_PUSH_BURST - 1) / REFNIC_PUSH_BURST;
	}
	*whole = len <= 8;
	return len / 8;
}

/* The len bytes at src as the device receives them, into dst. */
static void
push_arrive(const struct refnic_emu *emu, const uint8_t *src, uint32_t len, uint8_t *dst)
{
	uint32_t w;

	memcpy(dst, src, len);
	if (unlikely(emu->faults.wc_garble)) {
		/* Torn into 8-byte writes, every other one lost on the way
		 * (the header, the first, always arrives). */
		for (w = 8; w < len; w += 16)
			memset(dst + w, 0, RTE_MIN(8u, len - w));
	}
}

/* A line the device can use: a sane header that fits what was stored. */
static bool
push_valid(const struct refnic_push_hdr *h, uint32_t len, uint16_t size)
{
	return h->nb_desc >= 1 && h->nb_desc <= REFNIC_PUSH_MAX_DESC && h->tail < size &&
	       sizeof(*h) + h->nb_desc * sizeof(struct refnic_tx_desc) +
	       RTE_ALIGN_CEIL(h->inline_len, 8u) <= len;
}

/*
 * The line is the doorbell: its tail is the queue's now, in the TAIL
 * register too, so that a re-ring (REFNIC_Q_RERING) takes it again rather
 * than an older one. Pushes are not TAIL writes: no erratum misses them,
 * the doorbell counts do not count them.
 */
static __rte_always_inline void
push_ring(struct refnic_emu *emu, uint16_t qid, uint16_t tail)
{
	emu_reg_write(emu, REFNIC_REG_TXQ(qid) + REFNIC_Q_TAIL, tail);
	refnic_emu_db_take(&emu->txdb[qid], tail);
}

/*
 * The queue's line, stored at src: into its FIFO, the stored tail into
 * TAIL; queue locked. It arrives straight into its FIFO slot: a copy on
 * the stack first cost a second copy of every line.
 */
static void
push_enqueue(struct refnic_emu *emu, uint16_t qid, const uint8_t *src, uint32_t len)
{
	struct refnic_emu_txq *txq = &emu->txq[qid];
	struct refnic_push_hdr h;
	struct refnic_emu_push *p;

	/* The header is the line's first word, which always arrives whole. */
	memcpy(&h, src, sizeof(h));
	if (!push_valid(&h, len, txq->size) ||
	    txq->push_prod - txq->push_cons == REFNIC_EMU_PUSH_FIFO) {
		/* Unusable, or no room to keep it: the ring has the
		 * descriptors, fetch them as after a doorbell. */
		if (!txq->fetch_pending) {
			txq->fetch_pending = true;
			txq->fetch_ready_tsc = rte_get_tsc_cycles() + emu->desc_fetch_tsc;
		}
	} else {
		p = &txq->push[txq->push_prod % REFNIC_EMU_PUSH_FIFO];
		p->start = (h.tail - h.nb_desc) & (txq->size - 1);
		p->len = len;
		push_arrive(emu, src, len, p->line);
		txq->push_prod++;
	}
	push_ring(emu, qid, h.tail);
}

/*
 * The common line sent as it stands in the window, with exec=inline on a
 * thread with a shard of its own: one plain descriptor, the whole packet
 * inline, for the queue's next descriptor, no line waiting before it and
 * the queue running. What push_enqueue() and the queue's pass do with it,
 * without the line's copy into the FIFO: the pass ends before the trap
 * returns, so the driver cannot store the queue's next line meanwhile.
 * Its header and descriptor are read once, here, and the length sent is
 * theirs, checked against the bytes stored; a line stored again meanwhile
 * (two threads on one queue) garbles its bytes, never its bounds. False:
 * not that line, or not now; nothing done. Queue locked.
 */
static bool
push_send_now(struct refnic_emu *emu, uint16_t qid, const uint8_t *src, uint32_t len)
{
	struct refnic_emu_txq *txq = &emu->txq[qid];
	struct refnic_plain_frame pf;
	struct refnic_push_hdr h;
	struct refnic_tx_desc d;

	memcpy(&h, src, sizeof(h));
	memcpy(&d, src + sizeof(h), sizeof(d));
	if (txq->push_cons != txq->push_prod || !push_valid(&h, len, txq->size) ||
	    h.nb_desc != 1 || ((h.tail - 1) & (txq->size - 1)) != txq->head ||
	    (d.flags & REFNIC_TXD_PLAIN_MASK) != REFNIC_TXD_EOP || d.len != h.inline_len ||
	    d.len < EMU_ETH_HLEN || d.len > REFNIC_MAX_FRAME_LEN ||
	    emu_state(emu) != REFNIC_STATE_READY || emu->dataplane_paused)
		return false;
	pf.data = src + sizeof(h) + sizeof(d);
	pf.len = d.len;
	push_ring(emu, qid, h.tail);
	refnic_emu_tx_push_now(emu, qid, &pf);
	return true;
}

void
refnic_emu_push_write(struct refnic_emu *emu, uint32_t off, uint32_t val)
{
	uint32_t rel = off - REFNIC_PUSH_BASE, qid = rel / REFNIC_PUSH_STRIDE;
	struct refnic_emu_txq *txq;
	uint64_t cost;
	uint32_t xfers;
	bool whole;

	/* Whole lines from their start, in 8-byte stores; else nothing arrives.
	 * Nor does anything without the window (caps_off=push). */
	if (!emu_has_cap(emu, REFNIC_CAP_TX_PUSH) || rel % REFNIC_PUSH_STRIDE != 0 || val == 0 || val > REFNIC_PUSH_LINE_SIZE ||
	    val % 8 != 0 || qid >= emu->params.max_queues)
		return;
	xfers = push_xfers(emu, val, &whole);
	/* The transactions' cost, on the writer's CPU as a real store's (no
	 * clock read where the profile charges nothing). */
	cost = xfers * (whole && emu->push_wc ? emu->push_burst_tsc : emu->link->trap_cost_tsc);
	if (cost != 0)
		refnic_emu_store_charge(cost);

	txq = &emu->txq[qid];
	rte_spinlock_lock(&txq->lock);
	if (!txq->enabled) {
		rte_spinlock_unlock(&txq->lock);
		rte_spinlock_lock(&emu->push_probe.lock);
		emu->push_probe.qid = qid;
		emu->push_probe.len = val;
		emu->push_probe.xfers = xfers;
		emu->push_probe.whole = whole;
		push_arrive(emu, emu->bar0 + off, val, emu->push_probe.line);
		rte_spinlock_unlock(&emu->push_probe.lock);
		return;
	}
	/* Inline, the line's packet goes now, the queue still locked: taking
	 * the lock again for it cost every push a second lock. A line torn on
	 * its way (fault_wc_garble) is torn in its FIFO copy only. */
	if (emu->inline_exec && likely(!emu->faults.wc_garble) && refnic_emu_trap_own_shard() &&
	    push_send_now(emu, qid, emu->bar0 + off, val)) {
		rte_spinlock_unlock(&txq->lock);
		return;
	}
	push_enqueue(emu, qid, emu->bar0 + off, val);
	if (emu->inline_exec && refnic_emu_trap_own_shard()) {
		refnic_emu_tx_run_locked(emu, qid);
		rte_spinlock_unlock(&txq->lock);
		return;
	}
	rte_spinlock_unlock(&txq->lock);
	if (emu->inline_exec)
		refnic_emu_trap_tx(emu, qid);
	else
		refnic_emu_kick_engines(emu);
}

/*
 * The packet of a push line: its first inline_len bytes from the line, the
 * rest by DMA from its descriptors (which the line carries: no fetch).
 */
void
refnic_emu_push_gather(struct refnic_emu *emu, const struct refnic_emu_push *p,
		       struct refnic_frame *f, uint16_t *next, uint16_t mask, bool *malformed)
{
	const struct refnic_push_hdr *h = (const void *)p->line;
	const struct refnic_tx_desc *d = (const void *)(p->line + sizeof(*h));
	uint32_t skip = h->inline_len;
	unsigned int i;

	*next = (p->start + h->nb_desc) & mask;
	*malformed = false;
	f->nb_segs = 0;
	f->len = 0;
	f->offload = d[0].flags & (REFNIC_TXD_OFFLOADS | REFNIC_TXD_TSTAMP);
	f->vlan_tci = d[0].vlan_tci;
	f->hdr_lens = d[0].hdr_lens;
	if (h->nb_desc > refnic_emu_max_tx_segs(emu)) {
		*malformed = true;	/* as from the ring: more than it takes */
		return;
	}
	if (skip != 0) {
		f->seg[f->nb_segs] = (const uint8_t *)(d + h->nb_desc);
		f->seg_len[f->nb_segs++] = skip;
		f->len = skip;
	}
	for (i = 0; i < h->nb_desc; i++) {
		uint32_t len = d[i].len;

		/* EOP on the last descriptor only, no empty segment, no TSO. */
		if (len == 0 || !(d[i].flags & REFNIC_TXD_EOP) != (i + 1 < h->nb_desc) ||
		    (d[i].flags & (REFNIC_TXD_CTX | REFNIC_TXD_TSO))) {
			*malformed = true;
			return;
		}
		if (skip >= len) {
			skip -= len;
			continue;
		}
		f->seg[f->nb_segs] = refnic_emu_dma_map(emu, d[i].addr + skip, len - skip);
		if (f->seg[f->nb_segs] == NULL) {
			*malformed = true;
			return;
		}
		emu_stats(emu)->dma_reads++;
		f->seg_len[f->nb_segs++] = len - skip;
		f->len += len - skip;
		skip = 0;
	}
	/* More inline than the packet has, or a frame no wire carries. */
	if (skip != 0 || f->len < EMU_ETH_HLEN || f->len > REFNIC_MAX_FRAME_LEN)
		*malformed = true;
}

uint16_t
refnic_emu_admin_push_check(struct refnic_emu *emu, uint32_t qid, uint32_t *result)
{
	uint32_t w, ok = REFNIC_PUSH_CHECK_INTACT;

	if (qid >= emu->params.max_queues)
		return REFNIC_ADMIN_STS_INVALID;
	rte_spinlock_lock(&emu->push_probe.lock);
	if (emu->push_probe.qid != qid || emu->push_probe.len != REFNIC_PUSH_LINE_SIZE) {
		ok = 0;
	} else {
		for (w = 0; w < REFNIC_PUSH_LINE_SIZE / 8; w++) {
			uint64_t v;

			memcpy(&v, emu->push_probe.line + w * 8, sizeof(v));
			if (v != refnic_push_test_word(w))
				ok = 0;
		}
		if (emu->push_probe.whole)
			ok |= REFNIC_PUSH_CHECK_WHOLE;
		ok |= RTE_MIN(emu->push_probe.xfers, 0xffffu) << REFNIC_PUSH_CHECK_XFERS_SHIFT;
	}
	emu->push_probe.qid = UINT16_MAX;	/* one answer per pattern */
	rte_spinlock_unlock(&emu->push_probe.lock);
	*result = ok;
	return REFNIC_ADMIN_STS_OK;
}

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

#ifndef _REFNIC_EMU_PUSH_PRIV_H_
#define _REFNIC_EMU_PUSH_PRIV_H_

/*
 * A TX queue's push FIFO as its work takes the lines (refnic_emu_tx.c),
 * queue locked. Inline: a lone pushed packet went through three calls
 * here, ~30 instructions of call and return a packet.
 */

#include "refnic_emu_parse.h"
#include "refnic_emu_push.h"
#include "refnic_emu_queue.h"

/* The push line for descriptor idx, if one came (stale ones dropped). */
static __rte_always_inline const struct refnic_emu_push *
refnic_emu_push_front(struct refnic_emu_txq *txq, uint16_t idx, uint16_t tail)
{
	uint16_t mask = txq->size - 1;

	while (txq->push_cons != txq->push_prod) {
		const struct refnic_emu_push *p = &txq->push[txq->push_cons % REFNIC_EMU_PUSH_FIFO];

		if (p->start == idx)
			return p;
		/* Ahead of idx, still to come: it waits. */
		if (((p->start - idx) & mask) < ((tail - idx) & mask))
			return NULL;
		/* Behind: sent from the ring already. */
		txq->push_cons++;
	}
	return NULL;
}

static __rte_always_inline void
refnic_emu_push_pop(struct refnic_emu_txq *txq)
{
	txq->push_cons++;
}

/*
 * The common line: one descriptor asking nothing but EOP, the whole packet
 * inline, of a frame's size. What refnic_emu_push_gather() would make of
 * it, a one-segment frame without offloads, as a plain frame (its data in
 * the line); false for any other line.
 */
static __rte_always_inline bool
refnic_emu_push_plain(const struct refnic_emu_push *p, struct refnic_plain_frame *pf,
		      uint16_t *next, uint16_t mask)
{
	const struct refnic_push_hdr *h = (const void *)p->line;
	const struct refnic_tx_desc *d = (const void *)(p->line + sizeof(*h));

	if (h->nb_desc != 1 || (d->flags & REFNIC_TXD_PLAIN_MASK) != REFNIC_TXD_EOP ||
	    d->len != h->inline_len || d->len < EMU_ETH_HLEN || d->len > REFNIC_MAX_FRAME_LEN)
		return false;
	pf->data = (const uint8_t *)(d + 1);
	pf->len = d->len;
	*next = (p->start + 1) & mask;
	return true;
}

#endif /* _REFNIC_EMU_PUSH_PRIV_H_ */

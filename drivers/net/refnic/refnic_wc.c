/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * Write-combining TX push: which TX path a port runs, why, the push
 * itself, and a burst's notification (push or TAIL).
 *
 * Pushing a packet through the push window saves the device a descriptor
 * fetch, but only when the window is mapped write-combining: mapped uncached
 * (what the kernel silently gives when it cannot do WC) every 8-byte store
 * becomes its own transaction and pushing is slower than a doorbell
 * (mlx4 BlueFlame; netdev, 2014-10-01, "[PATCH net-next 0/2] Add pgtable
 * API to query if write combining is available"). So wc=auto checks before
 * it trusts:
 *  1. the platform: for an emulated BAR, what its platform reports
 *     (REFNIC_REG_PUSH_INFO). A PCI BAR would need the kernel's
 *     resource<N>_wc file and, where debugfs shows it, PAT's memtype of the
 *     BAR; refnic has no PCI bus layer, so that check lives with its test
 *     (tests/unit/test_wc.c, wc_sysfs_check()) until one calls it;
 *  2. a functional self-test: push a known pattern, ask the device
 *     (REFNIC_ADMIN_PUSH_CHECK) whether it arrived intact and in whole bursts.
 * Either failing means doorbell + fetch. wc=on pushes anyway (with a
 * warning when a check failed), wc=off never pushes. One log line says
 * which path runs and why.
 */

#include <stdio.h>
#include <string.h>

#include "refnic.h"
#include "refnic_rxtx.h"

#define WC_SELFTEST_QID		0	/* no TX queue exists yet at init */

/* The platform check of the window's mapping. */
static bool
wc_platform_check(struct refnic_adapter *ad, char *why, size_t len)
{
	if (ad->hw.trap == NULL) {
		/* A PCI bus layer would check its device's sysfs here (as
		 * tests/unit/test_wc.c's wc_sysfs_check() does); the vdev bus
		 * has none. */
		snprintf(why, len, "no platform report for this BAR");
		return false;
	}
	if (!(refnic_reg_read(&ad->hw, REFNIC_REG_PUSH_INFO) & REFNIC_PUSH_INFO_WC)) {
		snprintf(why, len, "platform maps the push window uncached");
		return false;
	}
	snprintf(why, len, "platform maps the push window write-combining");
	return true;
}

/* Push the test pattern; the device says how it arrived. */
static bool
wc_selftest(struct refnic_adapter *ad, char *why, size_t len)
{
	struct refnic_admin_cmd cmd = {
		.opcode = REFNIC_ADMIN_PUSH_CHECK,
		.value = WC_SELFTEST_QID,
	};
	uint64_t line[REFNIC_PUSH_LINE_SIZE / 8];
	uint32_t result = 0, xfers;
	unsigned int w;
	int ret;

	for (w = 0; w < RTE_DIM(line); w++)
		line[w] = refnic_push_test_word(w);
	refnic_push_write(&ad->hw, REFNIC_PUSH_LINE(WC_SELFTEST_QID), line, sizeof(line));
	ret = refnic_admin_exec(ad, &cmd, &result);
	if (ret != 0) {
		snprintf(why, len, "self-test: PUSH_CHECK failed: %s", rte_strerror(-ret));
		return false;
	}
	xfers = result >> REFNIC_PUSH_CHECK_XFERS_SHIFT;
	if (!(result & REFNIC_PUSH_CHECK_INTACT)) {
		snprintf(why, len, "self-test: the pattern arrived garbled (%u transactions)",
			 xfers);
		return false;
	}
	if (!(result & REFNIC_PUSH_CHECK_WHOLE)) {
		snprintf(why, len, "self-test: %u-byte line arrived in %u transactions, "
			 "not whole bursts", REFNIC_PUSH_LINE_SIZE, xfers);
		return false;
	}
	snprintf(why, len, "self-test passed (%u bursts)", xfers);
	return true;
}

/* Decide the port's TX path, once at init; one log line says which and why. */
void
refnic_wc_select(struct rte_eth_dev *dev)
{
	struct refnic_adapter *ad = refnic_adapter(dev);
	enum refnic_wc_mode mode = ad->args.wc;
	char platform[128] = "", test[128] = "";
	bool ok;

	ad->hw.tx_push = false;
	/* The line's format and PUSH_CHECK came with contract 1.2. */
	if (!(ad->ident.caps & REFNIC_CAP_TX_PUSH) || ad->ident.hw_version < REFNIC_HW_VERSION(1, 2)) {
		PMD_INIT_LOG(NOTICE, "port %u: TX path doorbell+fetch (wc=%s: the device has "
			     "no push window)", dev->data->port_id, refnic_wc_mode_name(mode));
		return;
	}
	if (mode == REFNIC_WC_OFF) {
		PMD_INIT_LOG(NOTICE, "port %u: TX path doorbell+fetch (wc=off)",
			     dev->data->port_id);
		return;
	}
	ok = wc_platform_check(ad, platform, sizeof(platform));
	/* wc=on runs the test too: its warning should say what is wrong. */
	if (ok || mode == REFNIC_WC_ON)
		ok = wc_selftest(ad, test, sizeof(test)) && ok;
	if (mode == REFNIC_WC_ON) {
		ad->hw.tx_push = true;
		if (ok)
			PMD_INIT_LOG(NOTICE, "port %u: TX path push (wc=on: %s, %s)",
				     dev->data->port_id, platform, test);
		else
			PMD_INIT_LOG(WARNING, "port %u: TX path push, forced by wc=on although "
				     "%s, %s: pushing may be slower than doorbell+fetch, or "
				     "corrupt frames", dev->data->port_id, platform, test);
		return;
	}
	ad->hw.tx_push = ok;
	PMD_INIT_LOG(NOTICE, "port %u: TX path %s (wc=auto: %s%s%s)", dev->data->port_id,
		     ok ? "push" : "doorbell+fetch", platform, test[0] != '\0' ? ", " : "",
		     test);
}

/*
 * The line of a one-segment packet (the common push), stored a word at a
 * time straight from the ring and the mbuf: no copy of it on the stack
 * first, no call to memcpy or memset. The same bytes as
 * refnic_tx_push()'s general case; false if it is not that packet.
 */
static __rte_always_inline bool
tx_push_one_seg(struct refnic_bar *hw, struct refnic_tx_queue *txq, const struct rte_mbuf *m,
		uint16_t start, uint16_t tail)
{
#if RTE_BYTE_ORDER == RTE_LITTLE_ENDIAN
	uint32_t inl = RTE_MIN(m->pkt_len, (uint32_t)REFNIC_PUSH_INLINE_ROOM(1));
	uint32_t words = inl / 8, rem = inl % 8, i;
	const uint8_t *data = rte_pktmbuf_mtod(m, const uint8_t *);
	const struct refnic_tx_desc *d = &txq->ring[start];
	volatile uint64_t *dst;
	uint64_t w, d0, d1;

	/* The tail word below reads the 8 bytes that end the inline part. */
	if (m->nb_segs != 1 || m->data_len < inl || inl < 8)
		return false;
	dst = refnic_push_line_begin(hw, txq->push_reg);
	/* struct refnic_push_hdr as one word: tail, nb_desc 1, inline_len
	 * (built as a struct and copied, it took 13 instructions). */
	w = (uint64_t)tail | UINT64_C(1) << 16 | (uint64_t)inl << 32;
	rte_write64_relaxed(w, &dst[0]);
	/* By memcpy, as refnic_push_write() reads: the descriptor was
	 * stored as fields (strict aliasing). */
	memcpy(&d0, d, sizeof(d0));
	memcpy(&d1, RTE_PTR_ADD(d, sizeof(d0)), sizeof(d1));
	rte_write64_relaxed(d0, &dst[1]);
	rte_write64_relaxed(d1, &dst[2]);
	/* Two words a turn, still stored in order: a word a turn cost six
	 * instructions a word in loop control and addressing. */
	for (i = 0; i + 2 <= words; i += 2) {
		uint64_t w1;

		memcpy(&w, data + i * 8, sizeof(w));
		memcpy(&w1, data + i * 8 + 8, sizeof(w1));
		rte_write64_relaxed(w, &dst[3 + i]);
		rte_write64_relaxed(w1, &dst[4 + i]);
	}
	if (i < words) {
		memcpy(&w, data + i * 8, sizeof(w));
		rte_write64_relaxed(w, &dst[3 + i]);
		i++;
	}
	if (rem != 0) {
		/* The last rem bytes, zero padded: the word ending there, shifted. */
		memcpy(&w, data + inl - 8, sizeof(w));
		rte_write64_relaxed(w >> (8 * (8 - rem)), &dst[3 + i++]);
	}
	refnic_push_line_end(hw, txq->push_reg, (3 + i) * 8);
	return true;
#else
	RTE_SET_USED(hw);
	RTE_SET_USED(txq);
	RTE_SET_USED(m);
	RTE_SET_USED(start);
	RTE_SET_USED(tail);
	return false;
#endif
}

/*
 * Push the one-packet burst m, whose descriptors are in the ring at
 * [start, tail): the line repeats them, then carries as many of the
 * packet's first bytes as fit. It is the burst's doorbell. The general
 * case (chains, a short first segment), out of the common one's way: its
 * line on the stack cost every push a frame to set up.
 */
static __rte_noinline void
tx_push_line(struct refnic_bar *hw, struct refnic_tx_queue *txq, const struct rte_mbuf *m,
	     uint16_t start, uint16_t tail)
{
	uint64_t line[REFNIC_PUSH_LINE_SIZE / 8];
	struct refnic_push_hdr *h = (struct refnic_push_hdr *)line;
	struct refnic_tx_desc *d = (struct refnic_tx_desc *)(h + 1);
	uint16_t n = m->nb_segs, i;
	uint32_t inl = RTE_MIN(m->pkt_len, (uint32_t)REFNIC_PUSH_INLINE_ROOM(n));
	uint8_t *data = (uint8_t *)(d + n);
	uint32_t len = sizeof(*h) + n * sizeof(*d) + RTE_ALIGN_CEIL(inl, 8u);
	const struct rte_mbuf *seg;
	uint32_t copied = 0;

	h->tail = tail;
	h->nb_desc = n;
	h->rsvd0 = 0;
	h->inline_len = inl;
	h->rsvd1 = 0;
	for (i = 0; i < n; i++)
		d[i] = txq->ring[(start + i) & txq->mask];
	for (seg = m; seg != NULL && copied < inl; seg = seg->next) {
		uint32_t k = RTE_MIN(inl - copied, (uint32_t)seg->data_len);

		memcpy(data + copied, rte_pktmbuf_mtod(seg, const uint8_t *), k);
		copied += k;
	}
	memset(data + inl, 0, RTE_ALIGN_CEIL(inl, 8u) - inl);
	refnic_push_write(hw, txq->push_reg, line, len);
}

/*
 * The burst's one notification, if it posted anything: a lone packet that
 * fits the push line is its own doorbell, the rest ring TAIL. The tail is
 * stored whole, for the doorbell check on another thread.
 */
void
refnic_tx_notify(struct refnic_tx_queue *txq, struct rte_mbuf **pkts, uint16_t nb_taken,
		 uint16_t tail, uint64_t bytes, uint64_t dropped)
{
	if (tail != txq->tail) {
		struct refnic_bar *hw = refnic_queue_bar(txq->port_id);

		if (hw->tx_push && nb_taken == 1 && dropped == 0 &&
		    pkts[0]->nb_segs <= REFNIC_PUSH_MAX_DESC &&
		    !(pkts[0]->ol_flags & RTE_MBUF_F_TX_TCP_SEG)) {
			if (!tx_push_one_seg(hw, txq, pkts[0], txq->tail, tail))
				tx_push_line(hw, txq, pkts[0], txq->tail, tail);
			__atomic_store_n(&txq->tail, tail, __ATOMIC_RELAXED);
			REFNIC_STAT_ADD(txq->stats.push, 1);
		} else {
			__atomic_store_n(&txq->tail, tail, __ATOMIC_RELAXED);
			refnic_reg_write(hw, txq->tail_reg, tail);
		}
	}
	REFNIC_STAT_ADD(txq->stats.packets, nb_taken - dropped);
	REFNIC_STAT_ADD(txq->stats.bytes, bytes);
	REFNIC_STAT_ADD(txq->stats.errors, dropped);
}

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

#ifndef _REFNIC_EMU_SIMD_LANES_H_
#define _REFNIC_EMU_SIMD_LANES_H_

/*
 * What the SSE and AVX2 stages share (refnic_emu_simd.h): the layouts they
 * load, and a group's lanes that passed every check but the window,
 * translated one by one through the thread's page cache.
 */

#include <assert.h>
#include <stddef.h>

#include <rte_common.h>
#include <rte_prefetch.h>

#include "refnic_emu_dma_map.h"
#include "refnic_emu_queue.h"
#include "refnic_emu_simd.h"

static_assert(sizeof(struct refnic_tx_desc) == 16 && offsetof(struct refnic_tx_desc, len) == 8 &&
	      offsetof(struct refnic_tx_desc, flags) == 10, "the TX descriptor layout");
static_assert(sizeof(struct refnic_rx_desc) == 16 &&
	      offsetof(struct refnic_rx_desc, buf_len) == 8, "the RX descriptor layout");
static_assert(sizeof(struct refnic_plain_frame) == 16 &&
	      offsetof(struct refnic_plain_frame, data) == 0 &&
	      offsetof(struct refnic_plain_frame, len) == 8, "a plain frame's layout");

/*
 * The lanes the window missed, in lane order, up to the first the cache
 * does not hold or that failed a check: lane k's buffer at addr[k] for
 * pf[k].len bytes, both as the group loaded and checked them (the ring is
 * the driver's: read again, a field could have changed since), into
 * va[k]. ok: the lanes good so far; fit: those that passed the checks; a
 * bit each. Returns ok with the lanes it translated.
 */
static __rte_noinline unsigned int
simd_lanes_cached(const uint64_t *addr, const struct refnic_plain_frame *pf,
		  const struct refnic_dma_cache *dma, struct refnic_dma_window *w, uint8_t **va,
		  unsigned int ok, unsigned int fit)
{
	unsigned int k;

	for (k = 0; k < REFNIC_EMU_SIMD_GROUP; k++) {
		if (ok & RTE_BIT32(k))
			continue;
		if (!(fit & RTE_BIT32(k)))
			break;
		va[k] = refnic_emu_dma_window_cached(dma, w, addr[k], pf[k].len);
		if (va[k] == NULL)
			break;
		ok |= RTE_BIT32(k);
	}
	return ok;
}

/* TX: the group's frames at pf, the lanes the cache translated put in. */
static __rte_always_inline unsigned int
simd_tx_lanes_cached(const uint64_t *addr, const struct refnic_dma_cache *dma,
		     struct refnic_dma_window *w, struct refnic_plain_frame *pf,
		     unsigned int ok, unsigned int fit)
{
	uint8_t *va[REFNIC_EMU_SIMD_GROUP];
	unsigned int now = simd_lanes_cached(addr, pf, dma, w, va, ok, fit), k;

	for (k = 0; k < REFNIC_EMU_SIMD_GROUP; k++)
		if ((now & ~ok) & RTE_BIT32(k))
			pf[k].data = va[k];
	return now;
}

/*
 * A TX group's end, its lanes ok passed: the lead's frames prefetched for
 * the copy, a partial lead's bytes counted (a whole group's come from the
 * stage's sum of its lanes). Returns the lead: short of a group, the stage
 * stops after it.
 */
static __rte_always_inline unsigned int
simd_tx_group_end(const struct refnic_plain_frame *pf, unsigned int ok, uint64_t *bytes)
{
	unsigned int lead = refnic_emu_simd_lead(ok), k;

	for (k = 0; k < lead; k++)
		rte_prefetch0(pf[k].data);
	if (lead != REFNIC_EMU_SIMD_GROUP)
		for (k = 0; k < lead; k++)
			*bytes += pf[k].len;
	return lead;
}

/* An RX group's end: the lead's buffers prefetched for the write; the lead. */
static __rte_always_inline unsigned int
simd_rx_group_end(uint8_t *const *dst, unsigned int ok)
{
	unsigned int lead = refnic_emu_simd_lead(ok), k;

	for (k = 0; k < lead; k++)
		rte_prefetch0_write(dst[k]);
	return lead;
}

#endif /* _REFNIC_EMU_SIMD_LANES_H_ */

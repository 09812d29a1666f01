/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

#ifndef _REFNIC_EMU_SIMD_LANES_H_
#define _REFNIC_EMU_SIMD_LANES_H_

/*
 * What the SSE and AVX2 stages share (refnic_emu_simd.h): a group's lanes
 * that passed every check but the window, translated one by one through
 * the thread's page cache, in lane order, up to the first it does not
 * hold. ok: the lanes good so far; fit: those that passed the checks; a
 * bit each. Returns ok with the lanes it translated.
 */

#include <rte_common.h>

#include "refnic_emu_dma_map.h"
#include "refnic_emu_queue.h"
#include "refnic_emu_simd.h"

/* TX: lane k's buffer is d[k]'s; its frame goes to pf[k]. */
static __rte_noinline unsigned int
simd_tx_lanes_cached(const struct refnic_tx_desc *d, const struct refnic_dma_cache *dma,
		     struct refnic_dma_window *w, struct refnic_plain_frame *pf,
		     unsigned int ok, unsigned int fit)
{
	unsigned int k;

	for (k = 0; k < REFNIC_EMU_SIMD_GROUP; k++) {
		if (ok & RTE_BIT32(k))
			continue;
		if (!(fit & RTE_BIT32(k)))
			break;
		pf[k].data = refnic_emu_dma_window_cached(dma, w, d[k].addr, d[k].len);
		if (pf[k].data == NULL)
			break;
		ok |= RTE_BIT32(k);
	}
	return ok;
}

/* RX: lane k's frame pf[k] goes to d[k]'s buffer, at dst[k]. */
static __rte_noinline unsigned int
simd_rx_lanes_cached(const struct refnic_rx_desc *d, const struct refnic_plain_frame *pf,
		     const struct refnic_dma_cache *dma, struct refnic_dma_window *w,
		     uint8_t **dst, unsigned int ok, unsigned int fit)
{
	unsigned int k;

	for (k = 0; k < REFNIC_EMU_SIMD_GROUP; k++) {
		if (ok & RTE_BIT32(k))
			continue;
		if (!(fit & RTE_BIT32(k)))
			break;
		dst[k] = refnic_emu_dma_window_cached(dma, w, d[k].addr, pf[k].len);
		if (dst[k] == NULL)
			break;
		ok |= RTE_BIT32(k);
	}
	return ok;
}

#endif /* _REFNIC_EMU_SIMD_LANES_H_ */

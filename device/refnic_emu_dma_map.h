/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

#ifndef _REFNIC_EMU_DMA_MAP_H_
#define _REFNIC_EMU_DMA_MAP_H_

/*
 * The per-frame paths' address translation, inline: a thread's page cache
 * and a pass's window in front of refnic_emu_dma.c's slow look-ups.
 */

#include <rte_branch_prediction.h>

#include "refnic_emu_dma.h"
#include "refnic_emu_priv.h"

/*
 * refnic_emu_dma.c's cache, per thread: a translation it holds, or NULL (no
 * look-up, nothing counted). A pass over many descriptors takes its cache
 * once (emu_dma_cache()) and looks up with refnic_emu_dma_lookup().
 */
static inline struct refnic_dma_cache *
emu_dma_cache(struct refnic_emu *emu)
{
	return &emu_shard(emu)->dma;
}

static inline void *
refnic_emu_dma_lookup(const struct refnic_dma_cache *dma, uint64_t iova, uint64_t len)
{
	unsigned int slot = (iova >> 21) % REFNIC_DMA_PAGE_CACHE;
	uint64_t off = iova - dma->page[slot].iova;

	if (likely(len != 0 && iova >= dma->page[slot].iova &&
		   len <= dma->page[slot].len && off <= dma->page[slot].len - len))
		return (void *)(uintptr_t)(dma->page[slot].va + off);
	return NULL;
}

static inline void *
refnic_emu_dma_map_cached(struct refnic_emu *emu, uint64_t iova, uint64_t len)
{
	return refnic_emu_dma_lookup(emu_dma_cache(emu), iova, len);
}

/* Per descriptor: a page translated and checked before costs one compare. */
static inline void *
refnic_emu_dma_map_in(struct refnic_emu *emu, const struct refnic_dma_cache *dma,
		      uint64_t iova, uint64_t len)
{
	void *va = refnic_emu_dma_lookup(dma, iova, len);

	return likely(va != NULL) ? va : refnic_emu_dma_map_slow(emu, iova, len);
}

static inline void *
refnic_emu_dma_map(struct refnic_emu *emu, uint64_t iova, uint64_t len)
{
	return refnic_emu_dma_map_in(emu, emu_dma_cache(emu), iova, len);
}

/*
 * A pass's last translation (struct refnic_dma_window, refnic_emu_dma.h):
 * a mempool's buffers share a page, so most descriptors of a pass hit it
 * with two compares, where the cache look-up costs a slot's address.
 */
static inline void *
refnic_emu_dma_window_peek(const struct refnic_dma_window *w, uint64_t iova, uint64_t len)
{
	uint64_t off = iova - w->iova;

	/* off < len: iova >= w->iova too (off wraps below it). */
	if (likely(off < w->len && len != 0 && len <= w->len - off))
		return (void *)(w->va + off);
	return NULL;
}

/* The window onto the cached page iova is on (the look-up found it there). */
static inline void
refnic_emu_dma_window_move(struct refnic_dma_window *w, const struct refnic_dma_cache *dma,
			   uint64_t iova)
{
	unsigned int slot = (iova >> 21) % REFNIC_DMA_PAGE_CACHE;

	w->iova = dma->page[slot].iova;
	w->len = dma->page[slot].len;
	w->va = dma->page[slot].va;
}

/*
 * A buffer outside the window, from the thread's page cache alone: the
 * window moves to its page, as refnic_emu_dma_window_fill() moves it. NULL
 * if the cache does not hold it (nothing counted: the caller's slow way
 * looks it up). For code that must not call out (refnic_emu_simd.h).
 */
static inline void *
refnic_emu_dma_window_cached(const struct refnic_dma_cache *dma, struct refnic_dma_window *w,
			     uint64_t iova, uint64_t len)
{
	void *va = refnic_emu_dma_lookup(dma, iova, len);

	if (va != NULL)
		refnic_emu_dma_window_move(w, dma, iova);
	return va;
}

static inline void *
refnic_emu_dma_window_map(struct refnic_emu *emu, struct refnic_dma_window *w,
			  uint64_t iova, uint64_t len)
{
	void *va = refnic_emu_dma_window_peek(w, iova, len);

	return likely(va != NULL) ? va : refnic_emu_dma_window_fill(emu, w, iova, len);
}

#endif /* _REFNIC_EMU_DMA_MAP_H_ */

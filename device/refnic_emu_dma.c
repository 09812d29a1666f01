/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * DMA: the device reaches host memory only through IOVAs the driver gave it.
 * With IOVA as VA the translation is the identity, but the device still
 * checks that the range lies in memory DPDK manages, as an IOMMU would. With
 * IOVA as PA, rte_mem_iova2virt() translates and a small page cache keeps the
 * per-packet cost down. A range that does not translate is a DMA error: the
 * access is refused and counted, never performed.
 */

#include <rte_eal.h>
#include <rte_memory.h>

#include "refnic_emu_cable.h"
#include "refnic_emu_dma.h"
#include "refnic_emu_dma_map.h"
#include "refnic_emu_priv.h"

static int
dma_add_range(const struct rte_memseg_list *msl, void *arg)
{
	struct refnic_dma_cache *dma = arg;

	if (dma->nb_ranges == REFNIC_DMA_MAX_RANGES)
		return 1;
	if (msl->base_va == NULL || msl->len == 0)
		return 0;
	dma->range[dma->nb_ranges].start = (uintptr_t)msl->base_va;
	dma->range[dma->nb_ranges].end = (uintptr_t)msl->base_va + msl->len;
	dma->nb_ranges++;
	return 0;
}

static void
dma_load_ranges(struct refnic_dma_cache *dma)
{
	dma->nb_ranges = 0;
	rte_memseg_list_walk(dma_add_range, dma);
}

/* Each engine has a cache of its own: translations are filled in on misses. */
void
refnic_emu_dma_init(struct refnic_emu *emu)
{
	unsigned int e;

	for (e = 0; e < RTE_DIM(emu->shard); e++) {
		struct refnic_dma_cache *dma = &emu->shard[e].dma;

		memset(dma, 0, sizeof(*dma));
		dma->iova_is_va = rte_eal_iova_mode() == RTE_IOVA_VA;
		dma_load_ranges(dma);
	}
}

/*
 * Are the pages of [start, end) allocated? A memseg list reserves its whole
 * range, but only allocated pages are mapped; with hugepages, memory comes
 * and goes. Without hugepages the whole list is allocated for good.
 */
static bool
dma_pages_allocated(uintptr_t start, uintptr_t end)
{
	struct rte_memseg_list *msl;	/* the fbarray API wants it writable */
	uintptr_t page;

	if (!rte_eal_has_hugepages())
		return true;
	msl = rte_mem_virt2memseg_list((void *)start);
	if (msl == NULL)
		return false;
	for (page = RTE_ALIGN_FLOOR(start, msl->page_sz); page < end; page += msl->page_sz) {
		int idx = (page - (uintptr_t)msl->base_va) / msl->page_sz;

		if (rte_fbarray_is_used(&msl->memseg_arr, idx) != 1)
			return false;
	}
	return true;
}

static bool
dma_in_ranges(struct refnic_dma_cache *dma, uintptr_t start, uintptr_t end)
{
	uintptr_t page_start, page_end;
	unsigned int i, slot;

	for (i = 0; i < dma->nb_ranges; i++)
		if (start >= dma->range[i].start && end <= dma->range[i].end)
			break;
	if (i == dma->nb_ranges)
		return false;
	/* Pages seen allocated recently are trusted without asking EAL. */
	slot = (start >> 21) % REFNIC_DMA_PAGE_CACHE;
	if (dma->page[slot].len != 0 && start >= dma->page[slot].va &&
	    end <= dma->page[slot].va + dma->page[slot].len)
		return true;
	if (!dma_pages_allocated(start, end))
		return false;
	/* The 2 MiB page, but no further than the list: a list need not end
	 * on 2 MiB (--no-huge), and what lies beyond it is no DPDK memory. */
	page_start = RTE_MAX(RTE_ALIGN_FLOOR(start, UINT64_C(1) << 21), dma->range[i].start);
	page_end = RTE_MIN(RTE_ALIGN_FLOOR(start, UINT64_C(1) << 21) + (UINT64_C(1) << 21),
			   dma->range[i].end);
	dma->page[slot].va = page_start;
	dma->page[slot].iova = page_start;	/* IOVA is VA */
	dma->page[slot].len = page_end - page_start;
	return true;
}

static void *
dma_map_va(struct refnic_dma_cache *dma, uint64_t iova, uint64_t len)
{
	uintptr_t start = (uintptr_t)iova, end = start + len;

	if (end < start)
		return NULL;
	if (!dma_in_ranges(dma, start, end)) {
		/* Memory may have been hot-plugged since we last looked. */
		dma_load_ranges(dma);
		if (!dma_in_ranges(dma, start, end))
			return NULL;
	}
	return (void *)start;
}

static void *
dma_map_pa(struct refnic_dma_cache *dma, uint64_t iova, uint64_t len)
{
	unsigned int slot = (iova >> 21) % REFNIC_DMA_PAGE_CACHE;
	const struct rte_memseg *ms;
	uint64_t off;
	void *va;

	off = iova - dma->page[slot].iova;
	if (dma->page[slot].len != 0 && iova >= dma->page[slot].iova &&
	    off + len <= dma->page[slot].len)
		return (void *)(dma->page[slot].va + off);

	va = rte_mem_iova2virt(iova);
	if (va == NULL)
		return NULL;
	ms = rte_mem_virt2memseg(va, NULL);
	if (ms == NULL)
		return NULL;
	dma->page[slot].iova = ms->iova;
	dma->page[slot].va = (uintptr_t)ms->addr;
	dma->page[slot].len = ms->len;
	off = iova - ms->iova;
	if (off + len <= ms->len)
		return va;
	/* Crosses a page: fine only if the next pages follow in both spaces. */
	if (rte_mem_iova2virt(iova + len - 1) != RTE_PTR_ADD(va, len - 1))
		return NULL;
	return va;
}

void *
refnic_emu_dma_map_slow(struct refnic_emu *emu, uint64_t iova, uint64_t len)
{
	struct refnic_dma_cache *dma = &emu_shard(emu)->dma;
	void *va;

	if (len == 0)
		return NULL;
	/* The far end's port of an shm cable: its memory, mapped here. */
	if (unlikely(emu->view_cable != NULL))
		return refnic_emu_cable_view_dma(emu, iova, len);
	if (dma->iova_is_va)
		va = dma_map_va(dma, iova, len);
	else
		va = dma_map_pa(dma, iova, len);
	if (va == NULL) {
		emu_stats(emu)->dma_errors++;
		EMU_LOG(ERR, "%s: DMA to unmapped IOVA 0x%" PRIx64 " len %" PRIu64,
			emu->name, iova, len);
	}
	return va;
}

void *
refnic_emu_dma_window_fill(struct refnic_emu *emu, struct refnic_dma_window *w, uint64_t iova,
		       uint64_t len)
{
	struct refnic_dma_cache *dma = emu_dma_cache(emu);
	void *va = refnic_emu_dma_map_in(emu, dma, iova, len);

	/* A view's translations are not cached (refnic_emu_cable_view_dma()). */
	if (va != NULL && refnic_emu_dma_lookup(dma, iova, len) == va)
		refnic_emu_dma_window_move(w, dma, iova);
	return va;
}

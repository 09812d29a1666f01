/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

#ifndef _REFNIC_EMU_DMA_H_
#define _REFNIC_EMU_DMA_H_

/*
 * The device's view of host memory (refnic_emu_dma.c). Its cache is a
 * thread's own (struct refnic_emu_shard); the inline look-up that every
 * descriptor takes, refnic_emu_dma_map(), is in refnic_emu_priv.h, beside the
 * shards it reads.
 */

#include <stdbool.h>
#include <stdint.h>

struct refnic_emu;

/*
 * The translation a pass used last, copied from the cache: valid as long
 * as the cache's entry (pages are never taken out of it). Per device: an
 * shm cable's view maps another process's IOVAs. len 0: none yet.
 */
struct refnic_dma_window {
	uint64_t iova;
	uint64_t len;
	uintptr_t va;
};

/* Host memory the device may reach: DPDK memseg lists, and recent IOVA pages. */
#define REFNIC_DMA_MAX_RANGES		32
#define REFNIC_DMA_PAGE_CACHE		64
struct refnic_dma_cache {
	bool iova_is_va;
	uint16_t nb_ranges;
	struct { uintptr_t start, end; } range[REFNIC_DMA_MAX_RANGES];
	struct { uint64_t iova; uintptr_t va; uint64_t len; } page[REFNIC_DMA_PAGE_CACHE];
	/* The windows this thread's last TX pass read from and its last RX
	 * delivery wrote to, kept for the next: a mempool's buffers stay on a
	 * page, and filling the window anew each pass was a one-frame pass's
	 * largest set-up cost. */
	struct refnic_dma_window tx_win, rx_win;
};

void refnic_emu_dma_init(struct refnic_emu *emu);
/* Host address of [iova, iova + len), or NULL (counted as a DMA error). */
void *refnic_emu_dma_map_slow(struct refnic_emu *emu, uint64_t iova, uint64_t len);
/* refnic_emu_dma_map(), and w takes the cache's page that holds the range. */
void *refnic_emu_dma_window_fill(struct refnic_emu *emu, struct refnic_dma_window *w,
			     uint64_t iova, uint64_t len);

#endif /* _REFNIC_EMU_DMA_H_ */

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

#ifndef _REFNIC_BAR_H_
#define _REFNIC_BAR_H_

/*
 * Register access. The driver reaches the device only through these, the
 * host memory it hands over as IOVAs, and interrupt eventfds.
 *
 * rte_write32() puts rte_io_wmb() before the store, so descriptors written
 * before a doorbell are visible to the device first. The rte_io_* barriers
 * order against a real device and against a software peer on another core
 * alike, so one set serves both BAR kinds.
 */

#include <string.h>

#include <rte_io.h>

#include "refnic_hw.h"

/*
 * A BAR that is not hardware (the embedded device's) comes with a write
 * trap, as a hypervisor's memory region has a write handler: called after
 * each store with its offset and value. Counting, waking, charging the
 * store's cost, running device work: all of that is the device's business.
 */
typedef void (*refnic_bar_trap_t)(void *ctx, uint32_t off, uint32_t val);

/* What the bus hands over at probe, as PCI hands mem_resource + intr_handle. */
struct refnic_bar {
	uint8_t *bar0;
	refnic_bar_trap_t trap;		/* NULL on a real BAR */
	void *trap_ctx;
	/* One-packet bursts go through the push line (refnic_wc.c decides,
	 * for the port). Never from a secondary process: the device takes its
	 * stores later, and the line may be overwritten by then. */
	bool tx_push;
	uint16_t nb_vectors;
	int vector_fd[REFNIC_MAX_VECTORS];
};

/*
 * ThreadSanitizer (devtools/test.sh, build-tsan) does not know that an
 * aligned volatile access behind rte_io_*mb() is ordered on x86: it models
 * C11 atomics only, and the emulated BAR is memory the device reads and
 * writes with acquire/release atomics. In that build the accessors are
 * spelled as the C11 operations they compile to on x86 (the same mov), so
 * that the order a register gives (descriptors before TAIL, replies before
 * a status) is the order the sanitizer checks against.
 */
#if defined(__SANITIZE_THREAD__)
#define REFNIC_BAR_C11 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define REFNIC_BAR_C11 1
#endif
#endif

static inline uint32_t
refnic_reg_read(const struct refnic_bar *hw, uint32_t off)
{
#ifdef REFNIC_BAR_C11
	return __atomic_load_n((const uint32_t *)(hw->bar0 + off), __ATOMIC_ACQUIRE);
#else
	return rte_read32(hw->bar0 + off);
#endif
}

static inline void
refnic_reg_write(struct refnic_bar *hw, uint32_t off, uint32_t val)
{
#ifdef REFNIC_BAR_C11
	__atomic_store_n((uint32_t *)(hw->bar0 + off), val, __ATOMIC_RELEASE);
#else
	rte_write32(val, hw->bar0 + off);
#endif
	if (hw->trap != NULL)
		hw->trap(hw->trap_ctx, off, val);
}

static inline void
refnic_reg_write64(struct refnic_bar *hw, uint32_t off_lo, uint64_t val)
{
	refnic_reg_write(hw, off_lo, (uint32_t)val);
	refnic_reg_write(hw, off_lo + 4, (uint32_t)(val >> 32));
}

/*
 * Store a push line (REFNIC_PUSH_LINE): 64-bit stores in order from its
 * start, then a store fence, which flushes write-combining buffers so the
 * line leaves as whole bursts. rte_io_wmb() first: the ring descriptors the
 * line repeats are visible before it. On an emulated BAR the trap then takes
 * the line as one store of len bytes (how the platform carries it is the
 * device's model: bursts when WC, one transaction per 8 bytes when not).
 */
static inline volatile uint64_t *
refnic_push_line_begin(struct refnic_bar *hw, uint32_t off)
{
	rte_io_wmb();
	return (volatile uint64_t *)(hw->bar0 + off);
}

/* The line's len bytes are stored: the fence, then the trap. */
static inline void
refnic_push_line_end(struct refnic_bar *hw, uint32_t off, uint32_t len)
{
	rte_wmb();
	if (hw->trap != NULL)
		hw->trap(hw->trap_ctx, off, len);
}

static inline void
refnic_push_write(struct refnic_bar *hw, uint32_t off, const void *src, uint32_t len)
{
	volatile uint64_t *dst = refnic_push_line_begin(hw, off);
	uint64_t word;
	uint32_t i;

	for (i = 0; i < len / 8; i++) {
		/* By memcpy: the line was written as a header and descriptors,
		 * and read through uint64_t clang -O2 may load it before those
		 * stores (strict aliasing), pushing stack garbage. */
		memcpy(&word, (const uint8_t *)src + i * 8, sizeof(word));
		rte_write64_relaxed(word, &dst[i]);
	}
	refnic_push_line_end(hw, off, len);
}

#endif /* _REFNIC_BAR_H_ */

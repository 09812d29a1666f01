/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

#ifndef _REFNIC_EMU_CABLE_SERVICES_H_
#define _REFNIC_EMU_CABLE_SERVICES_H_

/*
 * What the device's core offers its cables: the other direction of the
 * seam (refnic_emu_cable.h is what the core calls of a cable). A cable
 * (device/cable/) includes this header, the seam, its own headers and
 * DPDK's or libc's, and calls no other core function than these.
 *
 * Each is a static inline over the core function of the same suffix: no
 * call is added on the data path (a frame delivered, a batch ended). The
 * structures a cable reads or fills (struct refnic_emu, its queues and
 * counters; struct refnic_frame, refnic_plain_frame, refnic_rx_batch) are
 * the core's, from the headers below.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "refnic_emu_clock.h"
#include "refnic_emu_engine.h"
#include "refnic_emu_parse.h"
#include "refnic_emu_priv.h"

/* --- the device's state, counters and queues, as a cable reads them --- */

/* This thread's counters of emu (its shard): per frame, one load. */
static inline struct refnic_hw_stats *
refnic_emu_svc_stats(struct refnic_emu *emu)
{
	return emu_stats(emu);
}

/* This thread's shard of emu (its DMA page cache, its path counts). */
static inline struct refnic_emu_shard *
refnic_emu_svc_shard(struct refnic_emu *emu)
{
	return emu_shard(emu);
}

/* emu's state (enum refnic_hw_state), as any thread reads it. */
static inline enum refnic_hw_state
refnic_emu_svc_state(const struct refnic_emu *emu)
{
	return emu_state(emu);
}

/* The last TAIL the driver wrote to RX queue qid's doorbell. */
static inline uint32_t
refnic_emu_svc_rx_tail(const struct refnic_emu *emu, uint16_t qid)
{
	return emu_db_tail(&emu->rxdb[qid]);
}

/* Bytes at an RX queue's cq_iova (its completions, then its stamps). */
static inline uint64_t
refnic_emu_svc_rxq_cq_len(uint16_t size, bool wb, bool stamped)
{
	return refnic_emu_rxq_cq_len(size, wb, stamped);
}

/* Lay out an RX queue whose ring is mapped: completions, stamps, phases. */
static inline void
refnic_emu_svc_rxq_layout(struct refnic_emu_rxq *rxq, void *cq_area, bool wb, bool stamped)
{
	refnic_emu_rxq_layout(rxq, cq_area, wb, stamped);
}

/* --- receiving: frames a cable brings to a port (hot path) ------------- */

/* Deliver one frame to emu's RX, as if its wire brought it; false: dropped. */
static inline bool
refnic_emu_svc_rx_frame(struct refnic_emu *emu, const struct refnic_frame *f,
			struct refnic_rx_batch *b)
{
	return refnic_emu_rx_frame(emu, f, b);
}

/* Deliver n plain frames in order, in one pass where the port allows. A
 * lone one takes its own way: chosen here, the bursts' way is compiled as
 * it was (inside it, the choice changed how their loops compiled). */
static inline void
refnic_emu_svc_rx_plain(struct refnic_emu *emu, const struct refnic_plain_frame *pf,
			unsigned int n, struct refnic_rx_batch *b)
{
	if (n == 1)
		refnic_emu_rx_plain_one(emu, pf, b);
	else
		refnic_emu_rx_plain(emu, pf, n, b);
}

/* Publish the held RX queue's completions in the middle of a batch. */
static inline void
refnic_emu_svc_rx_batch_publish(struct refnic_rx_batch *b)
{
	refnic_emu_rx_batch_publish(b);
}

/* End a batch: publish what it delivered and let the RX queue go. */
static inline void
refnic_emu_svc_rx_batch_end(struct refnic_rx_batch *b)
{
	refnic_emu_rx_batch_end(b);
}

/* Raise the interrupts the batches just ended held back (this thread's). */
static inline void
refnic_emu_svc_intr_flush(void)
{
	refnic_emu_intr_flush_deferred();
}

/* Parse a frame's headers (L2 to L4) as the device's RX does. */
static inline void
refnic_emu_svc_parse(const uint8_t *p, uint32_t len, struct refnic_pkt_hdrs *h)
{
	refnic_emu_parse(p, len, h);
}

/* --- control: off the data path ----------------------------------------- */

/* The cable's end changed: look at emu's link again, report a change. */
static inline void
refnic_emu_svc_update_link(struct refnic_emu *emu)
{
	refnic_emu_update_link(emu);
}

/* Microseconds in TSC cycles, for the cable's deadlines. */
static inline uint64_t
refnic_emu_svc_us_to_tsc(uint64_t us)
{
	return refnic_emu_us_to_tsc(us);
}

/* Fail an RX (tx false) or TX queue of emu, as a device error would. */
static inline void
refnic_emu_svc_queue_fail(struct refnic_emu *emu, bool tx, uint16_t qid, const char *what)
{
	refnic_emu_queue_fail(emu, tx, qid, what);
}

/* The first engine, changing what the others read (their locks and the
 * device's queues): take, then give back. */
static inline void
refnic_emu_svc_engines_lock(struct refnic_emu *emu)
{
	refnic_emu_engine_lock_others(emu);
}

static inline void
refnic_emu_svc_engines_unlock(struct refnic_emu *emu)
{
	refnic_emu_engine_unlock_others(emu);
}

/* A device view's configuration changed: recompute how it receives. */
static inline void
refnic_emu_svc_rx_plan_update(struct refnic_emu *emu)
{
	refnic_emu_rx_plan_update(emu);
}

/* Where a device's clock lies from its BAR's start, in every process's
 * memzone (an shm view maps the far end's). */
static inline size_t
refnic_emu_svc_bar_clock_offset(void)
{
	return refnic_emu_bar_clock_offset();
}

#endif /* _REFNIC_EMU_CABLE_SERVICES_H_ */

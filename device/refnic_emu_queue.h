/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

#ifndef _REFNIC_EMU_QUEUE_H_
#define _REFNIC_EMU_QUEUE_H_

/*
 * Data queues: the TX and RX queue state the device embeds, the frames a TX
 * pass carries and the batches it delivers in, and what the trap, the
 * engine, the cables and the admin processor call of the queues' life
 * cycle (refnic_emu_queue.c), TX service (refnic_emu_tx.c) and RX delivery
 * (refnic_emu_rx_batch.c, refnic_emu_rx.c).
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_spinlock.h>

#include "refnic_emu_dma.h"
#include "refnic_emu_push.h"
#include "refnic_hw.h"

struct refnic_emu;

struct refnic_emu_txq {
	/* First, and never cleared with the rest: whoever runs the queue's
	 * work (an engine, or a trap inline) holds it. */
	rte_spinlock_t lock;
	bool enabled;
	uint16_t size;			/* entries, power of two */
	uint16_t head;			/* next descriptor to fetch */
	uint16_t cq_tail;		/* next completion slot */
	uint8_t cq_phase;
	uint32_t db_seen;		/* link write_count at last look */
	uint32_t rering_seen;		/* the same for REFNIC_Q_RERING */
	uint64_t fetch_ready_tsc;	/* descriptors visible after this */
	bool fetch_pending;
	struct refnic_tx_desc *ring;
	struct refnic_tx_cpl *cq;
	bool intr;			/* REFNIC_QCREATE_INTR: may be armed */
	uint16_t vector;
	uint16_t arm_head;		/* head when the cause was last armed */
	uint32_t push_prod, push_cons;	/* push[] entries, under lock */
	struct refnic_emu_push push[REFNIC_EMU_PUSH_FIFO];
	/* An engine's wait to take a doorbell (exec=thread): when the first
	 * one not taken yet was stored (tsc, 0: none), the longest wait. */
	uint64_t kicked_tsc;
	uint64_t take_wait_max;
} __rte_cache_aligned;	/* queues served by different lcores share no line */

struct refnic_emu_rxq {
	/* First, and never cleared with the rest: taken while frames are
	 * delivered, when more than one thread may deliver to this queue. */
	rte_spinlock_t lock;
	bool enabled;
	uint16_t size;
	uint16_t head;			/* next posted buffer to fill */
	uint16_t buf_size;
	uint16_t pub;			/* first completion not yet published */
	uint8_t pub_phase;		/* phase of the entry at pub */
	uint8_t lap_flip;		/* the phase's change at a wrap: REFNIC_PHASE_BIT,
					 * or 0 written back (a done bit) */
	uint32_t db_seen;
	uint64_t ring_iova, cq_iova;	/* as created: an shm port publishes them */
	struct refnic_rx_desc *ring;
	struct refnic_rx_cpl *cq;	/* slot i completes descriptor i: ring
					 * itself with REFNIC_QCREATE_RX_WB */
	bool intr;			/* REFNIC_QCREATE_INTR: may be armed */
	uint16_t vector;
	uint64_t *stamps;		/* REFNIC_QCREATE_RX_TSTAMP, or NULL */
} __rte_cache_aligned;	/* queues served by different lcores share no line */

/* Bytes at an RX queue's cq_iova: its completions, unless they are written
 * back into the descriptors, then its stamps, if it has them. */
static inline uint64_t
refnic_emu_rxq_cq_len(uint16_t size, bool wb, bool stamped)
{
	return (uint64_t)size * ((wb ? 0 : sizeof(struct refnic_rx_cpl)) +
				 (stamped ? sizeof(uint64_t) : 0));
}

/* Where an RX queue of size entries, its ring mapped, completes and stamps
 * (cq_area: cq_iova mapped, refnic_emu_rxq_cq_len() bytes), and its phases. */
static inline void
refnic_emu_rxq_layout(struct refnic_emu_rxq *rxq, void *cq_area, bool wb, bool stamped)
{
	rxq->cq = wb ? (struct refnic_rx_cpl *)rxq->ring : cq_area;
	rxq->stamps = !stamped ? NULL : wb ? cq_area : (uint64_t *)(rxq->cq + rxq->size);
	rxq->lap_flip = wb ? 0 : REFNIC_PHASE_BIT;
}

void refnic_emu_queues_reset(struct refnic_emu *emu);
int refnic_emu_queue_create(struct refnic_emu *emu,
			    const struct refnic_admin_queue_create *qc);
int refnic_emu_queue_destroy(struct refnic_emu *emu, uint8_t type, uint16_t qid);
unsigned int refnic_emu_tx_service(struct refnic_emu *emu, uint16_t qid,
				   uint64_t now, uint64_t *next_due_tsc);
/* A TX doorbell's work on the trapping thread (exec=inline): takes the queue's lock. */
void refnic_emu_tx_run(struct refnic_emu *emu, uint16_t qid);
/* The longest an engine took to take TX queue qid's doorbell (TAIL or
 * RERING) after its store, in TSC cycles, since the last call: how late the
 * device's own thread got its CPU, for a test that bounds a re-rung frame. */
uint64_t refnic_emu_tx_take_wait(struct refnic_emu *emu, uint16_t qid);
/* Every queue of the device held: nobody runs its queue work meanwhile. */
void refnic_emu_queues_lock(struct refnic_emu *emu);
/* Its halves: every device's TX half before any RX half (refnic_emu_lock()). */
void refnic_emu_queues_lock_tx(struct refnic_emu *emu);
void refnic_emu_queues_lock_rx(struct refnic_emu *emu);
void refnic_emu_queues_unlock(struct refnic_emu *emu);
/* emu's receive configuration, with every pass into it out (emu_rx_config_hold()). */
void refnic_emu_rx_config_write_lock(struct refnic_emu *emu);
void refnic_emu_rx_config_write_unlock(struct refnic_emu *emu);
/* RX TAIL writes are counted late, never in the trap (DESIGN.rst). */
void refnic_emu_rx_count_doorbells(struct refnic_emu *emu, uint16_t qid);
uint64_t refnic_emu_rx_uncounted(const struct refnic_emu *emu, uint16_t qid);
void refnic_emu_rx_doorbells_forget(struct refnic_emu *emu);
void refnic_emu_queues_publish_heads(struct refnic_emu *emu, uint16_t qid);
bool refnic_emu_rxq_full(struct refnic_emu *emu, uint16_t qid);
/* Stop a queue on the device's own error (status, event); every device lock held. */
void refnic_emu_queue_fail(struct refnic_emu *emu, bool tx, uint16_t qid, const char *what);

/*
 * Frames delivered in a batch: the RX queue they land on stays locked from
 * one frame to the next, and its completions are published (phase bits)
 * when the batch moves to another queue or ends. One lock and one publish
 * per batch, not per frame: the lock alone was half the per-frame cost.
 */
struct refnic_rx_batch {
	struct refnic_emu_rxq *held;	/* locked; completions published at the
					 * end (or refnic_emu_rx_batch_publish) */
	bool published;			/* some of held's, in the middle */
	struct refnic_emu *emu;		/* held's device */
	struct refnic_emu *config;	/* its receive configuration held */
	uint32_t *config_readers;	/* that hold's count (emu_rx_config_hold()) */
	/* An shm cable's view of the far end's port, which this pass
	 * delivers into (it counts in the end's delivering word). */
	struct refnic_emu *view;
	/* What frames into dev look up once: its counters (this thread's
	 * shard) and the last buffer page it wrote to. */
	struct refnic_emu *dev;
	struct refnic_hw_stats *stats;
	struct refnic_dma_window win;
	bool garble;			/* emu_may_garble() of held's device */
};
/* A pass's batch, holding nothing yet: what is read before it is written
 * (an initializer zeroed the whole struct, ~16 instructions a pass). */
static inline void
refnic_emu_rx_batch_init(struct refnic_rx_batch *b)
{
	b->held = NULL;
	b->published = false;
	b->config = NULL;
	b->view = NULL;
	b->dev = NULL;
	b->garble = false;
}
void refnic_emu_rx_batch_end(struct refnic_rx_batch *b);
/* Publish the held queue's completions in the middle, once enough wait. */
void refnic_emu_rx_batch_publish(struct refnic_rx_batch *b);

/* A frame in flight between two devices: the segments of a TX packet. */
struct refnic_frame {
	uint16_t nb_segs;
	uint32_t len;
	uint16_t offload;		/* REFNIC_TXD_* of the first descriptor */
	uint16_t vlan_tci;
	uint16_t hdr_lens;
	uint16_t mss;			/* TSO: from the context descriptor */
	uint8_t l4_len;
	/* One spare: stripping a VLAN tag can split a segment in two. */
	const uint8_t *seg[REFNIC_MAX_TSO_SEGS + 1];
	uint16_t seg_len[REFNIC_MAX_TSO_SEGS + 1];
};
_Static_assert(REFNIC_MAX_TSO_SEGS >= REFNIC_MAX_TX_SEGS, "a frame holds any packet");

#define REFNIC_TXD_OFFLOADS	(REFNIC_TXD_IP_CSUM | REFNIC_TXD_L4_CSUM_TCP | \
				 REFNIC_TXD_L4_CSUM_UDP | REFNIC_TXD_VLAN_INSERT | \
				 REFNIC_TXD_TSO)
/* A data descriptor that asks nothing but to send its bytes. */
#define REFNIC_TXD_PLAIN_MASK	(REFNIC_TXD_EOP | REFNIC_TXD_OFFLOADS | REFNIC_TXD_TSO | \
				 REFNIC_TXD_CTX | REFNIC_TXD_TSTAMP)

/* Receive a frame on emu's port; false if dropped (counted by the device). */
bool refnic_emu_rx_frame(struct refnic_emu *emu, const struct refnic_frame *f,
			 struct refnic_rx_batch *b);

/*
 * A plain frame: one segment, no offload asked (the common TX packet). A
 * TX pass gathers them and hands them over together: one call, one look at
 * the cable, per burst.
 */
struct refnic_plain_frame {
	const uint8_t *data;
	uint32_t len;
};

/* f as a plain frame: the fields a frame of one segment without offloads
 * reads, set one by one (an initializer clears the segment arrays, over a
 * kilobyte, at every call); then refnic_emu_frame_plain_set() per frame. */
static inline void
refnic_emu_frame_plain_init(struct refnic_frame *f)
{
	f->nb_segs = 1;
	f->offload = 0;
	f->vlan_tci = 0;
	f->hdr_lens = 0;
	f->mss = 0;
	f->l4_len = 0;
}

static inline void
refnic_emu_frame_plain_set(struct refnic_frame *f, const struct refnic_plain_frame *pf)
{
	f->seg[0] = pf->data;
	f->seg_len[0] = pf->len;
	f->len = pf->len;
}

/*
 * The receive plan: what a port's configuration asks of every frame, as a
 * NIC's parser is programmed when a filter or rule changes. A bit clear is
 * work not done.
 */
#define REFNIC_EMU_RX_FILTER	0x01	/* MAC and mode filters, VLAN filter */
#define REFNIC_EMU_RX_PTYPE	0x02	/* packet types past L2 */
#define REFNIC_EMU_RX_CSUM	0x04	/* checksum verdicts */
#define REFNIC_EMU_RX_RSS	0x08	/* RSS hash */
#define REFNIC_EMU_RX_FLOW	0x10	/* flow table lookup */
#define REFNIC_EMU_RX_STRIP	0x20	/* VLAN tags stripped */
#define REFNIC_EMU_RX_ALL	0x3f

/* After the receive configuration changed, under its write lock (or by
 * the only thread that reads it, an shm view's sender). */
void refnic_emu_rx_plan_update(struct refnic_emu *emu);

/* refnic_emu_rx_frame() of each, in order, in one pass where the plan and
 * the queue allow (refnic_emu_rx_burst_stats() counts those passes). */
void refnic_emu_rx_plain(struct refnic_emu *emu, const struct refnic_plain_frame *pf,
			 unsigned int n, struct refnic_rx_batch *b);
/* The same for one frame (one in flight, a pushed packet): ~70 instructions
 * less than through the bursts' loops. */
void refnic_emu_rx_plain_one(struct refnic_emu *emu, const struct refnic_plain_frame *pf,
			     struct refnic_rx_batch *b);

#endif /* _REFNIC_EMU_QUEUE_H_ */

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

#ifndef _REFNIC_EMU_CABLE_H_
#define _REFNIC_EMU_CABLE_H_

/*
 * The device's one seam to its cables, as the driver's to the device is
 * the BAR: the core calls the functions below, never a cable by name, and
 * each kind of cable (device/cable/) fills a struct refnic_emu_cable_ops.
 *
 * A cable carries the frames a port sends to the far end, and brings frames
 * from outside the process (another process, the kernel) to the port when
 * the engine polls it. Calls come from the threads that run the port's TX
 * work (tx, tx_flush), from the engine or from control paths holding the
 * device lock. What a cable may call of the core, the other way, is in
 * refnic_emu_cable_services.h.
 */

#include "refnic_emu_priv.h"

struct refnic_emu_cable;
struct refnic_plain_frame;

struct refnic_emu_cable_ops {
	/* cable=PREFIX...; NULL: any other name (the in-process kind). */
	const char *prefix;
	/* An ADDR[:PORT] of the network this kind reaches, as devargs give
	 * it (cable= after the prefix, and the kind's own keys); NULL: none. */
	bool (*addr_valid)(const char *addr);
	/* The rest of the cable= value after the prefix; the device lock held. */
	int (*attach)(struct refnic_emu *emu, const char *name, struct refnic_emu_cable **out);
	/* Frames from outside wait for the engine (rx_service) to bring them in. */
	bool brings_frames;
	/* A frame the port sent; then tx_flush once per batch. */
	void (*tx)(struct refnic_emu_cable *c, struct refnic_emu *emu,
		   const struct refnic_frame *f, struct refnic_rx_batch *b);
	/* Plain frames, in order; NULL: tx each. */
	void (*tx_plain)(struct refnic_emu_cable *c, struct refnic_emu *emu,
			 const struct refnic_plain_frame *pf, unsigned int n,
			 struct refnic_rx_batch *b);
	void (*tx_flush)(struct refnic_emu_cable *c, struct refnic_emu *emu,
			 struct refnic_rx_batch *b);
	/* Frames from outside, and far-end state changes; NULL if none. */
	unsigned int (*rx_service)(struct refnic_emu_cable *c, struct refnic_emu *emu,
				   uint64_t now);
	bool (*link_up)(const struct refnic_emu_cable *c, const struct refnic_emu *emu);
	/* Plug or pull: both ends see the link change. */
	void (*set_plugged)(struct refnic_emu_cable *c, struct refnic_emu *emu, bool plugged);
	/* This end's PHY or cable changed: whose link to look at again;
	 * NULL: this port's only. */
	void (*link_changed)(struct refnic_emu_cable *c, struct refnic_emu *emu);
	/*
	 * The engine is about to sleep: arm the wake-up and return the fd it
	 * should wait on (-1: none), or -EAGAIN if frames already wait.
	 */
	int (*doze_prepare)(struct refnic_emu_cable *c);
	void (*doze_end)(struct refnic_emu_cable *c);
	void (*detach)(struct refnic_emu_cable *c, struct refnic_emu *emu);

	/*
	 * A cable that publishes its port's receive side to a far end which
	 * delivers into it (emu->rx_published; emu->intr_cable is the cable):
	 * the device tells it what changed and asks where delivery stands.
	 */
	void (*config_publish)(struct refnic_emu *emu);
	/* Queue qid created, destroyed or reset: returns once the far end
	 * is out of its ring. */
	void (*rxq_publish)(struct refnic_emu *emu, uint16_t qid);
	void (*rx_tail)(struct refnic_emu *emu, uint16_t qid);
	uint16_t (*rx_published)(const struct refnic_emu *emu, uint16_t qid);
	uint16_t (*rx_head)(const struct refnic_emu *emu, uint16_t qid);
	/* Counters the far end's threads keep for this port. */
	void (*stats_add)(const struct refnic_emu *emu, struct refnic_hw_stats *sum);
	void (*stats_clear)(struct refnic_emu *emu);

	/*
	 * The far end's receive side as this process delivers into it: a view
	 * (a struct refnic_emu whose view_cable is the cable). A batch of
	 * frames enters queue qid, may publish where it stands in the middle,
	 * then leaves; an error found there stops the far end's queue.
	 */
	void (*view_enter)(struct refnic_emu *view, uint16_t qid);
	void (*view_publish)(struct refnic_emu *view, uint16_t qid);
	void (*view_leave)(struct refnic_emu *view, uint16_t qid);
	void (*view_queue_error)(struct refnic_emu *view, uint16_t qid);
	/* DMA into the far end's memory, and the cache line that keeps it. */
	void *(*view_dma)(struct refnic_emu *view, uint64_t iova, uint64_t len);

	/* A lock both processes take (the vectors of a port in the cable's
	 * file: emu->intr_cable). */
	void (*shared_lock)(struct refnic_emu_cable *c, rte_spinlock_t *lock);
	void (*shared_unlock)(struct refnic_emu_cable *c, rte_spinlock_t *lock);
};

struct refnic_emu_cable {
	/* Its ops in refnic_emu_cable_kinds[]: in-process cables lie in DPDK's
	 * memory, where a secondary process's doorbells reach them too, and a
	 * pointer to one process's ops table is not the other's. */
	uint8_t kind;
	/* Both ends in the primary process (loopback, NAME). */
	bool in_process;
};

/* The kinds of cable (device/cable/refnic_emu_cable_kinds.c), the last one's
 * prefix NULL. Hidden: the TX path reaches it without the GOT. */
extern const struct refnic_emu_cable_ops *const refnic_emu_cable_kinds[]
	__attribute__((visibility("hidden")));

static inline const struct refnic_emu_cable_ops *
refnic_emu_cable_ops(const struct refnic_emu_cable *c)
{
	return refnic_emu_cable_kinds[c->kind];
}

/* Prefixes of cable=... other than the in-process ones. */
#define REFNIC_EMU_CABLE_SHM_PREFIX	"shm:"
#define REFNIC_EMU_CABLE_TAP_PREFIX	"tap:"
#define REFNIC_EMU_CABLE_VXLAN_PREFIX	"vxlan:"
/* A VXLAN network identifier is 24 bits (RFC 7348). */
#define REFNIC_EMU_CABLE_VXLAN_VNI_MAX	0xffffffu

/* Devargs' check: is ADDR one the kind of cable=PREFIX... can use? */
bool refnic_emu_cable_addr_valid(const char *prefix, const char *addr);

/* refnic_emu_cable.c: the port's cable, whatever its kind. */
int refnic_emu_cable_attach(struct refnic_emu *emu, const char *spec);
void refnic_emu_cable_detach(struct refnic_emu *emu);
bool refnic_emu_cable_link_up(const struct refnic_emu *emu);
/* LINK_SET: the port's PHY on or off; both ends of the cable see the link. */
void refnic_emu_cable_set_phy(struct refnic_emu *emu, bool on);
/* Both ends in this process (loopback, NAME). */
bool refnic_emu_cable_in_process(const struct refnic_emu *emu);
/* Frames come from outside the process (TAP): an engine brings them in. */
bool refnic_emu_cable_external(const struct refnic_emu *emu);
void refnic_emu_cable_tx_each(struct refnic_emu *emu, const struct refnic_plain_frame *pf,
			      unsigned int n, struct refnic_rx_batch *b);
/* Bring in frames from outside the process; returns work done. */
unsigned int refnic_emu_cable_rx_service(struct refnic_emu *emu, uint64_t now);
void refnic_emu_cable_set_plugged(struct refnic_emu *emu, bool plugged);
/* Engine sleep: fd to wait on (-1: none), -EAGAIN if frames wait; then end. */
int refnic_emu_cable_doze_prepare(struct refnic_emu *emu);
void refnic_emu_cable_doze_end(struct refnic_emu *emu);

/*
 * The TX calls, per frame or per batch on the threads that run TX work:
 * inline, so that a frame costs one indirect call into its cable.
 */

/* Carry a frame the port sent; flush once per batch. */
static inline void
refnic_emu_cable_tx(struct refnic_emu *emu, const struct refnic_frame *f,
		    struct refnic_rx_batch *b)
{
	struct refnic_emu_cable *c = emu->cable;

	if (unlikely(__atomic_load_n(&emu->phy_down, __ATOMIC_ACQUIRE))) {
		emu_stats(emu)->cable_tx_dropped++;
		return;
	}
	refnic_emu_cable_ops(c)->tx(c, emu, f, b);
}

/* Plain frames (refnic_emu_queue.h), in order: as refnic_emu_cable_tx() each,
 * or together by a kind that looks the far end up once. */
static inline void
refnic_emu_cable_tx_plain(struct refnic_emu *emu, const struct refnic_plain_frame *pf,
			  unsigned int n, struct refnic_rx_batch *b)
{
	struct refnic_emu_cable *c = emu->cable;
	const struct refnic_emu_cable_ops *ops = refnic_emu_cable_ops(c);

	if (likely(ops->tx_plain != NULL))
		ops->tx_plain(c, emu, pf, n, b);
	else
		refnic_emu_cable_tx_each(emu, pf, n, b);
}

static inline void
refnic_emu_cable_tx_flush(struct refnic_emu *emu, struct refnic_rx_batch *b)
{
	refnic_emu_cable_ops(emu->cable)->tx_flush(emu->cable, emu, b);
}

/* A published receive side (callers check emu->rx_published). */
static inline void
refnic_emu_cable_config_publish(struct refnic_emu *emu)
{
	refnic_emu_cable_ops(emu->intr_cable)->config_publish(emu);
}

static inline void
refnic_emu_cable_rxq_publish(struct refnic_emu *emu, uint16_t qid)
{
	refnic_emu_cable_ops(emu->intr_cable)->rxq_publish(emu, qid);
}

static inline void
refnic_emu_cable_rx_tail(struct refnic_emu *emu, uint16_t qid)
{
	refnic_emu_cable_ops(emu->intr_cable)->rx_tail(emu, qid);
}

static inline uint16_t
refnic_emu_cable_rx_published(const struct refnic_emu *emu, uint16_t qid)
{
	return refnic_emu_cable_ops(emu->intr_cable)->rx_published(emu, qid);
}

static inline uint16_t
refnic_emu_cable_rx_head(const struct refnic_emu *emu, uint16_t qid)
{
	return refnic_emu_cable_ops(emu->intr_cable)->rx_head(emu, qid);
}

static inline void
refnic_emu_cable_stats_add(const struct refnic_emu *emu, struct refnic_hw_stats *sum)
{
	refnic_emu_cable_ops(emu->intr_cable)->stats_add(emu, sum);
}

static inline void
refnic_emu_cable_stats_clear(struct refnic_emu *emu)
{
	refnic_emu_cable_ops(emu->intr_cable)->stats_clear(emu);
}

/* A view of a far end's receive side (callers check view->view_cable). */
static inline void
refnic_emu_cable_view_enter(struct refnic_emu *view, uint16_t qid)
{
	refnic_emu_cable_ops(view->view_cable)->view_enter(view, qid);
}

static inline void
refnic_emu_cable_view_publish(struct refnic_emu *view, uint16_t qid)
{
	refnic_emu_cable_ops(view->view_cable)->view_publish(view, qid);
}

static inline void
refnic_emu_cable_view_leave(struct refnic_emu *view, uint16_t qid)
{
	refnic_emu_cable_ops(view->view_cable)->view_leave(view, qid);
}

static inline void
refnic_emu_cable_view_queue_error(struct refnic_emu *view, uint16_t qid)
{
	refnic_emu_cable_ops(view->view_cable)->view_queue_error(view, qid);
}

static inline void *
refnic_emu_cable_view_dma(struct refnic_emu *view, uint64_t iova, uint64_t len)
{
	return refnic_emu_cable_ops(view->view_cable)->view_dma(view, iova, len);
}

/* A lock both processes take (callers check emu->intr_cable). */
static inline void
refnic_emu_cable_shared_lock(struct refnic_emu_cable *c, rte_spinlock_t *lock)
{
	refnic_emu_cable_ops(c)->shared_lock(c, lock);
}

static inline void
refnic_emu_cable_shared_unlock(struct refnic_emu_cable *c, rte_spinlock_t *lock)
{
	refnic_emu_cable_ops(c)->shared_unlock(c, lock);
}

#endif /* _REFNIC_EMU_CABLE_H_ */

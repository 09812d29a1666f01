/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

#ifndef _REFNIC_EMU_CABLE_SHM_PORT_H_
#define _REFNIC_EMU_CABLE_SHM_PORT_H_

/*
 * What the device's queue, trap and interrupt code call of the shm cable
 * (refnic_emu_cable_shm_port.c): an shm port publishes its receive side
 * (emu->rx_published), and this process delivers into the far end's
 * through a view (emu->view_cable).
 */

#include <stdint.h>

#include <rte_spinlock.h>

struct refnic_emu;
struct refnic_cable;
struct refnic_hw_stats;

/* The receiving port's device: queue qid created, destroyed or reset
 * (returns once the far end is out of its ring), its TAIL taken. */
void refnic_shm_rxq_publish(struct refnic_emu *emu, uint16_t qid);
void refnic_shm_config_publish(struct refnic_emu *emu);
void refnic_shm_rx_tail(struct refnic_emu *emu, uint16_t qid);
/* Where the far end's deliveries into queue qid stand. */
uint16_t refnic_shm_rx_published(const struct refnic_emu *emu, uint16_t qid);
uint16_t refnic_shm_rx_head(const struct refnic_emu *emu, uint16_t qid);
/* Counters the far end's threads keep for this port. */
void refnic_shm_stats_add(const struct refnic_emu *emu, struct refnic_hw_stats *sum);
void refnic_shm_stats_clear(struct refnic_emu *emu);

/* A view: a batch of frames goes into queue qid, then is done with it;
 * the far end's queue stopped on an error this process found. */
void refnic_shm_view_enter(struct refnic_emu *view, uint16_t qid);
void refnic_shm_view_leave(struct refnic_emu *view, uint16_t qid);
/* Where delivery stands, into the file, in the middle of a pass (entered). */
void refnic_shm_view_publish(struct refnic_emu *view, uint16_t qid);
void refnic_shm_view_queue_error(struct refnic_emu *view, uint16_t qid);
/* DMA into the far end's memory, and the cache line that keeps it. */
void *refnic_shm_view_dma(struct refnic_emu *view, uint64_t iova, uint64_t len);

/* A lock both processes take (an shm port's vector locks). */
void refnic_cable_shared_lock(struct refnic_cable *c, rte_spinlock_t *lock);
void refnic_cable_shared_unlock(rte_spinlock_t *lock);

#endif /* _REFNIC_EMU_CABLE_SHM_PORT_H_ */

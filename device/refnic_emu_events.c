/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * Async events and interrupt vectors. The device writes events (link
 * changes, faults) to a ring in host memory the driver set up through the
 * AEQ registers, then raises vector 0 by signalling its eventfd, the way an
 * MSI-X message lands in a VFIO eventfd.
 */

#include <sys/eventfd.h>

#include <rte_common.h>
#include <rte_eal.h>

#include "refnic_emu_corrupt.h"
#include "refnic_emu_dma_map.h"
#include "refnic_emu_events.h"
#include "refnic_emu_priv.h"
#include "refnic_emu_remote.h"

void
refnic_emu_raise_vector(struct refnic_emu *emu, uint16_t vector)
{
	uint32_t vec = REFNIC_REG_VEC(vector);

	if (vector >= emu->nb_vectors ||
	    (emu_reg_read(emu, vec + REFNIC_VEC_CTRL) & REFNIC_VEC_CTRL_MASKED))
		return;
	/* Counted atomically: trapping threads and the engine raise it at once. */
	__atomic_fetch_add((uint32_t *)(emu->bar0 + vec + REFNIC_VEC_RAISED), 1, __ATOMIC_RELAXED);
	emu_stats(emu)->interrupts++;
	/* At once, unlike queue vectors (refnic_emu_intr.c): what it wakes is
	 * the EAL interrupt thread, which takes no device lock. */
	if (unlikely(rte_eal_process_type() == RTE_PROC_SECONDARY))
		refnic_emu_remote_raise(emu, vector);
	else
		eventfd_write(emu->vector_fd[vector], 1);
}

/* Latch or drop the event ring when the driver writes AEQ_CTRL. */
unsigned int
refnic_emu_aeq_service(struct refnic_emu *emu)
{
	struct refnic_emu_aeq *aeq = &emu->aeq;
	uint32_t writes = emu_reg_writes(emu, REFNIC_REG_AEQ_CTRL);
	struct refnic_event *ring = NULL;
	uint32_t depth;
	uint64_t iova;

	if (writes == aeq->ctrl_seen)
		return 0;
	aeq->ctrl_seen = writes;
	depth = emu_reg_read(emu, REFNIC_REG_AEQ_DEPTH);
	iova = (uint64_t)emu_reg_read(emu, REFNIC_REG_AEQ_BASE_HI) << 32 |
	       emu_reg_read(emu, REFNIC_REG_AEQ_BASE_LO);
	/* Without the event queue (caps_off=aeq) its registers latch nothing:
	 * the device never writes an event into host memory. */
	if ((emu_reg_read(emu, REFNIC_REG_AEQ_CTRL) & REFNIC_AEQ_CTRL_ENABLE) &&
	    emu_has_cap(emu, REFNIC_CAP_AEQ)) {
		if (depth < REFNIC_MIN_AEQ_DEPTH || depth > REFNIC_MAX_AEQ_DEPTH ||
		    !rte_is_power_of_2(depth))
			EMU_LOG(ERR, "%s: event queue depth %u invalid", emu->name, depth);
		else
			ring = refnic_emu_dma_map(emu, iova, depth * sizeof(*aeq->ring));
	}
	rte_spinlock_lock(&aeq->lock);
	aeq->enabled = ring != NULL;
	if (ring != NULL) {
		aeq->ring = ring;
		aeq->depth = depth;
		aeq->tail = 0;
		aeq->phase = REFNIC_PHASE_BIT;
	}
	rte_spinlock_unlock(&aeq->lock);
	return 1;
}

void
refnic_emu_post_event(struct refnic_emu *emu, uint16_t type, uint32_t data)
{
	struct refnic_emu_aeq *aeq = &emu->aeq;
	struct refnic_event *ev;
	uint32_t head;

	rte_spinlock_lock(&aeq->lock);
	head = emu_reg_read(emu, REFNIC_REG_AEQ_HEAD);
	/* A driver that does not read its events loses the newest, not the device. */
	if (!aeq->enabled || head >= aeq->depth ||
	    ((aeq->tail + 1u) & (aeq->depth - 1u)) == head) {
		rte_spinlock_unlock(&aeq->lock);
		emu_stats(emu)->events_dropped++;
		return;
	}
	ev = &aeq->ring[aeq->tail];
	ev->type = type;
	ev->data = data;
	refnic_emu_corrupt_event(emu, ev);
	__atomic_store_n(&ev->phase, aeq->phase, __ATOMIC_RELEASE);
	aeq->tail = (aeq->tail + 1) & (aeq->depth - 1);
	if (aeq->tail == 0)
		aeq->phase ^= REFNIC_PHASE_BIT;
	rte_spinlock_unlock(&aeq->lock);
	emu_stats(emu)->events_posted++;
	emu_stats(emu)->dma_writes++;
	refnic_emu_raise_vector(emu, REFNIC_ADMIN_VECTOR);
}

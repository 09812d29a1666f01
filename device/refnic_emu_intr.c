/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * Queue interrupts and their moderation, as an MSI-X NIC with per-cause
 * throttling (Intel's ITR indexes) does them:
 *  - the driver arms a queue's cause by writing its CQ_HEAD with the ARM
 *    bit and the next completion it will read; if the device has written
 *    one beyond it already, the cause fires at once (no lost wake-up);
 *  - a cause fires when completions are published while it is armed;
 *  - the vector is raised at most once per interval of its causes: a
 *    cause that fires sooner is held back until the interval since the
 *    previous raise has passed (what arrives meanwhile shares the raise);
 *    held-back raises are timers, the first engine's work;
 *  - a held raise goes out at once when the firing queue's ring is half
 *    taken (REFNIC_ITR_RING_FILL, 1.3): an interval never lets a ring
 *    overflow while the driver is still asleep; frames an RX queue drops
 *    while its cause is held anyway are counted (rx_missed_while_held);
 *  - a raise disarms every cause of the vector (one-shot), so a driver
 *    that sleeps on it gets one wake-up per arm.
 * Arming runs in the write trap, on the driver's thread: a TX cause under
 * its queue's lock, an RX cause under none (Dekker with the publishing
 * delivery, refnic_emu_intr_arm()).
 *
 * The eventfd writes (a raise, or the kick that makes the engine time a
 * held raise) wait until the thread holds no device lock: at the end of
 * a trapped store and of an engine round, refnic_emu_intr_flush_deferred().
 * Written under a lock, they wake a sleeper that may preempt the writer
 * on a shared CPU and then spin on the lock the writer still holds until
 * the scheduler's next tick: milliseconds per interrupt, measured.
 */

#include <sys/eventfd.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_eal.h>

#include "refnic_emu_cable.h"
#include "refnic_emu_intr.h"
#include "refnic_emu_priv.h"
#include "refnic_emu_queue.h"
#include "refnic_emu_remote.h"
#include "refnic_emu_trap.h"

#define INTR_DEFERRED_MAX	16	/* vectors one trap or engine round raises */

/* Signals a thread owes once it holds no device lock. */
struct intr_deferred {
	unsigned int nb_fds, nb_kicks;
	int fd[INTR_DEFERRED_MAX];
	struct refnic_emu *kick[INTR_DEFERRED_MAX];	/* its engines have a timer to set */
};

static RTE_DEFINE_PER_LCORE(struct intr_deferred, intr_deferred);
/*
 * Anything in intr_deferred? Asked at every trapped store: initial-exec,
 * one load, where the list itself (general dynamic TLS in this PIC .so)
 * costs a __tls_get_addr() call to find.
 */
static __thread bool intr_owed __attribute__((tls_model("initial-exec")));

static void
intr_raise_deferred(int fd)
{
	struct intr_deferred *d = &RTE_PER_LCORE(intr_deferred);
	unsigned int i;

	for (i = 0; i < d->nb_fds; i++)
		if (d->fd[i] == fd)
			return;
	if (d->nb_fds == RTE_DIM(d->fd)) {
		eventfd_write(fd, 1);	/* never lost, only sooner */
		return;
	}
	d->fd[d->nb_fds++] = fd;
	intr_owed = true;
}

static void
intr_kick_deferred(struct refnic_emu *emu)
{
	struct intr_deferred *d = &RTE_PER_LCORE(intr_deferred);
	unsigned int i;

	for (i = 0; i < d->nb_kicks; i++)
		if (d->kick[i] == emu)
			return;
	if (d->nb_kicks == RTE_DIM(d->kick)) {
		refnic_emu_kick_engines(emu);
		return;
	}
	d->kick[d->nb_kicks++] = emu;
	intr_owed = true;
}

void
refnic_emu_intr_flush_deferred(void)
{
	struct intr_deferred *d;

	if (likely(!intr_owed))
		return;
	intr_owed = false;
	d = &RTE_PER_LCORE(intr_deferred);
	while (d->nb_fds != 0)
		eventfd_write(d->fd[--d->nb_fds], 1);
	while (d->nb_kicks != 0)
		refnic_emu_kick_engines(d->kick[--d->nb_kicks]);
}

/*
 * A vector's lock. An shm port's vectors live in the cable's file, where
 * the far end's deliveries take their locks too: the cable's lock then,
 * which a lock its dead holder left behind does not wedge.
 */
static inline void
vec_lock(struct refnic_emu *emu, struct refnic_emu_vector *vec)
{
	if (likely(emu->intr_cable == NULL))
		rte_spinlock_lock(&vec->lock);
	else
		refnic_emu_cable_shared_lock(emu->intr_cable, &vec->lock);
}

static inline void
vec_unlock(struct refnic_emu *emu, struct refnic_emu_vector *vec)
{
	if (likely(emu->intr_cable == NULL))
		rte_spinlock_unlock(&vec->lock);
	else
		refnic_emu_cable_shared_unlock(emu->intr_cable, &vec->lock);
}

/*
 * A store to a vector's armed, pending or due_tsc, under its lock. Atomic
 * because deliveries read them without the lock (queue_intr_armed(),
 * rxq_intr_held()): a torn or compiler-split store there is a data race.
 * Relaxed: the order arm-then-publish against publish-then-look is the
 * fences' (refnic_emu_intr_arm(), rxq_publish()), not these stores'.
 */
#define vec_store(field, val)	__atomic_store_n((field), (val), __ATOMIC_RELAXED)

static uint64_t
vector_interval_tsc(struct refnic_emu *emu, uint16_t v, uint8_t causes)
{
	uint32_t base = REFNIC_REG_VEC(v), rx_us, tx_us, us = UINT32_MAX;

	if (!emu_has_cap(emu, REFNIC_CAP_INTR_MODERATION))
		return 0;	/* caps_off=moderation: the interval registers do nothing */
	rx_us = RTE_MIN(emu_reg_read(emu, base + REFNIC_VEC_RX_ITR_US), (uint32_t)REFNIC_ITR_MAX_US);
	tx_us = RTE_MIN(emu_reg_read(emu, base + REFNIC_VEC_TX_ITR_US), (uint32_t)REFNIC_ITR_MAX_US);
	/* The cause that may fire soonest decides. */
	if (causes & REFNIC_EMU_CAUSE_RX)
		us = rx_us;
	if (causes & REFNIC_EMU_CAUSE_TX)
		us = RTE_MIN(us, tx_us);
	return refnic_emu_us_to_tsc(us);
}

/*
 * Raise now if the interval allows, or if the firing queue's ring is half
 * taken (full: REFNIC_ITR_RING_FILL), else hold the raise; vector locked.
 */
static void
vector_try_raise(struct refnic_emu *emu, uint16_t v, uint64_t now, bool full)
{
	struct refnic_emu_vector *vec = &emu->intr->vec[v];
	uint32_t reg = REFNIC_REG_VEC(v);
	uint64_t gap;

	if (vec->pending == 0)
		return;
	gap = vec->raised_once ? vector_interval_tsc(emu, v, vec->pending) : 0;
	if (vec->raised_once && now - vec->last_raise_tsc < gap && !full) {
		if (vec->due_tsc == 0) {
			vec_store(&vec->due_tsc, vec->last_raise_tsc + gap);
			__atomic_store_n(&emu->intr->held, true, __ATOMIC_RELEASE);
			intr_kick_deferred(emu);
		}
		return;
	}
	if (emu_reg_read(emu, reg + REFNIC_VEC_CTRL) & REFNIC_VEC_CTRL_MASKED)
		return;		/* held until unmasked and raised again */
	/* Masked: the ids may come from the far end of an shm cable. */
	if (vec->pending & REFNIC_EMU_CAUSE_RX)
		emu->intr->count[vec->rx_qid & (REFNIC_MAX_QUEUES - 1)].rx++;
	if (vec->pending & REFNIC_EMU_CAUSE_TX)
		emu->intr->count[vec->tx_qid & (REFNIC_MAX_QUEUES - 1)].tx++;
	vec_store(&vec->armed, 0);
	vec_store(&vec->pending, 0);
	vec_store(&vec->due_tsc, 0);
	vec->last_raise_tsc = now;
	vec->raised_once = true;
	emu_reg_write(emu, reg + REFNIC_VEC_RAISED, emu_reg_read(emu, reg + REFNIC_VEC_RAISED) + 1);
	/* A secondary process's delivery: the eventfds are the primary's. */
	if (unlikely(rte_eal_process_type() == RTE_PROC_SECONDARY))
		refnic_emu_remote_raise(emu, v);
	else
		intr_raise_deferred(emu->vector_fd[v]);
}

void
refnic_emu_intr_fire(struct refnic_emu *emu, uint16_t v, uint8_t cause, bool full)
{
	struct refnic_emu_vector *vec = &emu->intr->vec[v];

	vec_lock(emu, vec);
	if (vec->armed & cause) {
		vec_store(&vec->pending, vec->pending | cause);
		vector_try_raise(emu, v, rte_get_tsc_cycles(), full);
	}
	vec_unlock(emu, vec);
}

static void
vector_arm(struct refnic_emu *emu, uint16_t v, uint8_t cause, uint16_t qid, bool arm)
{
	struct refnic_emu_vector *vec = &emu->intr->vec[v];

	vec_lock(emu, vec);
	if (arm) {
		vec_store(&vec->armed, vec->armed | cause);
		if (cause == REFNIC_EMU_CAUSE_RX)
			vec->rx_qid = qid;
		else
			vec->tx_qid = qid;
	} else {
		vec_store(&vec->armed, vec->armed & ~cause);
		vec_store(&vec->pending, vec->pending & ~cause);
		if (vec->pending == 0)
			vec_store(&vec->due_tsc, 0);
	}
	vec_unlock(emu, vec);
}

/* A write to queue qid's CQ_HEAD, in the trap. */
void
refnic_emu_intr_arm(struct refnic_emu *emu, bool tx, uint16_t qid, uint32_t val)
{
	uint16_t idx = val & REFNIC_Q_CQ_INDEX_MASK, written;
	bool arm = val & REFNIC_Q_CQ_ARM;
	uint8_t cause;
	uint16_t v;

	if (tx) {
		struct refnic_emu_txq *txq = &emu->txq[qid];

		rte_spinlock_lock(&txq->lock);
		v = txq->vector;
		written = txq->cq_tail;
		cause = REFNIC_EMU_CAUSE_TX;
		if (txq->enabled && txq->intr) {
			vector_arm(emu, v, cause, qid, arm);
			/* What the driver knows completed: the ring fills from here. */
			txq->arm_head = txq->head;
			if (arm && written != idx)
				refnic_emu_intr_fire(emu, v, cause, false);
		}
		rte_spinlock_unlock(&txq->lock);
	} else {
		struct refnic_emu_rxq *rxq = &emu->rxq[qid];

		/*
		 * No queue lock: a sender's inline delivery holds it for a whole
		 * batch, and an interrupt-driven receiver that waited for it at
		 * every arm and disarm spent a quarter of its samples spinning
		 * (perf, bench.sh intr unpaced). Deliveries publish their index,
		 * then look at the arm (rxq_publish(); over shm the far end does
		 * the same with the file's): Dekker. A queue created or destroyed
		 * meanwhile is disarmed by refnic_emu_intr_queue_reset().
		 */
		if (!__atomic_load_n(&rxq->enabled, __ATOMIC_ACQUIRE) || !rxq->intr)
			return;
		v = rxq->vector;
		cause = REFNIC_EMU_CAUSE_RX;
		vector_arm(emu, v, cause, qid, arm);
		__atomic_thread_fence(__ATOMIC_SEQ_CST);	/* armed, then pub */
		written = likely(!emu->rx_published) ?
			  __atomic_load_n(&rxq->pub, __ATOMIC_ACQUIRE) :
			  refnic_emu_cable_rx_published(emu, qid);
		/* Over shm, the far end's next delivery judges the fill. */
		if (arm && written != idx)
			refnic_emu_intr_fire(emu, v, cause, !emu->rx_published &&
					     refnic_emu_rxq_full(emu, qid));
	}
}

/* A queue created or destroyed: its cause starts disarmed. */
void
refnic_emu_intr_queue_reset(struct refnic_emu *emu, uint16_t v, bool tx)
{
	if (v != REFNIC_ADMIN_VECTOR && v < emu->nb_vectors)
		vector_arm(emu, v, tx ? REFNIC_EMU_CAUSE_TX : REFNIC_EMU_CAUSE_RX, 0, false);
}

/* Device reset: every queue vector back to its power-on state. */
void
refnic_emu_intr_reset(struct refnic_emu *emu)
{
	uint16_t v;

	for (v = 1; v < emu->nb_vectors; v++) {
		struct refnic_emu_vector *vec = &emu->intr->vec[v];

		vec_lock(emu, vec);
		vec_store(&vec->armed, 0);
		vec_store(&vec->pending, 0);
		vec_store(&vec->due_tsc, 0);
		vec->raised_once = false;
		vec_unlock(emu, vec);
		emu_reg_write(emu, REFNIC_REG_VEC(v) + REFNIC_VEC_RX_ITR_US, 0);
		emu_reg_write(emu, REFNIC_REG_VEC(v) + REFNIC_VEC_TX_ITR_US, 0);
		emu_reg_write(emu, REFNIC_REG_VEC(v) + REFNIC_VEC_CTRL, 0);
	}
}

/* The first engine's timer work: raises held back by an interval. */
unsigned int
refnic_emu_intr_service(struct refnic_emu *emu, uint64_t now, uint64_t *next_due_tsc)
{
	unsigned int work = 0;
	uint16_t v;

	if (!__atomic_load_n(&emu->intr->held, __ATOMIC_ACQUIRE))
		return 0;
	/* Cleared before the scan: a raise held meanwhile sets it again. */
	__atomic_store_n(&emu->intr->held, false, __ATOMIC_SEQ_CST);
	for (v = 1; v < emu->nb_vectors; v++) {
		struct refnic_emu_vector *vec = &emu->intr->vec[v];

		if (__atomic_load_n(&vec->due_tsc, __ATOMIC_RELAXED) == 0)
			continue;
		vec_lock(emu, vec);
		if (vec->due_tsc != 0 && now >= vec->due_tsc) {
			vec_store(&vec->due_tsc, 0);
			vector_try_raise(emu, v, now, false);
			work++;
		}
		if (vec->due_tsc != 0) {
			*next_due_tsc = RTE_MIN(*next_due_tsc, vec->due_tsc);
			__atomic_store_n(&emu->intr->held, true, __ATOMIC_RELAXED);
		}
		vec_unlock(emu, vec);
	}
	return work;
}

void
refnic_emu_intr_stats_add(const struct refnic_emu *emu, struct refnic_hw_stats *sum)
{
	uint16_t q;

	for (q = 0; q < REFNIC_MAX_QUEUES; q++) {
		sum->q[q].rx_interrupts += emu->intr->count[q].rx;
		sum->q[q].tx_interrupts += emu->intr->count[q].tx;
		sum->interrupts += emu->intr->count[q].rx + emu->intr->count[q].tx;
	}
}

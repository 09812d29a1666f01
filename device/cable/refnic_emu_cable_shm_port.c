/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * The receive side of an shm cable's ports (refnic_emu_cable_shm.h):
 *
 * - This port publishes its own (struct shm_port): its device copies the
 *   configuration frames are judged by into the file (seqlock), writes
 *   each RX queue's set-up there when it creates or destroys the queue
 *   (a seqlock too, whose writer waits for the far end to be out of the
 *   ring before it returns), and the tail at every RX TAIL write. Its
 *   queue vectors live in the file, so that the far end raises them.
 *
 * - This process delivers into the far end's through a view (struct
 *   shm_view): a refnic_emu that the device's own receive path
 *   (refnic_emu_rx_frame) runs on, with the far end's configuration
 *   copied in, its rings and buffers reached through its memory mapped
 *   here, its vectors and counters in the file. Only this process fills
 *   the far end's rings, so where delivery stands is ours (the view's
 *   queues), mirrored into the file for the far end's arming and for a
 *   process that takes our end after us.
 *
 * Whatever the far end wrote is checked before use: sizes, vectors, RSS
 * queues, IOVAs (through the memory it handed over, nothing else).
 *
 * The middle of the cable's three files: refnic_emu_cable_shm_ends.c puts
 * these ops in its table; this file calls refnic_emu_cable_shm_mem.c (the
 * far end's memory and view) and never the cable's top file.
 */

#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_malloc.h>
#include <rte_pause.h>
#include <rte_string_fns.h>

#include "refnic_emu_cable.h"
#include "refnic_emu_cable_services.h"
#include "refnic_emu_cable_shm_priv.h"

#define SHARED_LOCK_CHECK_SPINS	1024	/* before its holder is looked at */
#define SEQLOCK_TRIES		16

static inline struct shm_cable *
emu_shm(const struct refnic_emu *emu)
{
	return (struct shm_cable *)emu->cable;
}

static inline struct shm_view *
view_of(struct refnic_emu *view)
{
	return container_of(view, struct shm_view, emu);
}

static inline struct shm_cable *
view_shm(const struct refnic_emu *view)
{
	return (struct shm_cable *)view->view_cable;
}

/* --- locks both processes take ------------------------------------------ */

/* Was tag left by an attachment that is gone (our end's before us, or the
 * far end's before its last restart or death)? */
static bool
tag_orphaned(struct shm_cable *sc, uint32_t tag)
{
	uint32_t gen = __atomic_load_n(&sc->shm->end[peer_of(sc)].gen, __ATOMIC_ACQUIRE);

	if (tag == sc->my_tag)
		return false;	/* a thread of this process holds it */
	if ((tag & 1) == sc->me)
		return true;
	return tag != shm_lock_tag(peer_of(sc), gen) || !refnic_emu_cable_shm_peer_alive(sc);
}

/* Bounded wait for a word the far end clears; false if it never did. */
static bool
wait_clear(struct shm_cable *sc, const uint32_t *word, const char *what)
{
	uint64_t deadline = rte_get_tsc_cycles() + refnic_emu_svc_us_to_tsc(SHM_WAIT_MS * 1000);
	unsigned int spins = 0;

	while (__atomic_load_n(word, __ATOMIC_SEQ_CST) != 0) {
		/* Its holder may be preempted on this CPU: let it run. */
		if (++spins % 64 == 0) {
			if (!refnic_emu_cable_shm_peer_alive(sc))
				return true;
			if (rte_get_tsc_cycles() > deadline) {
				EMU_LOG(ERR, "%s: cable shm:%s: the far end stays in %s; going on",
					sc->emu->name, sc->name, what);
				return false;
			}
		}
		sched_yield();
	}
	return true;
}

/*
 * The word holds its holder's tag. A holder that died (killed between lock
 * and unlock) leaves it behind: after a while the lock is taken from it;
 * and from a far end that holds it much longer than a delivery takes
 * (hostile), too.
 */
void
refnic_emu_cable_shm_shared_lock(struct refnic_emu_cable *c, rte_spinlock_t *lock)
{
	struct shm_cable *sc = (struct shm_cable *)c;
	int *word = (int *)(uintptr_t)&lock->locked;
	uint64_t deadline = 0;
	unsigned int spins = 0;
	int free_word, held;

	for (;;) {
		free_word = 0;
		if (__atomic_compare_exchange_n(word, &free_word, (int)sc->my_tag, false,
						__ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			return;
		if (++spins % SHARED_LOCK_CHECK_SPINS != 0) {
			rte_pause();
			continue;
		}
		held = __atomic_load_n(word, __ATOMIC_RELAXED);
		if (deadline == 0)
			deadline = rte_get_tsc_cycles() +
				   refnic_emu_svc_us_to_tsc(SHM_WAIT_MS * 1000);
		if (held != 0 && (tag_orphaned(sc, (uint32_t)held) ||
				  ((uint32_t)held != sc->my_tag &&
				   rte_get_tsc_cycles() > deadline))) {
			EMU_LOG(ERR, "%s: cable shm:%s: a lock the far end held is taken back",
				sc->emu->name, sc->name);
			__atomic_compare_exchange_n(word, &held, 0, false, __ATOMIC_RELAXED,
						    __ATOMIC_RELAXED);
		}
		/* Its holder may be preempted on this CPU. */
		sched_yield();
	}
}

/* A full barrier: the far end's publish and our arm are a Dekker pair. */
void
refnic_emu_cable_shm_shared_unlock(struct refnic_emu_cable *c __rte_unused, rte_spinlock_t *lock)
{
	__atomic_store_n((int *)(uintptr_t)&lock->locked, 0, __ATOMIC_SEQ_CST);
}

/* --- this port's receive side, published -------------------------------- */

static void
config_snapshot(const struct refnic_emu *emu, struct shm_rx_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->state = refnic_emu_svc_state(emu);
	cfg->phy_down = emu->phy_down;
	cfg->nb_queues = emu->params.max_queues;
	cfg->mtu = emu->mtu;
	cfg->rx_mode = emu->rx_mode;
	cfg->features = emu->features;
	cfg->nb_mac_filters = emu->nb_mac_filters;
	cfg->nb_mc_filters = emu->nb_mc_filters;
	cfg->corrupt_what = emu->faults.corrupt_what & REFNIC_EMU_CORRUPT_RX;
	cfg->corrupt_every = emu->faults.corrupt_every;
	memcpy(cfg->mac, emu->mac, sizeof(cfg->mac));
	memcpy(cfg->mac_filter, emu->mac_filter, sizeof(cfg->mac_filter));
	memcpy(cfg->mc_filter, emu->mc_filter, sizeof(cfg->mc_filter));
	memcpy(cfg->vlan_filter, emu->vlan_filter, sizeof(cfg->vlan_filter));
	cfg->rss = emu->rss;
	cfg->flows_gen = emu->flows.gen;
}

/* Copy the configuration into the file if it changed (the engine, each pass). */
static bool
config_publish(struct shm_cable *sc)
{
	struct shm_rx_config *cfg = &sc->port->cfg, now;
	bool scribbled, flows;
	uint32_t seq;

	config_snapshot(sc->emu, &now);
	/* Changed here, or written over there (the far end may). */
	scribbled = __atomic_load_n(&cfg->seq, __ATOMIC_RELAXED) != sc->cfg_seq;
	if (memcmp(&now, &sc->cfg_last, sizeof(now)) == 0 && !scribbled)
		return false;
	/* The flow table (a quarter MiB) only when it changed. */
	flows = scribbled || now.flows_gen != sc->cfg_last.flows_gen;
	sc->cfg_last = now;
	seq = sc->cfg_seq;
	__atomic_store_n(&cfg->seq, seq | 1, __ATOMIC_RELAXED);
	rte_atomic_thread_fence(__ATOMIC_RELEASE);
	now.seq = seq | 1;
	memcpy(cfg, &now, sizeof(now));
	if (flows)
		memcpy(shm_port_flows(sc->port), &sc->emu->flows, sizeof(sc->emu->flows));
	sc->cfg_seq = (seq | 1) + 1;
	__atomic_store_n(&cfg->seq, sc->cfg_seq, __ATOMIC_RELEASE);
	/* Its engine follows our PHY (its link) without waiting for a doze. */
	refnic_emu_cable_shm_kick_peer(sc);
	return true;
}

/*
 * Right after a change (an admin command, the end of a reset; engine
 * 0, as the pass's own publish): the far end delivers by it from the
 * next frame, not from this engine's next pass. A port started by the
 * time its application's start returns is one the far end sees started.
 */
void
refnic_emu_cable_shm_config_publish(struct refnic_emu *emu)
{
	struct shm_cable *sc = emu_shm(emu);

	if (sc != NULL)
		config_publish(sc);
}

/*
 * Queue qid created (enabled) or gone: its set-up into the file, as a
 * seqlock whose odd generation keeps the far end out; once it has left the
 * ring (its busy word), the ring is ours to hand back to the driver.
 */
void
refnic_emu_cable_shm_rxq_publish(struct refnic_emu *emu, uint16_t qid)
{
	struct shm_cable *sc = emu_shm(emu);
	const struct refnic_emu_rxq *rxq = &emu->rxq[qid];
	struct shm_rxq *q;
	uint32_t gen, tail;

	if (sc == NULL)
		return;		/* at creation, before the cable */
	q = &sc->port->q[qid];
	/* Counted from our own last one, never from the file's: a far end
	 * that wrote it over must not make us publish one it already took. */
	gen = sc->q_gen[qid] + 2;
	if (gen == __atomic_load_n(&q->gen, __ATOMIC_RELAXED))
		gen += 2;
	__atomic_store_n(&q->gen, gen - 1, __ATOMIC_SEQ_CST);
	/* A far end that never leaves has its word cleared: we went on. */
	if (!wait_clear(sc, &q->busy, "an RX ring"))
		__atomic_store_n(&q->busy, 0, __ATOMIC_RELAXED);
	if (rxq->enabled && refnic_emu_cable_shm_mem_refresh(sc))
		refnic_emu_cable_shm_kick_peer(sc);	/* its engine takes our new memory */
	q->enabled = rxq->enabled;
	q->size = rxq->size;
	q->buf_size = rxq->buf_size;
	q->vector = rxq->vector;
	q->intr = rxq->intr;
	q->stamps = rxq->stamps != NULL;
	q->wb = rxq->lap_flip == 0;
	q->mem_gen = sc->port->mem_gen;
	q->ring_iova = rxq->ring_iova;
	q->cq_iova = rxq->cq_iova;
	/* The driver's thread may ring this doorbell meanwhile (the engine
	 * heals a set-up the far end wrote over) and stores the tail itself,
	 * after taking the doorbell (refnic_emu_cable_shm_rx_tail()): a store
	 * of its since our load stands, else the tail would go back and the
	 * far end deliver short of the buffers it was given. Compared by
	 * value: a store of the value we loaded is a re-ring of a tail whose
	 * doorbell we read as well. */
	tail = __atomic_load_n(&q->tail, __ATOMIC_ACQUIRE);
	__atomic_compare_exchange_n(&q->tail, &tail, refnic_emu_svc_rx_tail(emu, qid), false,
				    __ATOMIC_RELEASE, __ATOMIC_RELAXED);
	q->head = 0;
	q->phase = REFNIC_PHASE_BIT;
	q->error = 0;
	__atomic_store_n(&q->pub, 0, __ATOMIC_RELAXED);
	sc->q_gen[qid] = gen;
	__atomic_store_n(&q->gen, gen, __ATOMIC_RELEASE);
}

/*
 * Set-ups written over by the far end: ours again. A queue in use also
 * fails: where delivery stood went with the words written over, and a
 * ring published anew from its first slot while the driver waits further
 * on would never see a completion again. The driver's recovery starts it
 * afresh on both sides.
 */
static void
rxq_heal(struct shm_cable *sc)
{
	struct refnic_emu *emu = sc->emu;
	uint16_t q;

	for (q = 0; q < emu->params.max_queues; q++) {
		if (__atomic_load_n(&sc->port->q[q].gen, __ATOMIC_RELAXED) == sc->q_gen[q])
			continue;
		refnic_emu_svc_engines_lock(emu);
		if (emu->rxq[q].enabled)
			refnic_emu_svc_queue_fail(emu, false, q,
						  "the far end wrote over its set-up");
		refnic_emu_cable_shm_rxq_publish(emu, q);
		refnic_emu_svc_engines_unlock(emu);
	}
}

void
refnic_emu_cable_shm_rx_tail(struct refnic_emu *emu, uint16_t qid)
{
	struct shm_cable *sc = emu_shm(emu);

	__atomic_store_n(&sc->port->q[qid].tail, refnic_emu_svc_rx_tail(emu, qid), __ATOMIC_RELEASE);
}

uint16_t
refnic_emu_cable_shm_rx_published(const struct refnic_emu *emu, uint16_t qid)
{
	return __atomic_load_n(&emu_shm(emu)->port->q[qid].pub, __ATOMIC_SEQ_CST);
}

uint16_t
refnic_emu_cable_shm_rx_head(const struct refnic_emu *emu, uint16_t qid)
{
	return __atomic_load_n(&emu_shm(emu)->port->q[qid].head, __ATOMIC_RELAXED);
}

/* Counters the far end's threads keep for us, since the last STATS_CLEAR. */
void
refnic_emu_cable_shm_stats_add(const struct refnic_emu *emu, struct refnic_hw_stats *sum)
{
	const struct shm_cable *sc = emu_shm(emu);
	const size_t words = sizeof(*sum) / sizeof(uint64_t);
	const uint64_t *base = (const uint64_t *)sc->stats_base;
	uint64_t *out = (uint64_t *)sum;
	unsigned int e;
	size_t w;

	for (w = 0; w < words; w++) {
		uint64_t v = 0;

		for (e = 0; e < REFNIC_EMU_SHARDS; e++)
			v += __atomic_load_n(&((const uint64_t *)&sc->port->stats[e])[w],
					     __ATOMIC_RELAXED);
		/* The far end writes them: never backwards from here. */
		out[w] += v >= base[w] ? v - base[w] : 0;
	}
}

/* The far end keeps counting as it was: the clear is a baseline here. */
void
refnic_emu_cable_shm_stats_clear(struct refnic_emu *emu)
{
	struct shm_cable *sc = emu_shm(emu);

	memset(sc->stats_base, 0, sizeof(*sc->stats_base));
	refnic_emu_cable_shm_stats_add(emu, sc->stats_base);
}

/*
 * Lay our port out in the file for a new attachment, once the far end's
 * senders are out of it (they stop at our new generation), and move the
 * device's vectors there.
 */
int
refnic_emu_cable_shm_port_init(struct shm_cable *sc)
{
	struct refnic_emu *emu = sc->emu;
	struct shm_port *port = sc->port;
	uint16_t q;

	sc->stats_base = rte_zmalloc("refnic_shm_stats", sizeof(*sc->stats_base), 0);
	if (sc->stats_base == NULL)
		return -ENOMEM;
	wait_clear(sc, &sc->shm->end[peer_of(sc)].delivering, "our port");
	memset(port, 0, sizeof(*port));
	memset(sc->q_gen, 0, sizeof(sc->q_gen));
	sc->cfg_seq = 0;
	for (q = 0; q < REFNIC_MAX_QUEUES; q++)
		port->q[q].phase = REFNIC_PHASE_BIT;
	*shm_port_intr(port) = *emu->intr;
	for (q = 0; q < REFNIC_MAX_VECTORS; q++)
		rte_spinlock_init(&shm_port_intr(port)->vec[q].lock);
	config_publish(sc);
	refnic_emu_cable_shm_mem_refresh(sc);
	emu->intr = shm_port_intr(port);
	emu->intr_cable = &sc->c;
	emu->rx_published = true;
	return 0;
}

/* Queue errors the far end found delivering to us: our device reports them. */
static unsigned int
port_errors(struct shm_cable *sc)
{
	struct refnic_emu *emu = sc->emu;
	unsigned int n = 0;
	uint16_t q;

	if (__atomic_exchange_n(&sc->port->errors_pending, 0, __ATOMIC_ACQUIRE) == 0)
		return 0;
	refnic_emu_svc_engines_lock(emu);
	for (q = 0; q < REFNIC_MAX_QUEUES; q++) {
		if (__atomic_exchange_n(&sc->port->q[q].error, 0, __ATOMIC_RELAXED) == 0)
			continue;
		if (emu->rxq[q].enabled)
			refnic_emu_svc_queue_fail(emu, false, q,
						  "the far end's delivery found an error");
		n++;
	}
	refnic_emu_svc_engines_unlock(emu);
	return n;
}

unsigned int
refnic_emu_cable_shm_port_service(struct shm_cable *sc)
{
	unsigned int work = config_publish(sc);

	rxq_heal(sc);
	refnic_emu_cable_shm_mem_send(sc);
	return work + port_errors(sc);
}

/* --- the far end's receive side, as we deliver into it ------------------ */

/* The far end's configuration, if it changed and is not being changed:
 * at the start of each sender's pass. */
void
refnic_emu_cable_shm_view_config_sync(struct shm_view *sv, const struct shm_rx_config *cfg)
{
	struct refnic_emu *v = &sv->emu;
	struct shm_rx_config copy;
	unsigned int tries, i;
	uint32_t seq;

	seq = __atomic_load_n(&cfg->seq, __ATOMIC_ACQUIRE);
	if (seq == sv->cfg_seq)
		return;
	for (tries = 0; tries < SEQLOCK_TRIES; tries++) {
		seq = __atomic_load_n(&cfg->seq, __ATOMIC_ACQUIRE);
		if (seq & 1)
			continue;
		memcpy(&copy, cfg, sizeof(copy));
		/* Senders read it meanwhile: every index they take from it is
		 * bounded where it is used (refnic_emu_flow_lookup, rx_frame). */
		if (copy.flows_gen != sv->flows_gen)
			memcpy(&v->flows, shm_port_flows(container_of(cfg, struct shm_port, cfg)),
			       sizeof(v->flows));
		rte_atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&cfg->seq, __ATOMIC_RELAXED) == seq)
			break;
	}
	if (tries == SEQLOCK_TRIES) {
		refnic_emu_svc_rx_plan_update(v);	/* its flow table may be new */
		return;		/* the next batch looks again */
	}
	v->state = copy.state;
	v->phy_down = copy.phy_down != 0;
	v->mtu = copy.mtu;
	v->rx_mode = copy.rx_mode;
	v->features = copy.features;
	v->nb_mac_filters = RTE_MIN(copy.nb_mac_filters, (uint32_t)REFNIC_MAX_MAC_FILTERS);
	v->nb_mc_filters = RTE_MIN(copy.nb_mc_filters, (uint32_t)REFNIC_MAX_MC_FILTERS);
	memcpy(v->mac, copy.mac, sizeof(v->mac));
	memcpy(v->mac_filter, copy.mac_filter, sizeof(v->mac_filter));
	memcpy(v->mc_filter, copy.mc_filter, sizeof(v->mc_filter));
	memcpy(v->vlan_filter, copy.vlan_filter, sizeof(v->vlan_filter));
	v->rss = copy.rss;
	for (i = 0; i < RTE_DIM(v->rss.reta); i++)
		v->rss.reta[i] &= REFNIC_MAX_QUEUES - 1;
	v->faults.corrupt_every = copy.corrupt_every;
	v->faults.corrupt_what = copy.corrupt_every != 0 ?
				 copy.corrupt_what & REFNIC_EMU_CORRUPT_RX : 0;
	sv->flows_gen = copy.flows_gen;
	sv->cfg_seq = seq;
	refnic_emu_svc_rx_plan_update(v);
}

/*
 * Queue qid as the far end's device set it up (generation gen, even). A
 * seqlock's read: the set-up is taken whole, then kept only if gen has not
 * moved meanwhile; torn, it is read again at the next batch (q_gen kept),
 * with no error counted for a set-up that was never the far end's.
 */
static void
view_rxq_sync(struct shm_view *sv, const struct shm_rxq *q, uint16_t qid, uint32_t gen)
{
	struct refnic_emu *v = &sv->emu;
	struct refnic_emu_rxq *rxq = &v->rxq[qid];
	uint16_t size = q->size, head = q->head, buf_size = q->buf_size, vector = q->vector;
	uint64_t ring_iova = q->ring_iova, cq_iova = q->cq_iova;
	uint32_t mem_gen = q->mem_gen;
	uint8_t phase = q->phase;
	bool enabled = q->enabled != 0, intr = q->intr != 0, wb = q->wb != 0;
	bool stamped = q->stamps != 0;
	uint64_t cq_len;
	void *cq_area;

	rxq->enabled = false;
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	if (__atomic_load_n(&q->gen, __ATOMIC_RELAXED) != gen)
		return;
	if (!enabled) {
		sv->q_gen[qid] = gen;
		return;
	}
	/* Its buffers are in memory that has not come yet: look again later. */
	if ((int32_t)(mem_gen - sv->mem_gen) > 0)
		return;
	sv->q_gen[qid] = gen;
	if (size < REFNIC_MIN_RING_SIZE || size > REFNIC_MAX_RING_SIZE ||
	    !rte_is_power_of_2(size) || head >= size || buf_size < REFNIC_MIN_RX_BUF_SIZE ||
	    (intr && (vector == REFNIC_ADMIN_VECTOR || vector >= v->nb_vectors)) ||
	    (phase != 0 && phase != REFNIC_PHASE_BIT)) {
		EMU_LOG(ERR, "%s: RX queue %u set up out of the contract: not delivered to",
			v->name, qid);
		return;
	}
	rxq->ring = refnic_emu_cable_shm_view_map(sv, ring_iova, (uint64_t)size * sizeof(*rxq->ring),
						  NULL, NULL);
	/* Stamped: the receiver's clock (the view's, mapped from the far
	 * end's BAR memzone) writes them. */
	stamped = stamped && v->clock != NULL;
	cq_len = refnic_emu_svc_rxq_cq_len(size, wb, stamped);
	cq_area = cq_len != 0 ? refnic_emu_cable_shm_view_map(sv, cq_iova, cq_len, NULL, NULL) : NULL;
	if (rxq->ring == NULL || (cq_len != 0 && cq_area == NULL)) {
		refnic_emu_svc_stats(v)->dma_errors++;
		EMU_LOG(ERR, "%s: RX queue %u rings outside the memory it handed over",
			v->name, qid);
		return;
	}
	rxq->size = size;
	refnic_emu_svc_rxq_layout(rxq, cq_area, wb, stamped);
	rxq->buf_size = buf_size;
	rxq->intr = intr;
	rxq->vector = vector;
	/* Where the previous holder of our end (or nobody) left it. */
	rxq->head = head;
	rxq->pub = head;
	rxq->pub_phase = phase;
	rxq->enabled = true;
}

/*
 * A batch goes into the far end's queue qid (its view's lock held): take
 * its set-up if it changed, then its busy word (Dekker with the far end's
 * publish: it makes the generation odd, then waits for busy to clear),
 * then the tail it took.
 */
void
refnic_emu_cable_shm_view_enter(struct refnic_emu *view, uint16_t qid)
{
	struct shm_view *sv = view_of(view);
	struct shm_cable *sc = view_shm(view);
	struct shm_rxq *q = &sc->peer_port->q[qid];
	struct refnic_emu_rxq *rxq = &view->rxq[qid];
	uint32_t gen;

	gen = __atomic_load_n(&q->gen, __ATOMIC_ACQUIRE);
	if (gen & 1) {
		rxq->enabled = false;
		sv->q_gen[qid] = UINT32_MAX;
		return;
	}
	if (gen != sv->q_gen[qid])
		view_rxq_sync(sv, q, qid, gen);
	if (!rxq->enabled)
		return;
	__atomic_store_n(&q->busy, sc->my_tag, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&q->gen, __ATOMIC_SEQ_CST) != gen) {
		__atomic_store_n(&q->busy, 0, __ATOMIC_RELEASE);
		rxq->enabled = false;
		sv->q_gen[qid] = UINT32_MAX;
		return;
	}
	sv->q_busy[qid] = true;
	view->rxdb[qid].taken = __atomic_load_n(&q->tail, __ATOMIC_ACQUIRE);
}

/* Where delivery into queue qid stands, into the file. The published index
 * goes last and whole (seq_cst): the far end's arm reads it. */
void
refnic_emu_cable_shm_view_publish(struct refnic_emu *view, uint16_t qid)
{
	struct shm_rxq *q = &view_shm(view)->peer_port->q[qid];
	const struct refnic_emu_rxq *rxq = &view->rxq[qid];

	__atomic_store_n(&q->head, rxq->head, __ATOMIC_RELAXED);
	__atomic_store_n(&q->phase, rxq->pub_phase, __ATOMIC_RELAXED);
	__atomic_store_n(&q->pub, rxq->pub, __ATOMIC_SEQ_CST);
}

/* Done with queue qid: where delivery stands into the file, then out. */
void
refnic_emu_cable_shm_view_leave(struct refnic_emu *view, uint16_t qid)
{
	struct shm_view *sv = view_of(view);

	if (!sv->q_busy[qid])
		return;
	refnic_emu_cable_shm_view_publish(view, qid);
	__atomic_store_n(&view_shm(view)->peer_port->q[qid].busy, 0, __ATOMIC_RELEASE);
	sv->q_busy[qid] = false;
}

void
refnic_emu_cable_shm_view_queue_error(struct refnic_emu *view, uint16_t qid)
{
	struct shm_port *port = view_shm(view)->peer_port;

	__atomic_store_n(&port->q[qid].error, 1, __ATOMIC_RELAXED);
	__atomic_store_n(&port->errors_pending, 1, __ATOMIC_RELEASE);
	eventfd_write(view_of(view)->link.kick_fd[0], 1);
}

void *
refnic_emu_cable_shm_view_dma(struct refnic_emu *view, uint64_t iova, uint64_t len)
{
	struct refnic_dma_cache *dma = &refnic_emu_svc_shard(view)->dma;
	unsigned int slot = (iova >> 21) % REFNIC_DMA_PAGE_CACHE;
	uint64_t chunk_iova, chunk_len;
	void *va;

	va = refnic_emu_cable_shm_view_map(view_of(view), iova, len, &chunk_iova, &chunk_len);
	if (va == NULL) {
		refnic_emu_svc_stats(view)->dma_errors++;
		EMU_LOG(ERR, "%s: DMA to IOVA 0x%" PRIx64 " len %" PRIu64
			" outside the memory it handed over", view->name, iova, len);
		return NULL;
	}
	dma->page[slot].iova = chunk_iova;
	dma->page[slot].va = (uintptr_t)va - (iova - chunk_iova);
	dma->page[slot].len = chunk_len;
	return va;
}

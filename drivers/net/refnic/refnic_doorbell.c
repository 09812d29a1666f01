/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * Missed-doorbell recovery, for devices with REFNIC_ERRATA_MISSED_DOORBELL:
 * now and then they miss a TAIL write, and the work it posted waits until
 * the next one, which may never come (a TX burst whose answer is awaited,
 * an RX ring the device thinks empty).
 *
 * ionic (netdev, 2024-06-18, "ionic: rework fix for doorbell miss"): the
 * first fix put a timer on every queue, re-armed from
 * the poll loop, and its cost alone pushed ping-pong p99 to ~900 us. Here,
 * as in the fix that replaced it, one EAL alarm per port looks at every
 * started queue every half deadline (refnic_db_alarm.c; this file
 * has the rule it applies), and re-rings those that had posted
 * work and made no progress for a whole deadline. The bursts do nothing
 * for it: it reads the indexes and packet counts they keep anyway (TX tail
 * and completions, RX tail and next completion). On by default only where the device reports
 * the erratum; doorbell_check=on|off forces it.
 *
 * The re-ring is a store to the queue's REFNIC_Q_RERING: the device takes
 * TAIL again, whatever value the burst stored last. It carries no value, so
 * it cannot race the burst on another lcore. Writing TAIL again from here,
 * with the last tail read from the queue, could: the burst may store a newer
 * tail between our read and our store, the device consume past our value,
 * and then take our older one as a whole ring of new descriptors.
 *
 * A queue still stalled a run after its re-ring may be one the device
 * stopped on an error (REFNIC_Q_STATUS_ERROR) whose event never came; its
 * status is read once per stall, and such a queue fails as the event would
 * have failed it.
 *
 * The admin queue has one writer at a time (its lock), so its wait simply
 * writes AQ_TAIL again when the device has not fetched the command by the
 * deadline (AQ_HEAD says what it fetched). That costs nothing (the wait
 * polls anyway) and without it a missed admin doorbell fails the port, so
 * it is on wherever the device reports the erratum, doorbell_check=off or
 * not: that devarg is about the periodic check of the data queues.
 */

#include <rte_cycles.h>

#include "refnic.h"
#include "refnic_doorbell.h"
#include "refnic_rxtx.h"

/* The check runs twice per deadline: a queue seen stalled at two runs in a
 * row, with nothing moved, has been stalled for at least half a deadline and
 * at most a whole one. */
#define DB_CHECKS_PER_DEADLINE	2

void
refnic_db_check_init(struct refnic_adapter *ad)
{
	struct refnic_db_check *c = &ad->db;
	uint32_t errata = refnic_reg_read(&ad->hw, REFNIC_REG_ERRATA);
	uint32_t version = refnic_reg_read(&ad->hw, REFNIC_REG_VERSION);
	bool erratum = errata & REFNIC_ERRATA_MISSED_DOORBELL;
	char mode[16];

	refnic_db_check_mode_format(ad->args.db_check.mode, mode, sizeof(mode));
	c->deadline_us = ad->args.db_check.deadline_us;
	switch (ad->args.db_check.mode) {
	case REFNIC_DB_CHECK_ON:
		c->enabled = true;
		break;
	case REFNIC_DB_CHECK_OFF:
		c->enabled = false;
		break;
	default:
		c->enabled = erratum;
		break;
	}
	/* REFNIC_Q_RERING came with contract 1.1. */
	if (c->enabled && version < REFNIC_HW_VERSION(1, 1)) {
		PMD_INIT_LOG(WARNING, "device version 0x%08x has no re-ring register: "
			     "no missed-doorbell check", version);
		c->enabled = false;
	}
	c->admin_rering = erratum || c->enabled;
	if (erratum && !c->enabled)
		PMD_INIT_LOG(WARNING, "device may miss doorbells (erratum), and "
			     "doorbell_check=%s: a queue may stall", mode);
	else if (c->enabled)
		PMD_INIT_LOG(INFO, "missed-doorbell check on (doorbell_check=%s, erratum %s), "
			     "deadline %u us", mode, erratum ? "present" : "absent",
			     c->deadline_us);
}

static uint64_t
us_to_tsc(uint64_t us)
{
	return us * rte_get_timer_hz() / US_PER_S;
}

/*
 * Posted work not done yet? TX: descriptors up to the tail, minus what the
 * completions (consumed or not) say is done. Read from the lcore's queue
 * while it runs: a torn view costs at most a re-ring too many or one check
 * late, never a wrong store, and the next run sees it straight.
 */
static bool
txq_waiting(const struct refnic_tx_queue *txq, uint16_t *tail, uint16_t *done)
{
	uint16_t head = __atomic_load_n(&txq->hw_head, __ATOMIC_RELAXED);
	uint16_t cq = __atomic_load_n(&txq->cq_head, __ATOMIC_RELAXED);
	uint8_t phase = __atomic_load_n(&txq->phase, __ATOMIC_RELAXED);
	uint16_t bad_head;
	bool bad;

	*tail = __atomic_load_n(&txq->tail, __ATOMIC_RELAXED);
	/* Completions the burst has not consumed yet count as progress. */
	*done = refnic_tx_cpl_walk(txq, head, *tail, &cq, &phase, &bad, &bad_head);
	return *done != *tail;
}

/*
 * RX: buffers are posted and the device delivered none the application has
 * not taken yet. An idle link looks the same: such a queue is re-rung once
 * per tail, which costs one store and tells the device nothing new.
 */
static bool
rxq_waiting(const struct refnic_rx_queue *rxq, uint16_t *tail, uint16_t *done)
{
	uint16_t next = __atomic_load_n(&rxq->next, __ATOMIC_RELAXED);
	uint8_t phase = __atomic_load_n(&rxq->phase, __ATOMIC_RELAXED);
	const struct refnic_rx_cpl *cpl = &rxq->cq[next];

	*tail = __atomic_load_n(&rxq->tail, __ATOMIC_RELAXED);
	*done = next;
	return *tail != next &&
	       (__atomic_load_n(&cpl->phase, __ATOMIC_ACQUIRE) & REFNIC_PHASE_BIT) != phase;
}

enum db_verdict {
	DB_FINE,
	DB_RERING,	/* stalled since the previous run: re-ring it */
	DB_STUCK,	/* and still, a run after the re-ring */
};

/*
 * Has this queue been stalled since the previous run? Then re-ring it, once.
 * Nothing moved means: the same packet count (the burst's own, which never
 * wraps) and the same indexes. Indexes alone come back every ring lap, and
 * a lap between two runs is a few microseconds of traffic: a new stall at
 * the indexes of the last one would pass for it, already re-rung.
 * Still stalled a run after its re-ring, the queue may be one the device
 * stopped on an error whose event was lost: its status says, read once.
 */
static enum db_verdict
db_queue_verdict(struct refnic_db_queue *st, uint32_t starts, bool waiting,
		 uint64_t packets, uint16_t tail, uint16_t done)
{
	if (!waiting || st->starts != starts) {
		st->starts = starts;
		__atomic_store_n(&st->suspect, false, __ATOMIC_RELAXED);
		return DB_FINE;
	}
	if (!st->suspect || st->packets != packets || st->tail != tail || st->done != done) {
		__atomic_store_n(&st->suspect, true, __ATOMIC_RELAXED);
		__atomic_store_n(&st->rung, false, __ATOMIC_RELAXED);
		st->status_read = false;
		st->packets = packets;
		st->tail = tail;
		st->done = done;
		return DB_FINE;
	}
	if (!st->rung) {
		__atomic_store_n(&st->rung, true, __ATOMIC_RELAXED);
		return DB_RERING;
	}
	/* The device took TAIL at the re-ring: another would tell it nothing. */
	if (st->status_read)
		return DB_FINE;
	st->status_read = true;
	return DB_STUCK;
}

static void
db_rering(struct refnic_adapter *ad, struct refnic_db_queue *st, uint32_t block,
	  uint16_t port, const char *what, uint16_t q)
{
	refnic_reg_write(&ad->hw, block + REFNIC_Q_RERING, 1);
	/* Only this thread writes it; xstats read it whole. */
	__atomic_store_n(&st->recoveries, st->recoveries + 1, __ATOMIC_RELAXED);
	PMD_DRV_LOG(DEBUG, "port %u %s queue %u: no progress for %u us with work posted "
		    "(tail %u, done %u): re-rung", port, what, q, ad->db.deadline_us,
		    st->tail, st->done);
}

/* What the verdict asks: a re-ring, or a look at a stuck queue's status
 * (not when its error is already known: broken). */
static void
db_act(struct rte_eth_dev *dev, struct refnic_adapter *ad, struct refnic_db_queue *st,
       enum db_verdict verdict, bool tx, uint16_t q, bool broken)
{
	if (verdict == DB_RERING)
		db_rering(ad, st, tx ? REFNIC_REG_TXQ(q) : REFNIC_REG_RXQ(q),
			  dev->data->port_id, tx ? "TX" : "RX", q);
	else if (verdict == DB_STUCK && !broken &&
		 refnic_queue_error_confirm(dev, tx, q, "seen by the doorbell check; "
					    "no event said so"))
		refnic_queue_failed(ad, "the device stopped a queue");
}

static void
db_check_txq(struct rte_eth_dev *dev, struct refnic_adapter *ad, uint16_t q)
{
	const struct refnic_tx_queue *txq = dev->data->tx_queues[q];
	struct refnic_db_queue *st = &ad->db.txq[q];
	uint16_t tail, done;
	enum db_verdict verdict;
	bool waiting;

	if (txq == NULL || !__atomic_load_n(&txq->started, __ATOMIC_ACQUIRE)) {
		__atomic_store_n(&st->suspect, false, __ATOMIC_RELAXED);
		return;
	}
	waiting = txq_waiting(txq, &tail, &done);
	verdict = db_queue_verdict(st, __atomic_load_n(&txq->starts, __ATOMIC_ACQUIRE), waiting,
				   __atomic_load_n(&txq->stats.packets, __ATOMIC_RELAXED),
				   tail, done);
	db_act(dev, ad, st, verdict, true, q, __atomic_load_n(&txq->broken, __ATOMIC_ACQUIRE));
}

static void
db_check_rxq(struct rte_eth_dev *dev, struct refnic_adapter *ad, uint16_t q)
{
	const struct refnic_rx_queue *rxq = dev->data->rx_queues[q];
	struct refnic_db_queue *st = &ad->db.rxq[q];
	uint16_t tail, done;
	enum db_verdict verdict;
	bool waiting;

	if (rxq == NULL || !__atomic_load_n(&rxq->started, __ATOMIC_ACQUIRE)) {
		__atomic_store_n(&st->suspect, false, __ATOMIC_RELAXED);
		return;
	}
	waiting = rxq_waiting(rxq, &tail, &done);
	verdict = db_queue_verdict(st, __atomic_load_n(&rxq->starts, __ATOMIC_ACQUIRE), waiting,
				   __atomic_load_n(&rxq->stats.packets, __ATOMIC_RELAXED),
				   tail, done);
	db_act(dev, ad, st, verdict, false, q, __atomic_load_n(&rxq->broken, __ATOMIC_ACQUIRE));
}

void
refnic_db_check_queue(struct rte_eth_dev *dev, bool tx, uint16_t q)
{
	if (tx)
		db_check_txq(dev, refnic_adapter(dev), q);
	else
		db_check_rxq(dev, refnic_adapter(dev), q);
}

uint64_t
refnic_db_period_us(const struct refnic_db_check *c)
{
	return RTE_MAX(1u, c->deadline_us / DB_CHECKS_PER_DEADLINE);
}

void
refnic_db_count_check(struct refnic_db_check *c)
{
	__atomic_store_n(&c->checks, c->checks + 1, __ATOMIC_RELAXED);
}


void
refnic_db_check_start(struct rte_eth_dev *dev)
{
	struct refnic_db_check *c = &refnic_adapter(dev)->db;
	uint16_t q;
	int ret;

	if (!c->enabled || c->running)
		return;
	/* Counters stay: only what was seen of the queues goes. */
	for (q = 0; q < REFNIC_MAX_QUEUES; q++) {
		__atomic_store_n(&c->txq[q].suspect, false, __ATOMIC_RELAXED);
		__atomic_store_n(&c->rxq[q].suspect, false, __ATOMIC_RELAXED);
	}
	__atomic_store_n(&c->running, true, __ATOMIC_RELEASE);
	ret = refnic_db_alarms_set(dev);
	if (ret != 0) {
		__atomic_store_n(&c->running, false, __ATOMIC_RELEASE);
		refnic_db_alarms_cancel(dev);
		PMD_DRV_LOG(ERR, "port %u: cannot start the doorbell check: %s",
			    dev->data->port_id, rte_strerror(-ret));
	}
}

/*
 * From dev_stop and dev_close: once this returns the alarm neither runs nor
 * is pending (rte_eal_alarm_cancel() waits for a run in progress, and
 * removes what that run re-armed). From the interrupt thread itself (an app
 * stopping the port in an event callback), cancel cannot wait; running,
 * cleared first, keeps a run in progress from re-arming.
 */
void
refnic_db_check_stop(struct rte_eth_dev *dev)
{
	struct refnic_db_check *c = &refnic_adapter(dev)->db;

	/* Running, not enabled: a recovery re-reads the errata, and may turn
	 * the check off (the erratum gone) while its alarm still runs. */
	if (!c->enabled && !__atomic_load_n(&c->running, __ATOMIC_ACQUIRE))
		return;
	__atomic_store_n(&c->running, false, __ATOMIC_RELEASE);
	refnic_db_alarms_cancel(dev);
}

/* An admin command was just submitted (admin lock held). */
void
refnic_db_admin_wait_start(struct refnic_adapter *ad)
{
	if (ad->db.admin_rering)
		ad->db.admin_next_tsc = rte_get_timer_cycles() + us_to_tsc(ad->db.deadline_us);
}

/*
 * Its completion is not there yet (admin lock held): past the deadline, and
 * if the device has not even fetched the command, write AQ_TAIL again.
 */
void
refnic_db_admin_wait(struct refnic_adapter *ad)
{
	struct refnic_db_check *c = &ad->db;
	uint64_t now;

	if (!c->admin_rering)
		return;
	now = rte_get_timer_cycles();
	if (now < c->admin_next_tsc)
		return;
	c->admin_next_tsc = now + us_to_tsc(c->deadline_us);
	if (refnic_reg_read(&ad->hw, REFNIC_REG_AQ_HEAD) == ad->admin.tail)
		return;		/* fetched: just slow */
	refnic_reg_write(&ad->hw, REFNIC_REG_AQ_TAIL, ad->admin.tail);
	__atomic_store_n(&c->admin_rerings, c->admin_rerings + 1, __ATOMIC_RELAXED);
	PMD_DRV_LOG(DEBUG, "admin command not fetched after %u us: AQ_TAIL written again",
		    c->deadline_us);
}

uint64_t
refnic_db_queue_recoveries(const struct refnic_adapter *ad, uint16_t q, bool tx)
{
	const struct refnic_db_check *c = &ad->db;

	if (tx)
		return __atomic_load_n(&c->txq[q].recoveries, __ATOMIC_RELAXED) - c->base.txq[q];
	return __atomic_load_n(&c->rxq[q].recoveries, __ATOMIC_RELAXED) - c->base.rxq[q];
}

/* Every re-ring of the port: its queues' and its admin queue's. */
uint64_t
refnic_db_recoveries(const struct refnic_adapter *ad)
{
	uint64_t sum = __atomic_load_n(&ad->db.admin_rerings, __ATOMIC_RELAXED) -
		       ad->db.base.admin_rerings;
	uint16_t q;

	for (q = 0; q < REFNIC_MAX_QUEUES; q++)
		sum += refnic_db_queue_recoveries(ad, q, true) +
		       refnic_db_queue_recoveries(ad, q, false);
	return sum;
}

uint64_t
refnic_db_checks(const struct refnic_adapter *ad)
{
	return __atomic_load_n(&ad->db.checks, __ATOMIC_RELAXED) - ad->db.base.checks;
}

void
refnic_db_stats_reset(struct refnic_adapter *ad)
{
	struct refnic_db_check *c = &ad->db;
	uint16_t q;

	c->base.checks = __atomic_load_n(&c->checks, __ATOMIC_RELAXED);
	c->base.admin_rerings = __atomic_load_n(&c->admin_rerings, __ATOMIC_RELAXED);
	for (q = 0; q < REFNIC_MAX_QUEUES; q++) {
		c->base.txq[q] = __atomic_load_n(&c->txq[q].recoveries, __ATOMIC_RELAXED);
		c->base.rxq[q] = __atomic_load_n(&c->rxq[q].recoveries, __ATOMIC_RELAXED);
	}
}

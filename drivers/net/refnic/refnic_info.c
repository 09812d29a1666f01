/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * What a user asks of the PMD about its state. The port's state is walked
 * once, in refnic_port_state(), into a sink: text for the private dump
 * (rte_eth_dev_priv_dump(), telemetry's /ethdev/dump_priv), a telemetry
 * dict for /refnic/port (refnic_telemetry.c), so the two never drift apart.
 * Also the burst mode of each queue (testpmd's "show rxq info", "show txq
 * info"). Registers are read through the BAR; device counters are the
 * device's own (STATS_GET) since the last stats reset, as xstats show them.
 */

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_devargs.h>

#include "refnic.h"
#include "refnic_rxtx.h"

static void
state_device(const struct refnic_adapter *ad, struct refnic_state_sink *s)
{
	uint32_t status = refnic_reg_read(&ad->hw, REFNIC_REG_STATUS);
	uint32_t version = refnic_reg_read(&ad->hw, REFNIC_REG_VERSION);
	uint32_t state = status & REFNIC_STATUS_STATE_MASK;
	char buf[32];

	s->group(s, "device", -1);
	snprintf(buf, sizeof(buf), "%u.%u", version >> 16, version & 0xffff);
	s->str(s, "version", buf);
	s->str(s, "fw_version", ad->ident.fw_version);
	s->str(s, "state", refnic_hw_state_name(state));
	s->u64(s, "fatal_code", refnic_reg_read(&ad->hw, REFNIC_REG_FATAL_CODE));
	s->str(s, "link", status & REFNIC_STATUS_LINK_UP ? "up" : "down");
	s->u64(s, "resets", refnic_reg_read(&ad->hw, REFNIC_REG_RESET_GEN));
	s->u64(s, "queue_pairs", ad->ident.max_queues);
}

static void
state_port(const struct rte_eth_dev *dev, const struct refnic_adapter *ad, bool live,
	   struct refnic_state_sink *s)
{
	s->group(s, "port", -1);
	/* failed: the device stopped answering; rte_eth_dev_reset() recovers. */
	s->str(s, "state", refnic_port_failed(ad) ? "failed" : "ok");
	s->u64(s, "recovering", ad->recovering);	/* proactive recovery under way */
	s->u64(s, "started", dev->data->dev_started);
	s->u64(s, "dma_unsafe", ad->dma_unsafe);
	s->u64(s, "rx_queues", dev->data->nb_rx_queues);
	s->u64(s, "tx_queues", dev->data->nb_tx_queues);
	/* The TX path refnic_wc.c chose at probe, and the mapping it saw. */
	s->str(s, "tx_path", ad->hw.tx_push ? "push" : "doorbell+fetch");
	s->str(s, "push_window", refnic_reg_read(&ad->hw, REFNIC_REG_PUSH_INFO) &
	       REFNIC_PUSH_INFO_WC ? "write-combining" : "uncached");
	/* stale: a failed device keeps its last known counts. */
	s->str(s, "device_counters", live ? "live" : "stale");
}

/* As typed (the device's keys too), then the driver's keys as in effect. */
static void
state_devargs(const struct rte_eth_dev *dev, const struct refnic_adapter *ad,
	      struct refnic_state_sink *s)
{
	const struct rte_devargs *da = dev->device != NULL ? rte_dev_devargs(dev->device) : NULL;
	const struct refnic_devargs *a = &ad->args;
	char buf[64];

	s->group(s, "devargs", -1);
	s->str(s, "given", da != NULL && da->args != NULL ? da->args : "");
	refnic_poll_policy_format(&a->admin_poll, buf, sizeof(buf));
	s->str(s, REFNIC_ARG_ADMIN_POLL, buf);
	refnic_itr_mode_format(a->itr.mode, buf, sizeof(buf));
	s->str(s, REFNIC_ARG_ITR, buf);
	s->u64(s, REFNIC_ARG_RX_ITR_US, a->itr.rx_us);
	s->u64(s, REFNIC_ARG_TX_ITR_US, a->itr.tx_us);
	s->str(s, REFNIC_ARG_RX_WB, refnic_rx_wb_mode_name(a->rx_wb));
	refnic_db_check_mode_format(a->db_check.mode, buf, sizeof(buf));
	s->str(s, REFNIC_ARG_DOORBELL_CHECK, buf);
	s->u64(s, REFNIC_ARG_DOORBELL_CHECK_US, a->db_check.deadline_us);
	s->str(s, REFNIC_ARG_WC, refnic_wc_mode_name(a->wc));
	s->str(s, REFNIC_ARG_SIMD, refnic_simd_mode_name(a->simd));
}

/* The missed-doorbell check (refnic_doorbell.c): off, running, or on but
 * stopped with the port. */
static void
state_doorbell(const struct refnic_adapter *ad, struct refnic_state_sink *s)
{
	const struct refnic_db_check *c = &ad->db;
	uint32_t errata = refnic_reg_read(&ad->hw, REFNIC_REG_ERRATA);

	s->group(s, "doorbell_check", -1);
	s->str(s, "state", !c->enabled ? "off" :
	       __atomic_load_n(&c->running, __ATOMIC_ACQUIRE) ? "running" : "stopped");
	s->str(s, "erratum", errata & REFNIC_ERRATA_MISSED_DOORBELL ? "present" : "absent");
	s->u64(s, "deadline_us", c->deadline_us);
	s->u64(s, "checks", refnic_db_checks(ad));
	s->u64(s, "re_rings", refnic_db_recoveries(ad));
}

static void
state_admin(const struct refnic_adapter *ad, const struct refnic_admin_stats *st,
	    const struct refnic_admin_stats *reset, struct refnic_state_sink *s)
{
	char policy[64];

	s->group(s, "admin", -1);
	refnic_poll_policy_format(&ad->admin.policy, policy, sizeof(policy));
	s->str(s, "poll", policy);
	s->u64(s, "timeout_us", ad->admin.timeout_us);
	s->u64(s, "commands", st->commands);
	s->u64(s, "polls", st->polls);
	s->u64(s, "wait_us", st->wait_us);
	s->u64(s, "timeouts", st->timeouts);
	s->u64(s, "reset_wait_us", reset->wait_us);
	s->u64(s, "reset_timeouts", reset->timeouts);
}

/* The moderation a queue's cause runs with now. */
static void
state_itr(const struct refnic_itr_cause *c, struct refnic_state_sink *s)
{
	s->str(s, "itr", c->adaptive ? "adaptive" : c->us != 0 ? "static" : "off");
	s->u64(s, "itr_us", c->us);
}

/* What the doorbell check last saw of a queue, where it runs. */
static void
state_doorbell_queue(const struct refnic_adapter *ad, const struct refnic_db_queue *st,
		     uint64_t recoveries, struct refnic_state_sink *s)
{
	/* The check's own state, written by its alarm: atomics. */
	bool suspect = __atomic_load_n(&st->suspect, __ATOMIC_RELAXED);
	bool rung = __atomic_load_n(&st->rung, __ATOMIC_RELAXED);

	if (!ad->db.enabled)
		return;
	s->str(s, "doorbell", !suspect ? "moving" : rung ? "stalled,re-rung" : "stalled");
	s->u64(s, "missed_doorbell_recoveries", recoveries);
}

/* What every queue shows first, RX or TX. */
static void
state_queue_head(struct refnic_state_sink *s, const char *group, uint16_t q, bool started,
		 bool deferred_start, bool broken, const char *path, uint16_t size)
{
	s->group(s, group, q);
	s->str(s, "state", started ? "started" : "stopped");
	s->u64(s, "deferred_start", deferred_start);
	s->u64(s, "broken", broken);
	s->str(s, "path", path);
	s->u64(s, "descriptors", size);
}

static void
state_rxq(struct rte_eth_dev *dev, uint16_t q, struct refnic_state_sink *s)
{
	const struct refnic_adapter *ad = refnic_adapter(dev);
	const struct refnic_rx_queue *rxq = dev->data->rx_queues[q];
	struct refnic_queue_stats sw;
	struct rte_eth_burst_mode mode;

	if (rxq == NULL)
		return;
	state_queue_head(s, "rxq", q, rxq->started, rxq->deferred_start, rxq->broken,
			 refnic_rx_burst_mode_get(dev, q, &mode) == 0 ? mode.info : "none",
			 rxq->size);
	s->u64(s, "next", rxq->next);
	s->u64(s, "tail", rxq->tail);
	s->str(s, "completions", rxq->lap_flip == 0 ? "written back" : "ring");
	s->u64(s, "phase", rxq->phase);
	s->u64(s, "free_thresh", rxq->free_thresh);
	s->u64(s, "buf_size", rxq->buf_size);
	refnic_queue_stats_read(&rxq->stats, &rxq->stats_base, &sw);
	s->u64(s, "packets", sw.packets);
	s->u64(s, "bytes", sw.bytes);
	s->u64(s, "errors", sw.errors);
	s->u64(s, "nombuf", sw.nombuf);
	refnic_queue_hw_counters(ad, q, false, s);
	state_itr(&ad->itr[q].rx, s);
	state_doorbell_queue(ad, &ad->db.rxq[q], refnic_db_queue_recoveries(ad, q, false), s);
}

static void
state_txq(struct rte_eth_dev *dev, uint16_t q, struct refnic_state_sink *s)
{
	const struct refnic_adapter *ad = refnic_adapter(dev);
	const struct refnic_tx_queue *txq = dev->data->tx_queues[q];
	struct refnic_queue_stats sw;
	struct rte_eth_burst_mode mode;

	if (txq == NULL)
		return;
	state_queue_head(s, "txq", q, txq->started, txq->deferred_start, txq->broken,
			 refnic_tx_burst_mode_get(dev, q, &mode) == 0 ? mode.info : "none",
			 txq->size);
	s->u64(s, "tail", txq->tail);
	s->u64(s, "clean", txq->clean);
	s->u64(s, "device_head", txq->hw_head);
	s->u64(s, "free", txq->nb_free);
	s->u64(s, "free_thresh", txq->free_thresh);
	refnic_queue_stats_read(&txq->stats, &txq->stats_base, &sw);
	s->u64(s, "packets", sw.packets);
	s->u64(s, "bytes", sw.bytes);
	s->u64(s, "errors", sw.errors);
	refnic_queue_hw_counters(ad, q, true, s);
	state_itr(&ad->itr[q].tx, s);
	state_doorbell_queue(ad, &ad->db.txq[q], refnic_db_queue_recoveries(ad, q, true), s);
}

void
refnic_port_state(struct rte_eth_dev *dev, struct refnic_state_sink *s)
{
	struct refnic_adapter *ad = refnic_adapter(dev);
	/* Admin counts from before our own STATS_GET, as xstats shows them. */
	struct refnic_admin_stats admin, reset;
	uint16_t q;
	bool live;

	refnic_admin_stats_read(ad, &admin, &reset);
	/* The device counters are read under the lock stats readers share. */
	pthread_mutex_lock(&ad->stats_lock);
	live = !refnic_port_failed(ad) && refnic_fetch_hw_stats(ad) == 0;
	state_device(ad, s);
	state_port(dev, ad, live, s);
	state_devargs(dev, ad, s);
	state_admin(ad, &admin, &reset, s);
	state_doorbell(ad, s);
	for (q = 0; q < dev->data->nb_rx_queues; q++)
		state_rxq(dev, q, s);
	for (q = 0; q < dev->data->nb_tx_queues; q++)
		state_txq(dev, q, s);
	pthread_mutex_unlock(&ad->stats_lock);
}

/* The private dump: one line per group, "group [index]: key=value ...". */
struct refnic_text_sink {
	struct refnic_state_sink s;
	FILE *f;
	bool open;			/* a group's line is not ended yet */
};

static void
text_group(struct refnic_state_sink *s, const char *name, int index)
{
	struct refnic_text_sink *t = container_of(s, struct refnic_text_sink, s);

	if (t->open)
		fputc('\n', t->f);
	if (index < 0)
		fprintf(t->f, "%s:", name);
	else
		fprintf(t->f, "%s %d:", name, index);
	t->open = true;
}

static void
text_u64(struct refnic_state_sink *s, const char *key, uint64_t val)
{
	fprintf(container_of(s, struct refnic_text_sink, s)->f, " %s=%" PRIu64, key, val);
}

/* Quoted if empty or spaced, so that a line still splits on spaces. */
static void
text_str(struct refnic_state_sink *s, const char *key, const char *val)
{
	bool quote = val[0] == '\0' || strchr(val, ' ') != NULL;

	fprintf(container_of(s, struct refnic_text_sink, s)->f,
		quote ? " %s=\"%s\"" : " %s=%s", key, val);
}

int
refnic_dev_priv_dump(struct rte_eth_dev *dev, FILE *f)
{
	struct refnic_text_sink t = {
		.s = { .group = text_group, .u64 = text_u64, .str = text_str },
		.f = f,
	};

	fprintf(f, "refnic port %u (%s)\n", dev->data->port_id, dev->data->name);
	refnic_port_state(dev, &t.s);
	if (t.open)
		fputc('\n', f);
	return 0;
}

/* Scalar, SSE or AVX2 (refnic_burst_select()); Rx assembles multi-segment
 * frames only on scattered queues (the offload asked, or the MTU needs it),
 * the vector burst through its scalar core. */
int
refnic_rx_burst_mode_get(struct rte_eth_dev *dev, uint16_t qid,
			 struct rte_eth_burst_mode *mode)
{
	const struct refnic_rx_queue *rxq = dev->data->rx_queues[qid];

	if (!refnic_burst_is_ours(dev) || rxq == NULL)
		return -EINVAL;
	mode->flags = 0;
	snprintf(mode->info, sizeof(mode->info), "%s%s",
		 refnic_rx_burst_name(dev),
		 rxq->scatter ? " Scattered" : "");
	return 0;
}

int
refnic_tx_burst_mode_get(struct rte_eth_dev *dev, uint16_t qid,
			 struct rte_eth_burst_mode *mode)
{
	const struct refnic_tx_queue *txq = dev->data->tx_queues[qid];

	if (!refnic_burst_is_ours(dev) || txq == NULL)
		return -EINVAL;
	mode->flags = 0;
	snprintf(mode->info, sizeof(mode->info), "%s, %s",
		 refnic_tx_burst_name(dev),
		 refnic_queue_bar(dev->data->port_id)->tx_push ? "WC push" : "doorbell+fetch");
	return 0;
}

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * A refnic device instance: its BAR, its emulated-BAR link, its interrupt
 * eventfds, the reset state machine, and one engine pass over it.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_hash_crc.h>
#include <rte_malloc.h>
#include <rte_string_fns.h>

#include "refnic_emu_admin.h"
#include "refnic_emu_cable.h"
#include "refnic_emu_clock.h"
#include "refnic_emu_dma.h"
#include "refnic_emu_engine.h"
#include "refnic_emu_events.h"
#include "refnic_emu_filter.h"
#include "refnic_emu_flow.h"
#include "refnic_emu_intr.h"
#include "refnic_emu_link.h"
#include "refnic_emu_priv.h"
#include "refnic_emu_profile.h"
#include "refnic_emu_queue.h"
#include "refnic_emu_remote.h"
#include "refnic_emu_trap.h"

RTE_LOG_REGISTER(refnic_emu_logtype, pmd.net.refnic.device, NOTICE);

#define REFNIC_EMU_ADMIN_TIMEOUT_US	2000000	/* advertised hard timeout */
/* Advertised reset bound. The reset is an engine's work, and a loaded host
 * keeps a thread off its CPU for tens of ms at a time: at load 11 on 2
 * cores, resets missed a 100 ms bound (fuzz_shm_cable's probes). */
#define REFNIC_EMU_RESET_TIMEOUT_US	1000000
#define REFNIC_EMU_DEFAULT_QUEUES	8

uint64_t
refnic_emu_us_to_tsc(uint64_t us)
{
	return us * rte_get_tsc_hz() / 1000000;
}

static uint64_t
emu_ns_to_tsc(uint64_t ns)
{
	return ns * rte_get_tsc_hz() / NS_PER_S;
}

void
refnic_emu_params_default(struct refnic_emu_params *params)
{
	memset(params, 0, sizeof(*params));
	strlcpy(params->cable, "loopback", sizeof(params->cable));
	params->profile = REFNIC_PROFILE_IDEAL;	/* the fastest: bench.sh throughput */
	params->max_queues = REFNIC_EMU_DEFAULT_QUEUES;
	params->engines = 1;
	params->admin_latency_pct = 100;
	params->faults.admin_timeout_opcode = REFNIC_EMU_FAULT_ANY_OPCODE;
}

static void
emu_set_status(struct refnic_emu *emu, enum refnic_hw_state state)
{
	uint32_t status = emu_reg_read(emu, REFNIC_REG_STATUS);

	emu_state_set(emu, state);
	status = (status & ~REFNIC_STATUS_STATE_MASK) | state;
	if (state == REFNIC_STATE_FATAL)
		status |= REFNIC_STATUS_FATAL;
	else
		status &= ~REFNIC_STATUS_FATAL;
	emu_reg_write(emu, REFNIC_REG_STATUS, status);
}

/* Link is up when the cable is plugged and has another end (or loops back). */
void
refnic_emu_update_link(struct refnic_emu *emu)
{
	uint32_t status = emu_reg_read(emu, REFNIC_REG_STATUS);
	bool up = refnic_emu_cable_link_up(emu);

	if (up)
		status |= REFNIC_STATUS_LINK_UP;
	else
		status &= ~REFNIC_STATUS_LINK_UP;
	emu_reg_write(emu, REFNIC_REG_STATUS, status);
	if (up != emu->link_up) {
		emu->link_up = up;
		refnic_emu_post_event(emu, REFNIC_EVENT_LINK_CHANGE, up ? REFNIC_LINK_UP : 0);
	}
}

/* Power-on and post-reset register values and port configuration. */
static void
emu_load_defaults(struct refnic_emu *emu)
{
	/* What this device version implements; nothing it only reserves. */
	uint64_t caps = REFNIC_CAP_SCATTER | REFNIC_CAP_JUMBO | REFNIC_CAP_STATS_DMA |
			REFNIC_CAP_RSS | REFNIC_CAP_AEQ | REFNIC_CAP_VLAN_FILTER |
			REFNIC_CAP_FAULT_REPORT | REFNIC_CAP_RX_CSUM | REFNIC_CAP_TX_CSUM |
			REFNIC_CAP_VLAN_STRIP | REFNIC_CAP_VLAN_INSERT | REFNIC_CAP_INTR_MODERATION |
			REFNIC_CAP_TX_PUSH | REFNIC_CAP_RX_PTYPE | REFNIC_CAP_FLOW |
			REFNIC_CAP_TSO | REFNIC_CAP_RX_TSTAMP | REFNIC_CAP_PTP |
			REFNIC_CAP_ADMIN_DUE | REFNIC_CAP_RX_WB;
	uint32_t off;

	caps &= ~emu->params.caps_off;

	for (off = REFNIC_REG_AQ_BASE_LO; off < REFNIC_BAR0_REGS_END; off += 4)
		emu_reg_write(emu, off, 0);
	emu_reg_write(emu, REFNIC_REG_MAGIC, REFNIC_HW_MAGIC);
	emu_reg_write(emu, REFNIC_REG_VERSION,
		      REFNIC_HW_VERSION(REFNIC_HW_VERSION_MAJOR, REFNIC_HW_VERSION_MINOR));
	emu_reg_write(emu, REFNIC_REG_CAPS_LO, (uint32_t)caps);
	emu_reg_write(emu, REFNIC_REG_CAPS_HI, (uint32_t)(caps >> 32));
	emu_reg_write(emu, REFNIC_REG_ADMIN_TIMEOUT_US, REFNIC_EMU_ADMIN_TIMEOUT_US);
	emu_reg_write(emu, REFNIC_REG_RESET_TIMEOUT_US, REFNIC_EMU_RESET_TIMEOUT_US);
	emu_reg_write(emu, REFNIC_REG_ERRATA, refnic_emu_errata(emu));
	emu_reg_write(emu, REFNIC_REG_FATAL_CODE, REFNIC_FATAL_NONE);
	emu_reg_write(emu, REFNIC_REG_PUSH_INFO, emu->push_wc ? REFNIC_PUSH_INFO_WC : 0);

	memset(&emu->aq, 0, sizeof(emu->aq));
	emu->aq.db_seen = emu_reg_writes(emu, REFNIC_REG_AQ_TAIL);
	refnic_emu_db_reset(&emu->aqdb);
	memset(&emu->aeq, 0, sizeof(emu->aeq));
	emu->aeq.ctrl_seen = emu_reg_writes(emu, REFNIC_REG_AEQ_CTRL);
	emu->admin_fetched = 0;
	refnic_emu_queues_reset(emu);
	memcpy(emu->mac, emu->perm_mac, sizeof(emu->mac));
	emu->mtu = 1500;
	emu->features = 0;
	memset(&emu->rss, 0, sizeof(emu->rss));
	refnic_emu_filters_reset(emu);
	refnic_emu_flows_reset(emu);
	refnic_emu_clock_reset(emu->clock);
}

static void
emu_start_reset(struct refnic_emu *emu, uint64_t now)
{
	if (emu->faults.caps_lost_at_reset != 0) {
		emu->params.caps_off |= emu->faults.caps_lost_at_reset;
		emu->faults.caps_lost_at_reset = 0;
		EMU_LOG(INFO, "%s: comes back from this reset with fewer capabilities "
			"(fault injection)", emu->name);
	}
	emu_load_defaults(emu);
	emu_set_status(emu, REFNIC_STATE_RESETTING);
	/* A reset turns the PHY back on: the far end sees the link return. */
	if (emu->phy_down)
		refnic_emu_cable_set_phy(emu, true);
	emu_stats(emu)->resets++;
	if (emu->faults.reset_fail_times > 0) {
		/* fault_reset_fail: this reset never finishes. */
		emu->faults.reset_fail_times--;
		emu->reset_done_tsc = UINT64_MAX;
		EMU_LOG(INFO, "%s: reset hangs (fault injection)", emu->name);
		return;
	}
	emu_stats(emu)->control_latency_us += emu->profile->reset_latency_us;
	emu->reset_done_tsc = now + refnic_emu_us_to_tsc(emu->profile->reset_latency_us);
}

/* Did the driver write REFNIC_RESET_REQUEST since we last looked? */
static bool
emu_reset_requested(struct refnic_emu *emu)
{
	uint32_t writes = emu_reg_writes(emu, REFNIC_REG_RESET);

	if (writes == emu->reset_db_seen)
		return false;
	emu->reset_db_seen = writes;
	return emu_reg_read(emu, REFNIC_REG_RESET) == REFNIC_RESET_REQUEST;
}

/*
 * What only the first engine does: frames from outside, resets, admin
 * commands, events. Returns false while the device is not ready for its
 * data path. Whatever changes the state other engines read (queues, the
 * device state) is done with their locks held.
 */
static bool
emu_service_control(struct refnic_emu *emu, uint64_t now, uint64_t *next_due_tsc,
		    unsigned int *work)
{
	/* Frames from outside come in even while the port is down: a port
	 * that is not ready drops them, as a NIC does, instead of keeping
	 * them for later. A stalled data path leaves them waiting. */
	if (!emu->dataplane_paused)
		*work += refnic_emu_cable_rx_service(emu, now);
	if (emu_reset_requested(emu)) {
		refnic_emu_engine_lock_others(emu);
		emu_start_reset(emu, now);
		refnic_emu_engine_unlock_others(emu);
		(*work)++;
	}
	if (emu_state(emu) == REFNIC_STATE_RESETTING) {
		if (now < emu->reset_done_tsc) {
			if (emu->reset_done_tsc != UINT64_MAX)
				*next_due_tsc = RTE_MIN(*next_due_tsc, emu->reset_done_tsc);
			return false;
		}
		refnic_emu_engine_lock_others(emu);
		emu_set_status(emu, REFNIC_STATE_READY);
		if (emu->rx_published)
			refnic_emu_cable_config_publish(emu);
		refnic_emu_engine_unlock_others(emu);
		emu_reg_write(emu, REFNIC_REG_RESET_GEN,
			      emu_reg_read(emu, REFNIC_REG_RESET_GEN) + 1);
		(*work)++;
	}
	if (emu_state(emu) != REFNIC_STATE_READY)
		return false;
	if (unlikely(emu->fatal_at_tsc != 0)) {
		if (now >= emu->fatal_at_tsc) {
			emu->fatal_at_tsc = 0;
			refnic_emu_fatal(emu, REFNIC_FATAL_INJECTED);
			(*work)++;
			return false;
		}
		*next_due_tsc = RTE_MIN(*next_due_tsc, emu->fatal_at_tsc);
	}
	*work += refnic_emu_admin_service(emu, now, next_due_tsc);
	*work += refnic_emu_aeq_service(emu);
	*work += refnic_emu_intr_service(emu, now, next_due_tsc);
	return emu_state(emu) == REFNIC_STATE_READY;
}

unsigned int
refnic_emu_service(struct refnic_emu *emu, unsigned int engine, uint64_t now,
		   bool settled, uint64_t *next_due_tsc)
{
	uint16_t nb_engines = emu->params.engines, q;
	unsigned int work = 0;

	emu->shard[engine].write_seq_seen =
		__atomic_load_n(&emu->link->write_seq, __ATOMIC_ACQUIRE);
	if (engine == 0) {
		work += refnic_emu_remote_drain(emu);
		if (!emu_service_control(emu, now, next_due_tsc, &work))
			return work;
	} else if (engine >= nb_engines || emu_state(emu) != REFNIC_STATE_READY) {
		return 0;
	}
	if (emu->dataplane_paused)
		return work;
	/* Queue q is this engine's if q % engines == engine. Inline, TX
	 * doorbells run their work themselves. */
	for (q = engine; q < emu->params.max_queues; q += nb_engines) {
		struct refnic_emu_txq *txq = &emu->txq[q];

		if (emu->inline_exec)
			continue;
		if (emu->rxq[q].enabled)
			refnic_emu_rx_count_doorbells(emu, q);
		if (txq->enabled) {
			rte_spinlock_lock(&txq->lock);
			work += refnic_emu_tx_service(emu, q, now, next_due_tsc);
			rte_spinlock_unlock(&txq->lock);
		}
	}
	/* Frames may have landed on any RX queue, of this device or its peer. */
	if (work == 0 && settled)
		for (q = engine; q < emu->params.max_queues; q += nb_engines)
			refnic_emu_queues_publish_heads(emu, q);
	return work;
}

static int
emu_alloc_vectors(struct refnic_emu *emu)
{
	uint16_t v;

	emu->nb_vectors = emu->params.max_queues + 1;
	for (v = 0; v < REFNIC_MAX_VECTORS; v++)
		emu->vector_fd[v] = -1;
	for (v = 0; v < emu->nb_vectors; v++) {
		emu->vector_fd[v] = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
		if (emu->vector_fd[v] < 0)
			return -errno;
	}
	return 0;
}

static void
emu_free(struct refnic_emu *emu)
{
	uint16_t v;

	for (v = 0; v < emu->nb_vectors; v++)
		if (emu->vector_fd[v] >= 0)
			close(emu->vector_fd[v]);
	rte_free(emu->link);
	if (emu->bar_mz != NULL)
		refnic_emu_bar_free(emu);
	rte_free(emu);
}

/*
 * The permanent MAC: mac= if given, else a locally administered one derived
 * from the name, stable across runs (and so the same in two processes or
 * hosts that name their ports alike: they need mac= to share a segment).
 */
static void
emu_make_mac(struct refnic_emu *emu, const struct refnic_emu_params *params)
{
	static const uint8_t unset[sizeof(params->mac)];
	uint32_t h;

	if (memcmp(params->mac, unset, sizeof(unset)) != 0) {
		memcpy(emu->perm_mac, params->mac, sizeof(emu->perm_mac));
		return;
	}
	h = rte_hash_crc(emu->name, strlen(emu->name), 0x52464e43);
	emu->perm_mac[0] = 0x02;
	emu->perm_mac[1] = 0x52;	/* 'R' */
	emu->perm_mac[2] = h >> 24;
	emu->perm_mac[3] = h >> 16;
	emu->perm_mac[4] = h >> 8;
	emu->perm_mac[5] = h;
}

/* Where the queue work runs, what the profile charges for it, and
 * which descriptor stages run it. */
static int
emu_timing_set(struct refnic_emu *emu, const struct refnic_emu_params *params)
{
	emu->inline_exec = params->exec == REFNIC_EXEC_INLINE ||
			   (params->exec == REFNIC_EXEC_AUTO &&
			    refnic_emu_profile_allows_inline(emu->profile));
	if (emu->inline_exec && !refnic_emu_profile_allows_inline(emu->profile)) {
		EMU_LOG(ERR, "%s: exec=inline cannot run profile=%s", emu->name,
			emu->profile->name);
		return -EINVAL;
	}
	emu->desc_fetch_tsc = emu->inline_exec ? 0 : emu_ns_to_tsc(emu->profile->desc_fetch_ns);
	emu->push_burst_tsc = emu_ns_to_tsc(emu->profile->push_burst_ns);
	emu->link->trap_cost_tsc = emu_ns_to_tsc(emu->profile->bar_store_ns);
	emu->push_wc = params->bar_wc == REFNIC_BAR_WC_AUTO ? emu->profile->push_wc :
		       params->bar_wc == REFNIC_BAR_WC_ON;
	emu->simd = refnic_emu_simd_select(params->simd);
	if (params->simd == REFNIC_EMU_SIMD_AVX2 && emu->simd != REFNIC_EMU_SIMD_AVX2)
		EMU_LOG(WARNING, "%s: device_simd=avx2: this CPU has no AVX2; SSE stages instead",
			emu->name);
	return 0;
}

/* The device joins the process's list: its engines, its cable, its name. */
static int
emu_join(struct refnic_emu *emu, const struct refnic_emu_params *params)
{
	int ret = -EEXIST;

	refnic_emu_lock();
	if (refnic_emu_lookup(emu->name) != NULL)
		goto out;
	ret = refnic_emu_engine_get(params->engines);
	if (ret != 0)
		goto out;
	ret = refnic_emu_cable_attach(emu, params->cable);
	if (ret != 0) {
		refnic_emu_engine_put();
		goto out;
	}
	refnic_emu_engine_link_init(emu);
	refnic_emu_remote_listen();
	TAILQ_INSERT_TAIL(&refnic_emu_devices, emu, next);
	refnic_emu_queues_lock(emu);	/* as every device's, until unlock */
	/* Dozing engines look at the new device. */
	refnic_emu_engine_kick_all();
out:
	refnic_emu_unlock();
	return ret;
}

int
refnic_emu_create(const char *name, const struct refnic_emu_params *params,
		  struct refnic_emu **out)
{
	struct refnic_emu *emu;
	int ret;

	if (params->max_queues == 0 || params->max_queues > REFNIC_MAX_QUEUES ||
	    params->engines == 0 || params->engines > REFNIC_EMU_MAX_ENGINES ||
	    refnic_emu_profile_get(params->profile) == NULL)
		return -EINVAL;
	/* In DPDK's memory, as its link: a secondary process reaches both at
	 * the same address and runs its doorbells' work on them. */
	emu = rte_zmalloc("refnic_emu", sizeof(*emu), RTE_CACHE_LINE_SIZE);
	if (emu == NULL)
		return -ENOMEM;
	rte_spinlock_init(&emu->secondary.lock);
	emu->intr = &emu->intr_own;
	emu->stats = emu->stats_own;
	emu->rx_plan = REFNIC_EMU_RX_ALL;	/* until the first unlock decides */
	strlcpy(emu->name, name, sizeof(emu->name));
	emu->params = *params;
	emu->faults = params->faults;
	if (emu->faults.fatal_after_ms != 0)
		emu->fatal_at_tsc = rte_get_tsc_cycles() +
			(uint64_t)emu->faults.fatal_after_ms * rte_get_tsc_hz() / 1000;
	emu->profile = refnic_emu_profile_get(params->profile);
	ret = refnic_emu_bar_alloc(emu);
	if (ret != 0)
		goto fail;
	emu->link = rte_zmalloc("refnic_emu_link", sizeof(*emu->link), RTE_CACHE_LINE_SIZE);
	if (emu->link == NULL) {
		ret = -ENOMEM;
		goto fail;
	}
	ret = emu_alloc_vectors(emu);
	if (ret != 0)
		goto fail;
	emu_make_mac(emu, params);
	refnic_emu_dma_init(emu);
	ret = emu_timing_set(emu, params);
	if (ret != 0)
		goto fail;
	rte_spinlock_init(&emu->push_probe.lock);
	emu->push_probe.qid = UINT16_MAX;
	emu_load_defaults(emu);
	emu_set_status(emu, REFNIC_STATE_OFF);

	ret = emu_join(emu, params);
	if (ret != 0)
		goto fail;

	EMU_LOG(INFO, "%s: created, profile %s, %u queue pairs, %s execution, %u engine%s, "
		"cable %s, errata 0x%x, push window %s%s", name, emu->profile->name,
		params->max_queues, emu->inline_exec ? "inline" : "thread", params->engines,
		params->engines == 1 ? "" : "s", params->cable, refnic_emu_errata(emu),
		emu->push_wc ? "write-combining" : "uncached",
		emu->faults.wc_garble ? " (garbled: fault injection)" : "");
	if (emu->faults.doorbell_drop != 0)
		EMU_LOG(INFO, "%s: misses 1 in %u doorbells (fault injection)", name,
			emu->faults.doorbell_drop);
	*out = emu;
	return 0;

fail:
	emu_free(emu);
	return ret;
}

void
refnic_emu_destroy(struct refnic_emu *emu)
{
	if (emu == NULL)
		return;
	refnic_emu_lock();
	TAILQ_REMOVE(&refnic_emu_devices, emu, next);
	refnic_emu_cable_detach(emu);
	refnic_emu_engine_put();
	refnic_emu_unlock();
	emu_free(emu);
}

void
refnic_emu_get_resources(const struct refnic_emu *emu, struct refnic_emu_resources *res)
{
	uint16_t v;

	res->bar0 = emu->bar0;
	res->trap = refnic_emu_bar_write;
	res->trap_ctx = (void *)(uintptr_t)emu;
	res->nb_vectors = emu->nb_vectors;
	for (v = 0; v < REFNIC_MAX_VECTORS; v++)
		res->vector_fd[v] = v < emu->nb_vectors ? emu->vector_fd[v] : -1;
}

/* Unlocked walk is fine for callers that own the device's lifetime. */
struct refnic_emu *
refnic_emu_lookup(const char *name)
{
	struct refnic_emu *emu;

	TAILQ_FOREACH(emu, &refnic_emu_devices, next)
		if (strcmp(emu->name, name) == 0)
			return emu;
	return NULL;
}

void
refnic_emu_set_faults(struct refnic_emu *emu, const struct refnic_emu_faults *faults)
{
	const size_t drop = offsetof(struct refnic_emu_faults, doorbell_drop);
	const size_t rest = drop + sizeof(faults->doorbell_drop);

	refnic_emu_lock();
	/* doorbell_drop is read by trapping threads outside every lock
	 * (db_missed()): stored atomically, the rest around it. */
	memcpy(&emu->faults, faults, drop);
	__atomic_store_n(&emu->faults.doorbell_drop, faults->doorbell_drop, __ATOMIC_RELAXED);
	memcpy(RTE_PTR_ADD(&emu->faults, rest), RTE_PTR_ADD(faults, rest),
	       sizeof(*faults) - rest);
	emu_reg_write(emu, REFNIC_REG_ERRATA, refnic_emu_errata(emu));
	refnic_emu_unlock();
}

void
refnic_emu_inject_fatal(struct refnic_emu *emu)
{
	refnic_emu_lock();
	refnic_emu_fatal(emu, REFNIC_FATAL_INJECTED);
	refnic_emu_unlock();
}

void
refnic_emu_inject_queue_error(struct refnic_emu *emu, bool tx, uint16_t qid)
{
	if (qid >= emu->params.max_queues)
		return;
	refnic_emu_lock();
	refnic_emu_queue_fail(emu, tx, qid, "injected error");
	refnic_emu_unlock();
}

void
refnic_emu_set_dataplane_paused(struct refnic_emu *emu, bool paused)
{
	uint16_t q;

	refnic_emu_lock();
	emu->dataplane_paused = paused;
	refnic_emu_unlock();
	/* Inline, the doorbells rung meanwhile found it paused: their work
	 * waits for this moment, as a stalled DMA engine's picks up again. */
	for (q = 0; !paused && emu->inline_exec && q < emu->params.max_queues; q++)
		refnic_emu_trap_tx(emu, q);
	refnic_emu_intr_flush_deferred();	/* the interrupts that work raised */
}

void
refnic_emu_set_cable_plugged(struct refnic_emu *emu, bool plugged)
{
	refnic_emu_lock();
	refnic_emu_cable_set_plugged(emu, plugged);
	refnic_emu_unlock();
}

void
refnic_emu_stats_sum(const struct refnic_emu *emu, struct refnic_hw_stats *sum)
{
	const size_t words = sizeof(*sum) / sizeof(uint64_t);
	uint64_t *out = (uint64_t *)sum;
	unsigned int e;
	size_t w;

	memset(sum, 0, sizeof(*sum));
	for (e = 0; e < REFNIC_EMU_SHARDS; e++) {
		const uint64_t *in = (const uint64_t *)&emu->stats[e];

		for (w = 0; w < words; w++)
			out[w] += in[w];
	}
	/* What the far end's process counted delivering to this port. */
	if (emu->rx_published)
		refnic_emu_cable_stats_add(emu, sum);
	sum->doorbells_dropped = __atomic_load_n(&emu->doorbells_dropped, __ATOMIC_RELAXED);
	refnic_emu_intr_stats_add(emu, sum);
	for (w = 0; w < REFNIC_MAX_QUEUES; w++)
		sum->q[w].rx_doorbells += refnic_emu_rx_uncounted(emu, w);
}

void
refnic_emu_read_stats(struct refnic_emu *emu, struct refnic_hw_stats *stats)
{
	refnic_emu_lock();
	refnic_emu_stats_sum(emu, stats);
	refnic_emu_unlock();
}

void
refnic_emu_read_path_stats(struct refnic_emu *emu, struct refnic_emu_path_stats *out)
{
	const size_t words = sizeof(*out) / sizeof(uint64_t);
	uint64_t *sum = (uint64_t *)out;
	unsigned int e;
	size_t w;

	memset(out, 0, sizeof(*out));
	refnic_emu_lock();
	for (e = 0; e < REFNIC_EMU_SHARDS; e++)
		for (w = 0; w < words; w++)
			sum[w] += ((const uint64_t *)&emu->shard[e].path)[w];
	refnic_emu_unlock();
}

enum refnic_emu_simd
refnic_emu_simd_mode(const struct refnic_emu *emu)
{
	return emu->simd;
}

int
refnic_emu_read_engine_stats(struct refnic_emu *emu, unsigned int engine,
			     struct refnic_hw_stats *stats)
{
	/* Not only its own engines: the far end's may deliver to it. */
	if (engine >= REFNIC_EMU_SHARDS)
		return -EINVAL;
	refnic_emu_lock();
	*stats = emu->stats[engine];
	refnic_emu_unlock();
	return 0;
}

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * The admin queue processor: the device's firmware. It fetches one command
 * at a time, holds it for the profile's latency for that opcode, then applies
 * it and posts the completion. Anything the driver hands over (ring bases,
 * buffer IOVAs, lengths, values) is checked; a bad command fails with a
 * status, it never hurts the device.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_ether.h>
#include <rte_string_fns.h>

#include "refnic_emu_admin.h"
#include "refnic_emu_cable.h"
#include "refnic_emu_clock.h"
#include "refnic_emu_corrupt.h"
#include "refnic_emu_dma_map.h"
#include "refnic_emu_engine.h"
#include "refnic_emu_events.h"
#include "refnic_emu_filter.h"
#include "refnic_emu_flow.h"
#include "refnic_emu_intr.h"
#include "refnic_emu_priv.h"
#include "refnic_emu_profile.h"
#include "refnic_emu_push.h"
#include "refnic_emu_queue.h"
#include "refnic_emu_rss.h"

#define REFNIC_EMU_FW_VERSION	"refnic-emu 1.0.0"
#define REFNIC_AQ_MAX_DEPTH	4096

/* Latch the admin rings from the registers, at the first doorbell after reset. */
static bool
admin_latch(struct refnic_emu *emu)
{
	struct refnic_emu_admin *aq = &emu->aq;
	uint32_t depth = emu_reg_read(emu, REFNIC_REG_AQ_DEPTH);
	uint64_t sq_iova, cq_iova;

	if (depth < 2 || depth > REFNIC_AQ_MAX_DEPTH || !rte_is_power_of_2(depth) ||
	    emu_reg_read(emu, REFNIC_REG_ACQ_DEPTH) != depth) {
		EMU_LOG(ERR, "%s: admin queue depth %u invalid", emu->name, depth);
		return false;
	}
	sq_iova = (uint64_t)emu_reg_read(emu, REFNIC_REG_AQ_BASE_HI) << 32 |
		  emu_reg_read(emu, REFNIC_REG_AQ_BASE_LO);
	cq_iova = (uint64_t)emu_reg_read(emu, REFNIC_REG_ACQ_BASE_HI) << 32 |
		  emu_reg_read(emu, REFNIC_REG_ACQ_BASE_LO);
	aq->sq = refnic_emu_dma_map(emu, sq_iova, depth * sizeof(*aq->sq));
	aq->cq = refnic_emu_dma_map(emu, cq_iova, depth * sizeof(*aq->cq));
	if (aq->sq == NULL || aq->cq == NULL)
		return false;
	aq->depth = depth;
	aq->head = 0;
	aq->cq_phase = REFNIC_PHASE_BIT;
	aq->configured = true;
	return true;
}

/*
 * The device fails: STATUS says FATAL whatever it has. Only a device with
 * fault reporting says why (FATAL_CODE) and posts the event; without
 * (caps_off=fault_report) the driver finds out by reading STATUS.
 */
void
refnic_emu_fatal(struct refnic_emu *emu, uint32_t code)
{
	uint32_t status = emu_reg_read(emu, REFNIC_REG_STATUS);
	bool report = emu_has_cap(emu, REFNIC_CAP_FAULT_REPORT);

	if (report)
		emu_reg_write(emu, REFNIC_REG_FATAL_CODE, code);
	status = (status & ~REFNIC_STATUS_STATE_MASK) | REFNIC_STATE_FATAL |
		 REFNIC_STATUS_FATAL;
	emu_reg_write(emu, REFNIC_REG_STATUS, status);
	refnic_emu_engine_lock_others(emu);
	emu_state_set(emu, REFNIC_STATE_FATAL);
	refnic_emu_engine_unlock_others(emu);
	if (report)
		refnic_emu_post_event(emu, REFNIC_EVENT_FATAL, code);
}

/* A reply into the command's host buffer: what hostile replies garble. */
uint16_t
refnic_emu_admin_dma_to_host(struct refnic_emu *emu, const struct refnic_admin_cmd *cmd,
			     const void *data, uint32_t len)
{
	void *dst;

	if (cmd->buf.len < len)
		return REFNIC_ADMIN_STS_INVALID;
	dst = refnic_emu_dma_map(emu, cmd->buf.iova, len);
	if (dst == NULL)
		return REFNIC_ADMIN_STS_DMA_ERROR;
	memcpy(dst, data, len);
	refnic_emu_corrupt_reply(emu, cmd->opcode, dst, len);
	emu_stats(emu)->dma_writes++;
	return REFNIC_ADMIN_STS_OK;
}

static uint16_t
admin_identify(struct refnic_emu *emu, const struct refnic_admin_cmd *cmd)
{
	struct refnic_identify id;

	memset(&id, 0, sizeof(id));
	id.magic = REFNIC_HW_MAGIC;
	id.hw_version = emu_reg_read(emu, REFNIC_REG_VERSION);
	id.caps = (uint64_t)emu_reg_read(emu, REFNIC_REG_CAPS_HI) << 32 |
		  emu_reg_read(emu, REFNIC_REG_CAPS_LO);
	memcpy(id.mac, emu->perm_mac, sizeof(id.mac));
	id.max_queues = emu->params.max_queues;
	id.min_ring_size = REFNIC_MIN_RING_SIZE;
	id.max_ring_size = REFNIC_MAX_RING_SIZE;
	id.min_mtu = REFNIC_MIN_MTU;
	/* Without jumbo frames, an Ethernet MTU and no more (SET_MTU too). */
	id.max_mtu = id.caps & REFNIC_CAP_JUMBO ? REFNIC_MAX_MTU : RTE_ETHER_MTU;
	id.max_tx_segs = refnic_emu_max_tx_segs(emu);
	id.min_rx_buf_size = REFNIC_MIN_RX_BUF_SIZE;
	id.num_vectors = emu->nb_vectors;
	id.rss_key_size = REFNIC_RSS_KEY_SIZE;
	id.rss_reta_size = REFNIC_RSS_RETA_SIZE;
	id.max_mac_filters = REFNIC_MAX_MAC_FILTERS;
	id.link_speed_mbps = REFNIC_EMU_LINK_SPEED_MBPS;
	id.admin_timeout_us = emu_reg_read(emu, REFNIC_REG_ADMIN_TIMEOUT_US);
	id.errata = emu_reg_read(emu, REFNIC_REG_ERRATA);
	strlcpy(id.fw_version, REFNIC_EMU_FW_VERSION, sizeof(id.fw_version));
	if (id.caps & REFNIC_CAP_FLOW) {
		id.max_flows = REFNIC_EMU_FLOWS;
		id.flow_priorities = REFNIC_EMU_FLOW_PRIORITIES;
	}
	if (id.caps & REFNIC_CAP_TSO) {
		id.max_tso_size = REFNIC_MAX_TSO_SIZE;
		id.max_tso_segs = REFNIC_MAX_TSO_SEGS;
	}
	return refnic_emu_admin_dma_to_host(emu, cmd, &id, sizeof(id));
}

static uint16_t
admin_stats_get(struct refnic_emu *emu, const struct refnic_admin_cmd *cmd)
{
	struct refnic_hw_stats sum;

	if (!emu_has_cap(emu, REFNIC_CAP_STATS_DMA))
		return REFNIC_ADMIN_STS_UNSUPPORTED;	/* caps_off=stats_dma */
	refnic_emu_stats_sum(emu, &sum);
	return refnic_emu_admin_dma_to_host(emu, cmd, &sum, sizeof(sum));
}

/* MAC, MTU, RX mode, features: the port's settings. */
static uint16_t
admin_port_config(struct refnic_emu *emu, const struct refnic_admin_cmd *cmd, uint32_t *result)
{
	switch (cmd->opcode) {
	case REFNIC_ADMIN_SET_MAC:
		if (cmd->mac[0] & 0x01)	/* group address */
			return REFNIC_ADMIN_STS_INVALID;
		memcpy(emu->mac, cmd->mac, sizeof(emu->mac));
		return REFNIC_ADMIN_STS_OK;
	case REFNIC_ADMIN_SET_MTU:
		if (cmd->value < REFNIC_MIN_MTU || cmd->value > REFNIC_MAX_MTU)
			return REFNIC_ADMIN_STS_INVALID;
		/* Within the contract's range, beyond what this device has. */
		if (cmd->value > RTE_ETHER_MTU && !emu_has_cap(emu, REFNIC_CAP_JUMBO))
			return REFNIC_ADMIN_STS_UNSUPPORTED;	/* caps_off=jumbo */
		emu->mtu = cmd->value;
		return REFNIC_ADMIN_STS_OK;
	case REFNIC_ADMIN_SET_RX_MODE:
		if (cmd->value & ~(REFNIC_RX_MODE_UNICAST | REFNIC_RX_MODE_MULTICAST |
				   REFNIC_RX_MODE_BROADCAST | REFNIC_RX_MODE_PROMISC |
				   REFNIC_RX_MODE_ALLMULTI))
			return REFNIC_ADMIN_STS_INVALID;
		emu->rx_mode = cmd->value;
		return REFNIC_ADMIN_STS_OK;
	case REFNIC_ADMIN_GET_FEATURES:
		*result = emu->features;
		return REFNIC_ADMIN_STS_OK;
	case REFNIC_ADMIN_SET_FEATURES:
		/* Only what is switchable and what this device has. */
		if (cmd->value & ~((uint32_t)REFNIC_FEATURES_SWITCHABLE &
				   emu_reg_read(emu, REFNIC_REG_CAPS_LO)))
			return REFNIC_ADMIN_STS_UNSUPPORTED;
		emu->features = cmd->value;
		return REFNIC_ADMIN_STS_OK;
	default:
		return REFNIC_ADMIN_STS_UNSUPPORTED;
	}
}

static uint16_t
admin_queue(struct refnic_emu *emu, const struct refnic_admin_cmd *cmd)
{
	if (cmd->opcode == REFNIC_ADMIN_QUEUE_DESTROY)
		return refnic_emu_queue_destroy(emu, cmd->qdestroy.type, cmd->qdestroy.qid) == 0 ?
			REFNIC_ADMIN_STS_OK : REFNIC_ADMIN_STS_NOT_FOUND;
	switch (refnic_emu_queue_create(emu, &cmd->qcreate)) {
	case 0:
		return REFNIC_ADMIN_STS_OK;
	case -ENOTSUP:
		return REFNIC_ADMIN_STS_UNSUPPORTED;
	default:
		return REFNIC_ADMIN_STS_INVALID;
	}
}

static uint16_t
admin_stats_clear(struct refnic_emu *emu)
{
	unsigned int e;

	for (e = 0; e < REFNIC_EMU_SHARDS; e++)
		memset(&emu->stats[e], 0, sizeof(emu->stats[e]));
	memset(emu->intr->count, 0, sizeof(emu->intr->count));
	refnic_emu_rx_doorbells_forget(emu);
	if (emu->rx_published)
		refnic_emu_cable_stats_clear(emu);
	__atomic_store_n(&emu->doorbells_dropped, 0, __ATOMIC_RELAXED);
	return REFNIC_ADMIN_STS_OK;
}

static uint16_t
admin_link(struct refnic_emu *emu, const struct refnic_admin_cmd *cmd, uint32_t *result)
{
	if (cmd->opcode == REFNIC_ADMIN_LINK_GET) {
		*result = refnic_emu_cable_link_up(emu) ? REFNIC_LINK_UP : 0;
		return REFNIC_ADMIN_STS_OK;
	}
	if (cmd->value & ~REFNIC_LINK_UP)
		return REFNIC_ADMIN_STS_INVALID;
	refnic_emu_cable_set_phy(emu, cmd->value & REFNIC_LINK_UP);
	return REFNIC_ADMIN_STS_OK;
}

static uint16_t
admin_execute(struct refnic_emu *emu, const struct refnic_admin_cmd *cmd, uint32_t *result)
{
	*result = 0;
	switch (cmd->opcode) {
	case REFNIC_ADMIN_NOP:
		return REFNIC_ADMIN_STS_OK;
	case REFNIC_ADMIN_IDENTIFY:
		return admin_identify(emu, cmd);
	case REFNIC_ADMIN_SET_MAC:
	case REFNIC_ADMIN_SET_MTU:
	case REFNIC_ADMIN_SET_RX_MODE:
	case REFNIC_ADMIN_GET_FEATURES:
	case REFNIC_ADMIN_SET_FEATURES:
		return admin_port_config(emu, cmd, result);
	case REFNIC_ADMIN_MAC_FILTER_ADD:
	case REFNIC_ADMIN_MAC_FILTER_DEL:
	case REFNIC_ADMIN_MC_LIST_SET:
	case REFNIC_ADMIN_VLAN_FILTER_ADD:
	case REFNIC_ADMIN_VLAN_FILTER_DEL:
		return refnic_emu_admin_filter(emu, cmd);
	case REFNIC_ADMIN_RSS_SET:
	case REFNIC_ADMIN_RSS_GET:
		return refnic_emu_admin_rss(emu, cmd);
	case REFNIC_ADMIN_QUEUE_CREATE:
	case REFNIC_ADMIN_QUEUE_DESTROY:
		return admin_queue(emu, cmd);
	case REFNIC_ADMIN_STATS_GET:
		return admin_stats_get(emu, cmd);
	case REFNIC_ADMIN_STATS_CLEAR:
		return admin_stats_clear(emu);
	case REFNIC_ADMIN_FW_VERSION:
		return refnic_emu_admin_dma_to_host(emu, cmd, REFNIC_EMU_FW_VERSION,
						    sizeof(REFNIC_EMU_FW_VERSION));
	case REFNIC_ADMIN_PUSH_CHECK:
		return refnic_emu_admin_push_check(emu, cmd->value, result);
	case REFNIC_ADMIN_FLOW_ADD:
	case REFNIC_ADMIN_FLOW_DEL:
	case REFNIC_ADMIN_FLOW_QUERY:
	case REFNIC_ADMIN_FLOW_FLUSH:
		return refnic_emu_admin_flow(emu, cmd);
	case REFNIC_ADMIN_CLOCK_SET:
	case REFNIC_ADMIN_CLOCK_ADJUST:
	case REFNIC_ADMIN_TIMESYNC_CTRL:
		return refnic_emu_admin_clock(emu, cmd);
	case REFNIC_ADMIN_LINK_GET:
	case REFNIC_ADMIN_LINK_SET:
		return admin_link(emu, cmd, result);
	default:
		/* Defined by the contract, not offered by this device version. */
		return REFNIC_ADMIN_STS_UNSUPPORTED;
	}
}

static void
admin_complete(struct refnic_emu *emu)
{
	struct refnic_emu_admin *aq = &emu->aq;
	uint16_t slot = (aq->head - 1) & (aq->depth - 1);
	struct refnic_admin_cpl *cpl = &aq->cq[slot];
	uint32_t result;
	uint16_t status;

	/* Commands change queues and settings the other engines read, and
	 * what senders' passes into this device read (the queue locks take
	 * the receive configuration's write lock too). */
	refnic_emu_engine_lock_others(emu);
	status = admin_execute(emu, &aq->cmd, &result);
	if (emu->rx_published)
		refnic_emu_cable_config_publish(emu);
	refnic_emu_engine_unlock_others(emu);
	cpl->cmd_id = aq->cmd.cmd_id;
	cpl->status = status;
	cpl->result = result;
	refnic_emu_corrupt_admin_cpl(emu, cpl);
	/* Phase last: the driver owns the entry once it sees it. */
	__atomic_store_n(&cpl->phase, aq->cq_phase, __ATOMIC_RELEASE);
	if (slot == aq->depth - 1)
		aq->cq_phase ^= REFNIC_PHASE_BIT;
	aq->busy = false;
	emu_stats(emu)->admin_commands++;
	emu_stats(emu)->dma_writes++;
}

static uint64_t
admin_latency_us(const struct refnic_emu *emu, uint8_t opcode)
{
	uint64_t us = opcode < REFNIC_ADMIN_OPCODE_MAX ?
		      emu->profile->admin_latency_us[opcode] : 0;

	return us * emu->params.admin_latency_pct / 100;
}

/* fault_admin_timeout: is this command one the device drops on the floor? */
static bool
admin_fault_drops(struct refnic_emu *emu, uint8_t opcode)
{
	struct refnic_emu_faults *f = &emu->faults;

	if (f->admin_timeout_every != 0 && emu->admin_fetched % f->admin_timeout_every == 0)
		return true;
	if (f->admin_timeout_times == 0 ||
	    (f->admin_timeout_opcode != opcode &&
	     f->admin_timeout_opcode != REFNIC_EMU_FAULT_ANY_OPCODE))
		return false;
	if (f->admin_timeout_times != UINT32_MAX)
		f->admin_timeout_times--;
	return true;
}

unsigned int
refnic_emu_admin_service(struct refnic_emu *emu, uint64_t now, uint64_t *next_due_tsc)
{
	struct refnic_emu_admin *aq = &emu->aq;
	uint32_t writes = emu_reg_writes(emu, REFNIC_REG_AQ_TAIL);
	unsigned int work = 0;
	uint32_t tail, latency_us;

	if (writes != aq->db_seen) {
		emu_stats(emu)->admin_doorbells += writes - aq->db_seen;
		aq->db_seen = writes;
		if (!aq->configured && !admin_latch(emu)) {
			refnic_emu_fatal(emu, REFNIC_FATAL_QUEUE);
			return 1;
		}
	}
	if (!aq->configured)
		return 0;

	for (;;) {
		if (aq->busy) {
			if (now < aq->due_tsc) {
				*next_due_tsc = RTE_MIN(*next_due_tsc, aq->due_tsc);
				return work;
			}
			admin_complete(emu);
			work++;
		}
		tail = emu_db_tail(&emu->aqdb);
		if (tail >= aq->depth) {
			EMU_LOG(ERR, "%s: admin tail %u beyond depth %u",
				emu->name, tail, aq->depth);
			refnic_emu_fatal(emu, REFNIC_FATAL_QUEUE);
			return work + 1;
		}
		if (aq->head == tail)
			return work;
		aq->cmd = aq->sq[aq->head];
		emu_stats(emu)->dma_reads++;
		emu->admin_fetched++;
		latency_us = admin_latency_us(emu, aq->cmd.opcode);
		/* The driver reads it once AQ_HEAD says the command was taken. */
		if (emu_has_cap(emu, REFNIC_CAP_ADMIN_DUE))
			emu_reg_write(emu, REFNIC_REG_AQ_DUE_US, latency_us);
		aq->head = (aq->head + 1) & (aq->depth - 1);
		emu_reg_write(emu, REFNIC_REG_AQ_HEAD, aq->head);
		work++;
		if (admin_fault_drops(emu, aq->cmd.opcode)) {
			EMU_LOG(INFO, "%s: dropping admin command %s (fault injection)",
				emu->name, refnic_admin_opcode_name(aq->cmd.opcode));
			/* Its completion slot passes by unwritten: keep the phase right. */
			if (aq->head == 0)
				aq->cq_phase ^= REFNIC_PHASE_BIT;
			continue;
		}
		aq->due_tsc = now + refnic_emu_us_to_tsc(latency_us);
		emu_stats(emu)->control_latency_us += latency_us;
		aq->busy = true;
	}
}

/*
 * An AQ_TAIL store, on the storing thread (REFNIC_CAP_ADMIN_DUE): fetch the
 * new command and post it if it is due at once, as a hypervisor's device
 * model executes a command in the trapped doorbell. Its latency runs from
 * the store, not from when an engine gets a CPU: on a CPU the engine shares
 * with the waiting thread, that wake-up cost more than a command takes
 * (bench.sh init). It takes the first engine's lock, which a busy engine
 * gives up after its pass. Returns whether the engine has work: a command
 * to complete later, or one not fetched.
 */
bool
refnic_emu_admin_trap(struct refnic_emu *emu)
{
	uint64_t next_due_tsc = UINT64_MAX;
	bool engine_work;

	if (!emu_has_cap(emu, REFNIC_CAP_ADMIN_DUE) || !refnic_emu_engine_borrow_first())
		return true;
	/* The driver's stores take effect in its order: an event queue it
	 * enabled before this command is latched before the command runs
	 * (else a link event the command brings would find none). */
	if (emu_state(emu) == REFNIC_STATE_READY) {
		refnic_emu_aeq_service(emu);
		refnic_emu_admin_service(emu, rte_get_tsc_cycles(), &next_due_tsc);
	}
	engine_work = emu_state(emu) != REFNIC_STATE_READY || emu->aq.busy;
	refnic_emu_engine_return_first();
	return engine_work;
}

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * The device's telemetry commands (dpdk-telemetry.py), as a NIC's own
 * management interface would show it, apart from any driver:
 *
 *   /refnic/devices          the names of the devices of this process
 *   /refnic/device,<name>    one device: timing profile, where its queue
 *                            work runs (inline, or which engine thread),
 *                            its cable and link, the faults it commits
 *                            (as configured, what is left, what it garbled)
 *
 * Read under the list lock only: the data path is not stopped for a look.
 * What engines change meanwhile (state, faults left) is read as it is.
 */

#include <errno.h>
#include <stdio.h>

#include <rte_telemetry.h>

#include "refnic_compat.h"

#include "refnic_emu_cable.h"
#include "refnic_emu_devargs.h"
#include "refnic_emu_engine.h"
#include "refnic_emu_priv.h"
#include "refnic_emu_profile.h"
#include "refnic_emu_remote.h"

static int
tel_devices(const char *cmd __rte_unused, const char *params __rte_unused,
	    struct rte_tel_data *d)
{
	struct refnic_emu *emu;

	rte_tel_data_start_array(d, RTE_TEL_STRING_VAL);
	refnic_emu_list_lock();
	TAILQ_FOREACH(emu, &refnic_emu_devices, next)
		rte_tel_data_add_array_string(d, emu->name);
	refnic_emu_list_unlock();
	return 0;
}

/* Where queue pair q's work runs: on the doorbell's writer, or an engine. */
static void
queue_placement(const struct refnic_emu *emu, uint16_t q, char *buf, size_t len)
{
	if (emu->inline_exec)
		snprintf(buf, len, "inline");
	else
		refnic_emu_engine_name(q % emu->params.engines, buf, len);
}

static struct rte_tel_data *
tel_queues(const struct refnic_emu *emu)
{
	struct rte_tel_data *a = rte_tel_data_alloc();
	char buf[RTE_TEL_MAX_STRING_LEN];
	uint16_t q;

	if (a == NULL)
		return NULL;
	rte_tel_data_start_array(a, RTE_TEL_STRING_VAL);
	for (q = 0; q < emu->params.max_queues; q++) {
		queue_placement(emu, q, buf, sizeof(buf));
		rte_tel_data_add_array_string(a, buf);
	}
	return a;
}

/* Queues the driver created: 1 or 0 per queue pair, RX or TX. */
static struct rte_tel_data *
tel_enabled(const struct refnic_emu *emu, bool tx)
{
	struct rte_tel_data *a = rte_tel_data_alloc();
	uint16_t q;

	if (a == NULL)
		return NULL;
	rte_tel_data_start_array(a, RTE_TEL_INT_VAL);
	for (q = 0; q < emu->params.max_queues; q++)
		rte_tel_data_add_array_int(a, tx ? emu->txq[q].enabled : emu->rxq[q].enabled);
	return a;
}

/* As configured (devargs), then what is left of them now. */
static struct rte_tel_data *
tel_faults(const struct refnic_emu *emu)
{
	struct rte_tel_data *f = rte_tel_data_alloc();
	char buf[RTE_TEL_MAX_STRING_LEN];

	if (f == NULL)
		return NULL;
	rte_tel_data_start_dict(f);
	refnic_emu_fault_admin_timeout_format(&emu->params.faults, buf, sizeof(buf));
	rte_tel_data_add_dict_string(f, "fault_admin_timeout", buf);
	rte_tel_data_add_dict_uint(f, "fault_reset_fail", emu->params.faults.reset_fail_times);
	refnic_emu_fault_admin_timeout_format(&emu->faults, buf, sizeof(buf));
	rte_tel_data_add_dict_string(f, "admin_timeout_pending", buf);
	rte_tel_data_add_dict_uint(f, "reset_fail_pending", emu->faults.reset_fail_times);
	refnic_emu_fault_corrupt_format(&emu->params.faults, buf, sizeof(buf));
	rte_tel_data_add_dict_string(f, "fault_corrupt", buf);
	rte_tel_data_add_dict_uint(f, "corrupted", __atomic_load_n(&emu->corrupt.garbled,
								  __ATOMIC_RELAXED));
	if (emu->params.faults.fatal_after_ms != 0)
		snprintf(buf, sizeof(buf), "after_ms:%u", emu->params.faults.fatal_after_ms);
	else
		snprintf(buf, sizeof(buf), "off");
	rte_tel_data_add_dict_string(f, "fault_fatal", buf);
	return f;
}

static void
add_container(struct rte_tel_data *d, const char *name, struct rte_tel_data *c)
{
	if (c != NULL && rte_tel_data_add_dict_container(d, name, c, 0) != 0)
		rte_tel_data_free(c);
}

/*
 * Frames an engine thread sent (exec=thread, baremetal): in the device's
 * engine shards. Inline, and over shm, the threads that ring the doorbells
 * carry every frame, and this stays 0.
 */
static uint64_t
tel_engine_tx_packets(const struct refnic_emu *emu)
{
	uint64_t n = 0;
	unsigned int e;
	uint16_t q;

	for (e = 0; e < REFNIC_EMU_MAX_ENGINES; e++)
		for (q = 0; q < REFNIC_MAX_QUEUES; q++)
			n += __atomic_load_n(&emu->stats[e].q[q].tx_packets, __ATOMIC_RELAXED);
	return n;
}

static void
tel_device_fill(const struct refnic_emu *emu, struct rte_tel_data *d)
{
	bool share_cpu;
	unsigned int running = refnic_emu_engine_running(&share_cpu);
	uint64_t remote_stores, remote_kicks;

	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "name", emu->name);
	rte_tel_data_add_dict_string(d, "profile", emu->profile->name);
	rte_tel_data_add_dict_string(d, "exec", emu->inline_exec ? "inline" : "thread");
	rte_tel_data_add_dict_string(d, "exec_given", refnic_emu_exec_name(emu->params.exec));
	rte_tel_data_add_dict_uint(d, "engines", emu->params.engines);
	rte_tel_data_add_dict_uint(d, "engines_running", running);
	rte_tel_data_add_dict_uint(d, "engines_share_cpu", share_cpu);
	rte_tel_data_add_dict_uint(d, "queue_pairs", emu->params.max_queues);
	add_container(d, "queue_work", tel_queues(emu));
	add_container(d, "rxq_enabled", tel_enabled(emu, false));
	add_container(d, "txq_enabled", tel_enabled(emu, true));
	rte_tel_data_add_dict_string(d, "state", refnic_hw_state_name(emu_state(emu)));
	rte_tel_data_add_dict_string(d, "cable", emu->params.cable);
	rte_tel_data_add_dict_string(d, "link", refnic_emu_cable_link_up(emu) ? "up" : "down");
	rte_tel_data_add_dict_uint(d, "admin_latency_pct", emu->params.admin_latency_pct);
	rte_tel_data_add_dict_uint(d, "dataplane_paused", emu->dataplane_paused);
	refnic_emu_remote_counts(emu, &remote_stores, &remote_kicks);
	rte_tel_data_add_dict_uint(d, "secondary_stores", remote_stores);
	rte_tel_data_add_dict_uint(d, "secondary_kicks", remote_kicks);
	rte_tel_data_add_dict_uint(d, "secondary_inline_doorbells",
				  __atomic_load_n(&emu->secondary.inlined, __ATOMIC_RELAXED));
	rte_tel_data_add_dict_uint(d, "engine_tx_packets", tel_engine_tx_packets(emu));
	add_container(d, "faults", tel_faults(emu));
}

static int
tel_device(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct refnic_emu *emu;

	refnic_emu_list_lock();
	emu = params != NULL ? refnic_emu_lookup(params) : NULL;
	if (emu != NULL)
		tel_device_fill(emu, d);
	refnic_emu_list_unlock();
	if (emu == NULL) {
		EMU_LOG(ERR, "telemetry %s: '%.64s' is not a refnic device (see /refnic/devices)",
			cmd, params != NULL ? params : "");
		return -EINVAL;
	}
	return 0;
}

RTE_INIT(refnic_emu_telemetry_init)
{
	/* Help texts: at most 63 characters. */
	rte_telemetry_register_cmd("/refnic/devices", tel_devices,
				   "Returns the refnic device names. No parameters");
	rte_telemetry_register_cmd("/refnic/device", tel_device,
				   "Returns a refnic device's state. Parameters: string name");
}

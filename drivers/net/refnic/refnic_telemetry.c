/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * The driver's telemetry commands (dpdk-telemetry.py), beside ethdev's own
 * /ethdev/... which work on refnic ports as on any:
 *
 *   /refnic/ports          the ids of the refnic ports
 *   /refnic/port,<id>      one port's state: the walk of refnic_info.c,
 *                          one dict per group ("device", "admin", "rxq0", ...)
 *
 * The device's own commands (/refnic/devices, /refnic/device) are the
 * device's, in device/refnic_emu_telemetry.c. Callbacks run on the
 * telemetry thread, as ethdev's do: they read what the lcores write, and
 * take the admin queue's lock for the device counters.
 */

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>

#include <rte_telemetry.h>

#include "refnic.h"

/* Telemetry keys: letters, digits and '_' only. */
#define TEL_KEY_LEN	32

static int
tel_ports(const char *cmd __rte_unused, const char *params __rte_unused,
	  struct rte_tel_data *d)
{
	uint16_t port_id;

	rte_tel_data_start_array(d, RTE_TEL_INT_VAL);
	RTE_ETH_FOREACH_DEV(port_id)
		if (refnic_is_port(&rte_eth_devices[port_id]))
			rte_tel_data_add_array_int(d, port_id);
	return 0;
}

/* Each group of the walk becomes a dict in d, named group or group<index>. */
struct refnic_tel_sink {
	struct refnic_state_sink s;
	struct rte_tel_data *top;
	struct rte_tel_data *cur;	/* NULL if it could not be made */
};

static void
tel_group(struct refnic_state_sink *s, const char *name, int index)
{
	struct refnic_tel_sink *t = container_of(s, struct refnic_tel_sink, s);
	char key[TEL_KEY_LEN];

	if (index < 0)
		snprintf(key, sizeof(key), "%s", name);
	else
		snprintf(key, sizeof(key), "%s%d", name, index);
	t->cur = rte_tel_data_alloc();
	if (t->cur == NULL)
		return;
	rte_tel_data_start_dict(t->cur);
	/* Filled after it is added: telemetry reads it only when replying. */
	if (rte_tel_data_add_dict_container(t->top, key, t->cur, 0) != 0) {
		rte_tel_data_free(t->cur);
		t->cur = NULL;
	}
}

static void
tel_u64(struct refnic_state_sink *s, const char *key, uint64_t val)
{
	struct refnic_tel_sink *t = container_of(s, struct refnic_tel_sink, s);

	if (t->cur != NULL)
		rte_tel_data_add_dict_uint(t->cur, key, val);
}

static void
tel_str(struct refnic_state_sink *s, const char *key, const char *val)
{
	struct refnic_tel_sink *t = container_of(s, struct refnic_tel_sink, s);

	if (t->cur != NULL)
		rte_tel_data_add_dict_string(t->cur, key, val);
}

/* params: a refnic port id, nothing else. */
static int
tel_port_param(const char *cmd, const char *params, uint16_t *port_id)
{
	unsigned long v;
	char *end;

	if (params == NULL || !isdigit((unsigned char)params[0])) {
		PMD_DRV_LOG(ERR, "telemetry %s: expected %s,<port id> (see /refnic/ports)",
			    cmd, cmd);
		return -EINVAL;
	}
	errno = 0;
	v = strtoul(params, &end, 10);
	if (errno != 0 || *end != '\0' || v >= RTE_MAX_ETHPORTS ||
	    !rte_eth_dev_is_valid_port(v) || !refnic_is_port(&rte_eth_devices[v])) {
		PMD_DRV_LOG(ERR, "telemetry %s: '%.32s' is not a refnic port id "
			    "(see /refnic/ports)", cmd, params);
		return -EINVAL;
	}
	*port_id = v;
	return 0;
}

static int
tel_port(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct refnic_tel_sink t = {
		.s = { .group = tel_group, .u64 = tel_u64, .str = tel_str },
		.top = d,
	};
	struct rte_eth_dev *dev;
	uint16_t port_id;
	int ret;

	ret = tel_port_param(cmd, params, &port_id);
	if (ret != 0)
		return ret;
	dev = &rte_eth_devices[port_id];
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_int(d, "port_id", port_id);
	rte_tel_data_add_dict_string(d, "name", dev->data->name);
	refnic_port_state(dev, &t.s);
	return 0;
}

RTE_INIT(refnic_telemetry_init)
{
	/* Help texts: at most 63 characters. */
	rte_telemetry_register_cmd("/refnic/ports", tel_ports,
				   "Returns the refnic port ids. No parameters");
	rte_telemetry_register_cmd("/refnic/port", tel_port,
				   "Returns a refnic port's state. Parameters: int port_id");
}

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * The device's own settings, from the devargs users type: which cable, which
 * platform it models, how many queues, where its work runs, which faults it
 * commits. The driver parses its keys; the bus glue hands both the same list.
 * Strict parsing, one clear error line per bad value.
 */

#include <ctype.h>
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <rte_string_fns.h>

#include "refnic_emu_cable.h"
#include "refnic_emu_devargs.h"
#include "refnic_emu_priv.h"
#include "refnic_emu_profile.h"
#include "refnic_emu_simd.h"

#define ARG_CABLE		"cable"
#define ARG_PROFILE		"profile"
#define ARG_EXEC		"exec"
#define ARG_QUEUES		"queues"
#define ARG_ENGINES		"engines"
#define ARG_ADMIN_LATENCY_PCT	"admin_latency_pct"
#define ARG_FAULT_ADMIN_TIMEOUT	"fault_admin_timeout"
#define ARG_FAULT_RESET_FAIL	"fault_reset_fail"
#define ARG_FAULT_CORRUPT	"fault_corrupt"
#define ARG_FAULT_FATAL		"fault_fatal"
#define ARG_FAULT_DOORBELL_DROP	"fault_doorbell_drop"
#define ARG_ERRATA		"errata"
#define ARG_BAR_WC		"bar_wc"
#define ARG_FAULT_WC_GARBLE	"fault_wc_garble"
#define ARG_MAX_TX_SEGS		"max_tx_segs"
#define ARG_CAPS_OFF		"caps_off"
#define ARG_VXLAN_VNI		"vxlan_vni"
#define ARG_VXLAN_LOCAL		"vxlan_local"
#define ARG_MAC			"mac"
#define ARG_DEVICE_SIMD		"device_simd"

#define DOORBELL_DROP_MAX	1000000000u

/*
 * Error lines quote at most ARG_QUOTE_LEN characters of a value users
 * typed, then "...": a value may be kilobytes long. The driver has the same
 * small helper for its keys (refnic_devargs.h); the device and the driver
 * share nothing but the hardware contract, so each side keeps its own.
 */
#define ARG_QUOTE_LEN		32
#define ARG_QUOTE_FMT		"%.*s%s"
#define ARG_QUOTE(v)		ARG_QUOTE_LEN, arg_or_empty(v), arg_ellipsis(v)

static inline const char *
arg_or_empty(const char *v)
{
	return v != NULL ? v : "";
}

static inline const char *
arg_ellipsis(const char *v)
{
	return v != NULL && strnlen(v, ARG_QUOTE_LEN + 1) > ARG_QUOTE_LEN ? "..." : "";
}

const char * const refnic_emu_devargs_keys[] = {
	ARG_CABLE,
	ARG_PROFILE,
	ARG_EXEC,
	ARG_QUEUES,
	ARG_ENGINES,
	ARG_ADMIN_LATENCY_PCT,
	ARG_FAULT_ADMIN_TIMEOUT,
	ARG_FAULT_RESET_FAIL,
	ARG_FAULT_CORRUPT,
	ARG_FAULT_FATAL,
	ARG_FAULT_DOORBELL_DROP,
	ARG_ERRATA,
	ARG_BAR_WC,
	ARG_FAULT_WC_GARBLE,
	ARG_MAX_TX_SEGS,
	ARG_CAPS_OFF,
	ARG_VXLAN_VNI,
	ARG_VXLAN_LOCAL,
	ARG_MAC,
	ARG_DEVICE_SIMD,
	NULL
};

/* Strict decimal: digits only, no sign, no trailing junk, within [min, max]. */
static int
parse_u32(const char *s, uint32_t min, uint32_t max, uint32_t *out)
{
	unsigned long v;
	char *end;

	if (s == NULL || !isdigit((unsigned char)s[0]))
		return -EINVAL;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno != 0 || *end != '\0' || v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

static int
parse_count(const char *key, const char *value, uint32_t max, uint16_t *out)
{
	uint32_t v;

	if (parse_u32(value, 1, max, &v) != 0) {
		EMU_LOG(ERR, "invalid %s=" ARG_QUOTE_FMT ": expected an integer from 1 to %u",
			key, ARG_QUOTE(value), max);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

static int
handle_queues(const char *key, const char *value, void *opaque)
{
	return parse_count(key, value, REFNIC_MAX_QUEUES,
			   &((struct refnic_emu_params *)opaque)->max_queues);
}

static int
handle_engines(const char *key, const char *value, void *opaque)
{
	return parse_count(key, value, REFNIC_EMU_MAX_ENGINES,
			   &((struct refnic_emu_params *)opaque)->engines);
}

static int
handle_admin_latency_pct(const char *key, const char *value, void *opaque)
{
	struct refnic_emu_params *p = opaque;

	if (parse_u32(value, 0, 100000, &p->admin_latency_pct) != 0) {
		EMU_LOG(ERR, "invalid %s=" ARG_QUOTE_FMT ": expected a percentage from 0 to "
			"100000", key, ARG_QUOTE(value));
		return -EINVAL;
	}
	return 0;
}

static int
handle_fault_reset_fail(const char *key, const char *value, void *opaque)
{
	struct refnic_emu_params *p = opaque;

	if (parse_u32(value, 0, 1000, &p->faults.reset_fail_times) != 0) {
		EMU_LOG(ERR, "invalid %s=" ARG_QUOTE_FMT ": expected how many resets fail, "
			"0 to 1000", key, ARG_QUOTE(value));
		return -EINVAL;
	}
	return 0;
}

/*
 * fault_doorbell_drop=N: miss 1 in N TAIL writes; 0 is off. 1 would miss
 * every one, the re-rings' AQ_TAIL writes too: no driver could recover.
 */
static int
handle_fault_doorbell_drop(const char *key, const char *value, void *opaque)
{
	struct refnic_emu_params *p = opaque;
	uint32_t n;

	if (parse_u32(value, 0, DOORBELL_DROP_MAX, &n) != 0 || n == 1) {
		EMU_LOG(ERR, "invalid %s=" ARG_QUOTE_FMT ": expected 0 (off) or N from 2 to "
			"%u, to miss 1 in N doorbells", key, ARG_QUOTE(value), DOORBELL_DROP_MAX);
		return -EINVAL;
	}
	p->faults.doorbell_drop = n;
	return 0;
}

/* errata=none|missed_doorbell: the ASIC revision modelled, without faults. */
static int
handle_errata(const char *key, const char *value, void *opaque)
{
	struct refnic_emu_params *p = opaque;

	if (value != NULL && strcmp(value, "none") == 0) {
		p->errata = 0;
		return 0;
	}
	if (value != NULL && strcmp(value, "missed_doorbell") == 0) {
		p->errata = REFNIC_ERRATA_MISSED_DOORBELL;
		return 0;
	}
	EMU_LOG(ERR, "invalid %s=" ARG_QUOTE_FMT ": expected none or missed_doorbell", key,
		ARG_QUOTE(value));
	return -EINVAL;
}

/* fault_admin_timeout=<command>[:<times>] | any[:<times>] | every:<n> */
static int
handle_fault_admin_timeout(const char *key, const char *value, void *opaque)
{
	struct refnic_emu_faults *f = &((struct refnic_emu_params *)opaque)->faults;
	char name[32], *sep, *end;
	unsigned long n = UINT32_MAX;
	unsigned int op;

	if (value == NULL || strlen(value) >= sizeof(name))
		goto bad;
	strlcpy(name, value, sizeof(name));
	sep = strchr(name, ':');
	if (sep != NULL) {
		*sep++ = '\0';
		n = strtoul(sep, &end, 10);
		if (!isdigit((unsigned char)*sep) || *end != '\0' || n == 0 || n > UINT32_MAX - 1)
			goto bad;
	}
	if (strcmp(name, "every") == 0 && sep != NULL) {
		f->admin_timeout_every = n;
		return 0;
	}
	if (strcmp(name, "any") == 0) {
		f->admin_timeout_opcode = REFNIC_EMU_FAULT_ANY_OPCODE;
		f->admin_timeout_times = n;
		return 0;
	}
	for (op = 0; op < REFNIC_ADMIN_OPCODE_MAX; op++) {
		if (strcasecmp(name, refnic_admin_opcode_name(op)) == 0) {
			f->admin_timeout_opcode = op;
			f->admin_timeout_times = n;
			return 0;
		}
	}
bad:
	EMU_LOG(ERR, "invalid %s=" ARG_QUOTE_FMT ": expected <command>[:<times>], "
		"any[:<times>] or every:<n>, with <command> an admin opcode name such as queue_create",
		key, ARG_QUOTE(value));
	return -EINVAL;
}

static const struct {
	const char *name;
	uint8_t what;
} corrupt_kinds[] = {
	{ "rx", REFNIC_EMU_CORRUPT_RX },
	{ "tx", REFNIC_EMU_CORRUPT_TX },
	{ "admin", REFNIC_EMU_CORRUPT_ADMIN | REFNIC_EMU_CORRUPT_REPLY },
	{ "reply", REFNIC_EMU_CORRUPT_REPLY },
	{ "event", REFNIC_EMU_CORRUPT_EVENT },
	{ "any", REFNIC_EMU_CORRUPT_ANY },
};

/*
 * fault_corrupt=rx|tx|admin|reply|event|any:<n>: garble one in n of those
 * writes; admin is completions and reply buffers, reply the buffers only.
 */
static int
handle_fault_corrupt(const char *key, const char *value, void *opaque)
{
	struct refnic_emu_faults *f = &((struct refnic_emu_params *)opaque)->faults;
	const char *sep = value != NULL ? strchr(value, ':') : NULL;
	unsigned int i;
	uint32_t n;

	for (i = 0; sep != NULL && i < RTE_DIM(corrupt_kinds); i++) {
		if (strlen(corrupt_kinds[i].name) == (size_t)(sep - value) &&
		    strncmp(value, corrupt_kinds[i].name, sep - value) == 0 &&
		    parse_u32(sep + 1, 1, 1000000000, &n) == 0) {
			f->corrupt_what = corrupt_kinds[i].what;
			f->corrupt_every = n;
			return 0;
		}
	}
	EMU_LOG(ERR, "invalid %s=" ARG_QUOTE_FMT ": expected rx, tx, admin, reply, event "
		"or any, ':', and n from 1 to 1000000000 (one in n of those writes is garbled)", key,
		ARG_QUOTE(value));
	return -EINVAL;
}

/* fault_fatal=after_ms:<ms>: the device fails, once, that long after it is created */
static int
handle_fault_fatal(const char *key, const char *value, void *opaque)
{
	struct refnic_emu_faults *f = &((struct refnic_emu_params *)opaque)->faults;
	static const char prefix[] = "after_ms:";

	if (value == NULL || strncmp(value, prefix, sizeof(prefix) - 1) != 0 ||
	    parse_u32(value + sizeof(prefix) - 1, 1, 3600000, &f->fatal_after_ms) != 0) {
		EMU_LOG(ERR, "invalid %s=" ARG_QUOTE_FMT ": expected after_ms:<ms>, 1 to "
			"3600000", key, ARG_QUOTE(value));
		return -EINVAL;
	}
	return 0;
}

/*
 * A name users type: letters, digits, '_', '-', '.'; not empty. The name
 * may be the part of the value after a prefix ("shm:NAME").
 */
static int
parse_name(const char *key, const char *value, const char *name, size_t max_len)
{
	const char *p;

	if (name[0] == '\0' || strlen(name) > max_len) {
		EMU_LOG(ERR, "invalid %s=" ARG_QUOTE_FMT ": expected a name of 1 to %zu "
			"characters", key, ARG_QUOTE(value), max_len);
		return -EINVAL;
	}
	for (p = name; *p != '\0'; p++) {
		if (!isalnum((unsigned char)*p) && *p != '_' && *p != '-' && *p != '.') {
			EMU_LOG(ERR, "invalid %s=" ARG_QUOTE_FMT ": '%c' is not allowed in a name "
				"(letters, digits, '_', '-', '.')", key, ARG_QUOTE(value), *p);
			return -EINVAL;
		}
	}
	return 0;
}

/*
 * loopback | NAME (in this process) | shm:NAME (two processes) | tap:IFNAME |
 * vxlan:ADDR[:PORT]. Names and addresses are checked here; whether the
 * cable can be made, attach says.
 */
static int
handle_cable(const char *key, const char *value, void *opaque)
{
	struct refnic_emu_params *p = opaque;
	const char *name = value != NULL ? value : "";
	size_t max_len = sizeof(p->cable) - 1;

	if (strncmp(name, REFNIC_EMU_CABLE_VXLAN_PREFIX,
		    strlen(REFNIC_EMU_CABLE_VXLAN_PREFIX)) == 0) {
		if (strlen(value) >= sizeof(p->cable) ||
		    !refnic_emu_cable_addr_valid(REFNIC_EMU_CABLE_VXLAN_PREFIX,
						 name + strlen(REFNIC_EMU_CABLE_VXLAN_PREFIX))) {
			EMU_LOG(ERR, "invalid %s=" ARG_QUOTE_FMT ": expected vxlan:IPV4[:PORT] "
				"or vxlan:[IPV6][:PORT]", key, ARG_QUOTE(value));
			return -EINVAL;
		}
		strlcpy(p->cable, value, sizeof(p->cable));
		return 0;
	}
	if (strchr(name, ':') != NULL) {
		if (strncmp(name, REFNIC_EMU_CABLE_SHM_PREFIX,
			    strlen(REFNIC_EMU_CABLE_SHM_PREFIX)) == 0) {
			name += strlen(REFNIC_EMU_CABLE_SHM_PREFIX);
		} else if (strncmp(name, REFNIC_EMU_CABLE_TAP_PREFIX,
				   strlen(REFNIC_EMU_CABLE_TAP_PREFIX)) == 0) {
			name += strlen(REFNIC_EMU_CABLE_TAP_PREFIX);
			max_len = IFNAMSIZ - 1;	/* a kernel interface name */
		} else {
			EMU_LOG(ERR, "invalid %s=" ARG_QUOTE_FMT ": expected loopback, NAME, "
				"shm:NAME, tap:IFNAME or vxlan:ADDR[:PORT]", key, ARG_QUOTE(value));
			return -EINVAL;
		}
		max_len = RTE_MIN(max_len, sizeof(p->cable) - 1 - (name - value));
	}
	if (parse_name(key, value, name, max_len) != 0)
		return -EINVAL;
	strlcpy(p->cable, value, sizeof(p->cable));
	return 0;
}

static int
handle_vxlan_vni(const char *key, const char *value, void *opaque)
{
	struct refnic_emu_params *p = opaque;

	if (parse_u32(value, 0, REFNIC_EMU_CABLE_VXLAN_VNI_MAX, &p->vxlan_vni) != 0) {
		EMU_LOG(ERR, "invalid %s=" ARG_QUOTE_FMT ": expected a VNI from 0 to %u",
			key, ARG_QUOTE(value), REFNIC_EMU_CABLE_VXLAN_VNI_MAX);
		return -EINVAL;
	}
	return 0;
}

static int
handle_vxlan_local(const char *key, const char *value, void *opaque)
{
	struct refnic_emu_params *p = opaque;

	if (value == NULL || strlen(value) >= sizeof(p->vxlan_local) ||
	    !refnic_emu_cable_addr_valid(REFNIC_EMU_CABLE_VXLAN_PREFIX, value)) {
		EMU_LOG(ERR, "invalid %s=" ARG_QUOTE_FMT ": expected IPV4[:PORT] or "
			"[IPV6][:PORT]", key, ARG_QUOTE(value));
		return -EINVAL;
	}
	strlcpy(p->vxlan_local, value, sizeof(p->vxlan_local));
	return 0;
}

static unsigned int
hex_value(char c)
{
	return isdigit((unsigned char)c) ? c - '0' : tolower((unsigned char)c) - 'a' + 10;
}

/*
 * XX:XX:XX:XX:XX:XX in hex digits of either case, and nothing else: the
 * same on every DPDK release (rte_ether_unformat_addr() takes more forms
 * in newer ones).
 */
static int
parse_mac(const char *s, uint8_t mac[6])
{
	unsigned int i;

	for (i = 0; i < 6; i++, s += 3) {
		if (!isxdigit((unsigned char)s[0]) || !isxdigit((unsigned char)s[1]) ||
		    s[2] != (i < 5 ? ':' : '\0'))
			return -EINVAL;
		mac[i] = hex_value(s[0]) << 4 | hex_value(s[1]);
	}
	return 0;
}

/*
 * mac=XX:XX:XX:XX:XX:XX: the port's permanent address, as a hypervisor sets
 * a virtual NIC's. Unicast and not all zero: it is the address the port
 * answers to and comes back to at every reset.
 */
static int
handle_mac(const char *key, const char *value, void *opaque)
{
	static const uint8_t zero[6];
	struct refnic_emu_params *p = opaque;
	uint8_t mac[6];

	if (value == NULL || parse_mac(value, mac) != 0 || (mac[0] & 0x01) != 0 ||
	    memcmp(mac, zero, sizeof(zero)) == 0) {
		EMU_LOG(ERR, "invalid %s=" ARG_QUOTE_FMT ": expected a unicast address "
			"XX:XX:XX:XX:XX:XX, not all zero", key, ARG_QUOTE(value));
		return -EINVAL;
	}
	memcpy(p->mac, mac, sizeof(p->mac));
	return 0;
}

static int
handle_profile(const char *key, const char *value, void *opaque)
{
	if (value == NULL || refnic_emu_profile_parse(value,
			&((struct refnic_emu_params *)opaque)->profile) != 0) {
		EMU_LOG(ERR, "invalid %s=" ARG_QUOTE_FMT ": expected ideal, baremetal or vm",
			key, ARG_QUOTE(value));
		return -EINVAL;
	}
	return 0;
}

static const char * const exec_names[] = {
	[REFNIC_EXEC_AUTO] = "auto",
	[REFNIC_EXEC_INLINE] = "inline",
	[REFNIC_EXEC_THREAD] = "thread",
};

static int
handle_exec(const char *key, const char *value, void *opaque)
{
	unsigned int i;

	for (i = 0; value != NULL && i < RTE_DIM(exec_names); i++) {
		if (strcmp(value, exec_names[i]) == 0) {
			((struct refnic_emu_params *)opaque)->exec = i;
			return 0;
		}
	}
	EMU_LOG(ERR, "invalid %s=" ARG_QUOTE_FMT ": expected auto, inline or thread", key,
		ARG_QUOTE(value));
	return -EINVAL;
}

/* How the platform maps the push window: auto (the profile's), on, off. */
static int
handle_bar_wc(const char *key, const char *value, void *opaque)
{
	static const char * const names[] = {
		[REFNIC_BAR_WC_AUTO] = "auto",
		[REFNIC_BAR_WC_ON] = "on",
		[REFNIC_BAR_WC_OFF] = "off",
	};
	unsigned int i;

	for (i = 0; value != NULL && i < RTE_DIM(names); i++) {
		if (strcmp(value, names[i]) == 0) {
			((struct refnic_emu_params *)opaque)->bar_wc = i;
			return 0;
		}
	}
	EMU_LOG(ERR, "invalid %s=" ARG_QUOTE_FMT ": expected auto, on or off", key,
		ARG_QUOTE(value));
	return -EINVAL;
}

/* device_simd=auto|scalar|sse|avx2: the descriptor stages (refnic_emu_simd.h). */
static int
handle_device_simd(const char *key, const char *value, void *opaque)
{
	if (refnic_emu_simd_parse(value, &((struct refnic_emu_params *)opaque)->simd) != 0) {
		EMU_LOG(ERR, "invalid %s=" ARG_QUOTE_FMT ": expected auto, scalar, sse or avx2",
			key, ARG_QUOTE(value));
		return -EINVAL;
	}
	return 0;
}

static int
handle_fault_wc_garble(const char *key, const char *value, void *opaque)
{
	uint32_t v;

	if (parse_u32(value, 0, 1, &v) != 0) {
		EMU_LOG(ERR, "invalid %s=" ARG_QUOTE_FMT ": expected 0 or 1", key, ARG_QUOTE(value));
		return -EINVAL;
	}
	((struct refnic_emu_params *)opaque)->faults.wc_garble = v;
	return 0;
}

/* max_tx_segs=N: the device takes packets of at most N descriptors, and says so */
static int
handle_max_tx_segs(const char *key, const char *value, void *opaque)
{
	return parse_count(key, value, REFNIC_MAX_TX_SEGS,
			   &((struct refnic_emu_params *)opaque)->max_tx_segs);
}

static const struct {
	const char *name;
	uint64_t caps;
} cap_names[] = {
	{ "rss", REFNIC_CAP_RSS },
	{ "rx_csum", REFNIC_CAP_RX_CSUM },
	{ "tx_csum", REFNIC_CAP_TX_CSUM },
	{ "vlan_strip", REFNIC_CAP_VLAN_STRIP },
	{ "vlan_insert", REFNIC_CAP_VLAN_INSERT },
	{ "vlan_filter", REFNIC_CAP_VLAN_FILTER },
	{ "scatter", REFNIC_CAP_SCATTER },
	{ "moderation", REFNIC_CAP_INTR_MODERATION },
	{ "push", REFNIC_CAP_TX_PUSH },
	{ "flow", REFNIC_CAP_FLOW },
	{ "tso", REFNIC_CAP_TSO },
	{ "rx_tstamp", REFNIC_CAP_RX_TSTAMP },	/* (1.4) */
	{ "ptp", REFNIC_CAP_PTP },		/* (1.4) */
	{ "rx_ptype", REFNIC_CAP_RX_PTYPE },	/* (1.3) */
	{ "jumbo", REFNIC_CAP_JUMBO },
	{ "aeq", REFNIC_CAP_AEQ },
	{ "fault_report", REFNIC_CAP_FAULT_REPORT },
	{ "stats_dma", REFNIC_CAP_STATS_DMA },
	{ "admin_due", REFNIC_CAP_ADMIN_DUE },	/* (1.5) */
	{ "rx_wb", REFNIC_CAP_RX_WB },		/* (1.6) */
};

/* caps_off=<cap>[+<cap>...]: a device model without those features */
static int
handle_caps_off(const char *key, const char *value, void *opaque)
{
	struct refnic_emu_params *p = opaque;
	const char *s = value != NULL ? value : "", *end;
	uint64_t caps = 0;
	unsigned int i;
	size_t len;

	do {
		end = strchr(s, '+');
		len = end != NULL ? (size_t)(end - s) : strlen(s);
		for (i = 0; i < RTE_DIM(cap_names); i++)
			if (strlen(cap_names[i].name) == len &&
			    strncmp(s, cap_names[i].name, len) == 0)
				break;
		if (i == RTE_DIM(cap_names)) {
			EMU_LOG(ERR, "invalid %s=" ARG_QUOTE_FMT ": expected capabilities joined by '+', "
				"of rss, rx_csum, tx_csum, vlan_strip, vlan_insert, vlan_filter, "
				"scatter, moderation, push, flow, tso, rx_tstamp, ptp, rx_ptype, "
				"jumbo, aeq, fault_report, stats_dma", key, ARG_QUOTE(value));
			return -EINVAL;
		}
		caps |= cap_names[i].caps;
		s = end != NULL ? end + 1 : NULL;
	} while (s != NULL);
	p->caps_off = caps;
	return 0;
}

static const struct {
	const char *key;
	arg_handler_t handler;
} device_args[] = {
	{ ARG_CABLE, handle_cable },
	{ ARG_PROFILE, handle_profile },
	{ ARG_EXEC, handle_exec },
	{ ARG_QUEUES, handle_queues },
	{ ARG_ENGINES, handle_engines },
	{ ARG_ADMIN_LATENCY_PCT, handle_admin_latency_pct },
	{ ARG_FAULT_ADMIN_TIMEOUT, handle_fault_admin_timeout },
	{ ARG_FAULT_RESET_FAIL, handle_fault_reset_fail },
	{ ARG_FAULT_CORRUPT, handle_fault_corrupt },
	{ ARG_FAULT_FATAL, handle_fault_fatal },
	{ ARG_FAULT_DOORBELL_DROP, handle_fault_doorbell_drop },
	{ ARG_ERRATA, handle_errata },
	{ ARG_BAR_WC, handle_bar_wc },
	{ ARG_FAULT_WC_GARBLE, handle_fault_wc_garble },
	{ ARG_MAX_TX_SEGS, handle_max_tx_segs },
	{ ARG_CAPS_OFF, handle_caps_off },
	{ ARG_VXLAN_VNI, handle_vxlan_vni },
	{ ARG_VXLAN_LOCAL, handle_vxlan_local },
	{ ARG_MAC, handle_mac },
	{ ARG_DEVICE_SIMD, handle_device_simd },
};

int
refnic_emu_devargs_parse(const char *name, const struct rte_kvargs *kvlist,
			 struct refnic_emu_params *params)
{
	const struct refnic_profile *profile;
	unsigned int i;

	refnic_emu_params_default(params);
	for (i = 0; kvlist != NULL && i < RTE_DIM(device_args); i++)
		if (rte_kvargs_process(kvlist, device_args[i].key, device_args[i].handler,
				       params) != 0)
			return -EINVAL;
	if (kvlist != NULL && strncmp(params->cable, REFNIC_EMU_CABLE_VXLAN_PREFIX,
				      strlen(REFNIC_EMU_CABLE_VXLAN_PREFIX)) != 0 &&
	    (rte_kvargs_count(kvlist, ARG_VXLAN_VNI) != 0 ||
	     rte_kvargs_count(kvlist, ARG_VXLAN_LOCAL) != 0)) {
		EMU_LOG(ERR, "%s: %s= and %s= go with cable=vxlan:..., not cable=%s", name,
			ARG_VXLAN_VNI, ARG_VXLAN_LOCAL, params->cable);
		return -EINVAL;
	}
	profile = refnic_emu_profile_get(params->profile);
	if (params->exec == REFNIC_EXEC_INLINE && !refnic_emu_profile_allows_inline(profile)) {
		EMU_LOG(ERR, "%s: exec=inline cannot run profile=%s: its descriptor fetch is a "
			"DMA round trip after the doorbell, which only an engine thread models; "
			"use exec=thread or exec=auto with it", name, profile->name);
		return -EINVAL;
	}
	return 0;
}

const char *
refnic_emu_exec_name(enum refnic_emu_exec exec)
{
	return (unsigned int)exec < RTE_DIM(exec_names) ? exec_names[exec] : "?";
}

/* fault_admin_timeout's value as users type it ("off" when none). */
int
refnic_emu_fault_admin_timeout_format(const struct refnic_emu_faults *f, char *buf,
				      size_t len)
{
	char op[32];
	size_t i;

	if (f->admin_timeout_every != 0)
		return snprintf(buf, len, "every:%u", f->admin_timeout_every);
	if (f->admin_timeout_times == 0)
		return snprintf(buf, len, "off");
	if (f->admin_timeout_opcode == REFNIC_EMU_FAULT_ANY_OPCODE)
		strlcpy(op, "any", sizeof(op));
	else
		strlcpy(op, refnic_admin_opcode_name(f->admin_timeout_opcode), sizeof(op));
	for (i = 0; op[i] != '\0'; i++)
		op[i] = tolower((unsigned char)op[i]);	/* as users type it */
	if (f->admin_timeout_times == UINT32_MAX)
		return snprintf(buf, len, "%s", op);
	return snprintf(buf, len, "%s:%u", op, f->admin_timeout_times);
}

/* fault_corrupt's value as users type it ("off" when none). */
int
refnic_emu_fault_corrupt_format(const struct refnic_emu_faults *f, char *buf, size_t len)
{
	unsigned int i;

	for (i = 0; f->corrupt_every != 0 && i < RTE_DIM(corrupt_kinds); i++)
		if (corrupt_kinds[i].what == f->corrupt_what)
			return snprintf(buf, len, "%s:%u", corrupt_kinds[i].name, f->corrupt_every);
	return snprintf(buf, len, "off");
}

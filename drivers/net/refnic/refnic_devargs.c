/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * Devargs, the ENA way: a NULL-terminated list of allowed keys, one typed
 * handler per key, strict parsing with one clear error line per bad value,
 * and a failed probe when anything does not parse.
 */

#include <ctype.h>
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_kvargs.h>
#include <rte_string_fns.h>

#include "refnic_devargs.h"
#include "refnic_logs.h"
#include "refnic_hw.h"

#define POLL_US_MAX	1000000	/* one second between polls is already absurd */

static const char * const refnic_valid_args[] = {
	REFNIC_ARG_CABLE,
	REFNIC_ARG_PROFILE,
	REFNIC_ARG_QUEUES,
	REFNIC_ARG_ENGINES,
	REFNIC_ARG_ADMIN_POLL,
	REFNIC_ARG_ADMIN_LATENCY_PCT,
	REFNIC_ARG_FAULT_ADMIN_TIMEOUT,
	REFNIC_ARG_FAULT_RESET_FAIL,
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

/* A count from 1 to max. */
static int
parse_count(const char *key, const char *value, uint32_t max, uint16_t *out)
{
	uint32_t v;

	if (parse_u32(value, 1, max, &v) != 0) {
		PMD_INIT_LOG(ERR, "invalid %s=%s: expected an integer from 1 to %u",
			     key, value ? value : "", max);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

static int
handle_queues(const char *key, const char *value, void *opaque)
{
	return parse_count(key, value, REFNIC_MAX_QUEUES,
			   &((struct refnic_devargs *)opaque)->queues);
}

static int
handle_engines(const char *key, const char *value, void *opaque)
{
	return parse_count(key, value, REFNIC_ARG_ENGINES_MAX,
			   &((struct refnic_devargs *)opaque)->engines);
}

static int
handle_admin_latency_pct(const char *key, const char *value, void *opaque)
{
	struct refnic_devargs *a = opaque;
	uint32_t v;

	if (parse_u32(value, 0, 100000, &v) != 0) {
		PMD_INIT_LOG(ERR, "invalid %s=%s: expected a percentage from 0 to 100000",
			     key, value ? value : "");
		return -EINVAL;
	}
	a->admin_latency_pct = v;
	return 0;
}

static int
handle_fault_reset_fail(const char *key, const char *value, void *opaque)
{
	struct refnic_devargs *a = opaque;

	if (parse_u32(value, 0, 1000, &a->fault_reset_fail) != 0) {
		PMD_INIT_LOG(ERR, "invalid %s=%s: expected how many resets fail, 0 to 1000",
			     key, value ? value : "");
		return -EINVAL;
	}
	return 0;
}

static int
handle_fault_admin_timeout(const char *key, const char *value, void *opaque)
{
	struct refnic_devargs *a = opaque;

	/* The device knows its commands and checks the rest. */
	if (value == NULL || value[0] == '\0' || strlen(value) >= sizeof(a->fault_admin_timeout)) {
		PMD_INIT_LOG(ERR, "invalid %s=%s", key, value ? value : "");
		return -EINVAL;
	}
	strlcpy(a->fault_admin_timeout, value, sizeof(a->fault_admin_timeout));
	return 0;
}

/*
 * A name users type: letters, digits, '_', '-', '.'; not empty. The name
 * may be the part of the value after a prefix ("shm:NAME").
 */
static int
parse_name_in(const char *key, const char *value, const char *name, char *out, size_t len)
{
	const char *p;

	if (name[0] == '\0' || strlen(name) >= len) {
		PMD_INIT_LOG(ERR, "invalid %s=%s: expected a name of 1 to %zu characters",
			     key, value, len - 1);
		return -EINVAL;
	}
	for (p = name; *p != '\0'; p++) {
		if (!isalnum((unsigned char)*p) && *p != '_' && *p != '-' && *p != '.') {
			PMD_INIT_LOG(ERR, "invalid %s=%s: '%c' is not allowed in a name "
				     "(letters, digits, '_', '-', '.')", key, value, *p);
			return -EINVAL;
		}
	}
	strlcpy(out, name, len);
	return 0;
}

static int
parse_name(const char *key, const char *value, char *out, size_t len)
{
	return parse_name_in(key, value ? value : "", value ? value : "", out, len);
}

/*
 * loopback | NAME (in this process) | shm:NAME (two processes) | tap:IFNAME.
 * Names are checked here; whether the cable can be made, the device says.
 */
static int
handle_cable(const char *key, const char *value, void *opaque)
{
	static const char *const kinds[] = { "shm:", "tap:" };
	struct refnic_devargs *a = opaque;
	/* Both kinds' prefixes have 4 characters. */
	char name[REFNIC_ARG_NAME_LEN - 4];
	size_t name_len = sizeof(name);
	const char *colon;
	unsigned int k;

	colon = value != NULL ? strchr(value, ':') : NULL;
	if (colon == NULL)
		return parse_name(key, value, a->cable, sizeof(a->cable));
	for (k = 0; k < RTE_DIM(kinds); k++)
		if (strncmp(value, kinds[k], strlen(kinds[k])) == 0)
			break;
	if (k == RTE_DIM(kinds)) {
		PMD_INIT_LOG(ERR, "invalid %s=%s: expected loopback, NAME, shm:NAME or tap:IFNAME",
			     key, value);
		return -EINVAL;
	}
	/* A kernel interface name has at most IFNAMSIZ - 1 characters. */
	if (strcmp(kinds[k], "tap:") == 0)
		name_len = IFNAMSIZ;
	if (parse_name_in(key, value, colon + 1, name, name_len) != 0)
		return -EINVAL;
	snprintf(a->cable, sizeof(a->cable), "%s%s", kinds[k], name);
	return 0;
}

static int
handle_profile(const char *key, const char *value, void *opaque)
{
	struct refnic_devargs *a = opaque;

	/* The device checks the name itself; it knows its profiles. */
	return parse_name(key, value, a->profile, sizeof(a->profile));
}

/* backoff | fixed:US | exp:MIN_US:MAX_US */
static int
handle_admin_poll(const char *key, const char *value, void *opaque)
{
	struct refnic_devargs *a = opaque;
	struct refnic_poll_policy p = { .mode = REFNIC_POLL_BACKOFF };
	char buf[64], *min_s, *max_s;

	if (value == NULL || strlen(value) >= sizeof(buf))
		goto bad;
	strlcpy(buf, value, sizeof(buf));
	if (strcmp(buf, "backoff") == 0) {
		a->admin_poll = p;
		return 0;
	}
	min_s = strchr(buf, ':');
	if (min_s == NULL)
		goto bad;
	*min_s++ = '\0';
	max_s = strchr(min_s, ':');
	if (max_s != NULL)
		*max_s++ = '\0';
	if (strcmp(buf, "fixed") == 0 && max_s == NULL) {
		p.mode = REFNIC_POLL_FIXED;
		if (parse_u32(min_s, 1, POLL_US_MAX, &p.min_us) != 0)
			goto bad;
		p.max_us = p.min_us;
	} else if (strcmp(buf, "exp") == 0 && max_s != NULL) {
		p.mode = REFNIC_POLL_EXP;
		if (parse_u32(min_s, 1, POLL_US_MAX, &p.min_us) != 0 ||
		    parse_u32(max_s, p.min_us, POLL_US_MAX, &p.max_us) != 0)
			goto bad;
	} else {
		goto bad;
	}
	a->admin_poll = p;
	return 0;
bad:
	PMD_INIT_LOG(ERR, "invalid %s=%s: expected backoff, fixed:<us> or "
		     "exp:<min_us>:<max_us> (1 to %u us, min <= max)",
		     key, value ? value : "", POLL_US_MAX);
	return -EINVAL;
}

static int
check_keys(const char *name, const struct rte_kvargs *kvlist)
{
	unsigned int i, k;

	for (i = 0; i < kvlist->count; i++) {
		for (k = 0; refnic_valid_args[k] != NULL; k++)
			if (strcmp(kvlist->pairs[i].key, refnic_valid_args[k]) == 0)
				break;
		if (refnic_valid_args[k] == NULL) {
			PMD_INIT_LOG(ERR, "%s: unknown devarg '%s' (known: %s)",
				     name, kvlist->pairs[i].key, REFNIC_PARAM_STRING);
			return -EINVAL;
		}
	}
	return 0;
}

int
refnic_devargs_parse(const char *name, const char *args, struct refnic_devargs *out)
{
	struct rte_kvargs *kvlist;
	int ret = 0;

	memset(out, 0, sizeof(*out));
	out->admin_poll.mode = REFNIC_POLL_BACKOFF;
	out->admin_latency_pct = -1;
	strlcpy(out->cable, "loopback", sizeof(out->cable));
	if (args == NULL || args[0] == '\0')
		return 0;

	kvlist = rte_kvargs_parse(args, NULL);
	if (kvlist == NULL) {
		PMD_INIT_LOG(ERR, "%s: cannot parse devargs '%s': expected key=value,...",
			     name, args);
		return -EINVAL;
	}
	if (check_keys(name, kvlist) != 0) {
		rte_kvargs_free(kvlist);
		return -EINVAL;
	}
	if (rte_kvargs_process(kvlist, REFNIC_ARG_CABLE, handle_cable, out) != 0 ||
	    rte_kvargs_process(kvlist, REFNIC_ARG_PROFILE, handle_profile, out) != 0 ||
	    rte_kvargs_process(kvlist, REFNIC_ARG_QUEUES, handle_queues, out) != 0 ||
	    rte_kvargs_process(kvlist, REFNIC_ARG_ENGINES, handle_engines, out) != 0 ||
	    rte_kvargs_process(kvlist, REFNIC_ARG_ADMIN_POLL, handle_admin_poll, out) != 0 ||
	    rte_kvargs_process(kvlist, REFNIC_ARG_ADMIN_LATENCY_PCT,
			       handle_admin_latency_pct, out) != 0 ||
	    rte_kvargs_process(kvlist, REFNIC_ARG_FAULT_ADMIN_TIMEOUT,
			       handle_fault_admin_timeout, out) != 0 ||
	    rte_kvargs_process(kvlist, REFNIC_ARG_FAULT_RESET_FAIL,
			       handle_fault_reset_fail, out) != 0)
		ret = -EINVAL;
	rte_kvargs_free(kvlist);
	return ret;
}

int
refnic_poll_policy_format(const struct refnic_poll_policy *p, char *buf, size_t len)
{
	switch (p->mode) {
	case REFNIC_POLL_FIXED:
		return snprintf(buf, len, "fixed:%u", p->min_us);
	case REFNIC_POLL_EXP:
		return snprintf(buf, len, "exp:%u:%u", p->min_us, p->max_us);
	default:
		return snprintf(buf, len, "backoff");
	}
}

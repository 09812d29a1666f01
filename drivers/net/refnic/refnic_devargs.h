/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

#ifndef _REFNIC_DEVARGS_H_
#define _REFNIC_DEVARGS_H_

#include <stdbool.h>
#include <stdint.h>

#include <rte_kvargs.h>

/*
 * The driver's devarg keys: the names users type. Keep them stable. The
 * embedded device has keys of its own (cable, profile, ...), which the bus
 * glue hands to it.
 */
#define REFNIC_ARG_ADMIN_POLL		"admin_poll"

/* How to wait for something the device will do (an admin completion, reset). */
enum refnic_poll_mode {
	REFNIC_POLL_BACKOFF,		/* short spin, then geometric waits */
	REFNIC_POLL_FIXED,		/* sleep min_us between polls (legacy) */
	REFNIC_POLL_EXP,		/* sleep min_us doubling up to max_us (ENA) */
};

struct refnic_poll_policy {
	enum refnic_poll_mode mode;
	uint32_t min_us;
	uint32_t max_us;
};

struct refnic_devargs {
	struct refnic_poll_policy admin_poll;
};

/* NULL-terminated. */
extern const char * const refnic_devargs_keys[];

/* The driver's keys of kvlist (NULL: none given) into out, defaults for the rest. */
int refnic_devargs_parse(const struct rte_kvargs *kvlist, struct refnic_devargs *out);
int refnic_poll_policy_format(const struct refnic_poll_policy *p, char *buf, size_t len);

#define REFNIC_DRV_PARAM_STRING \
	REFNIC_ARG_ADMIN_POLL "=backoff|fixed:<us>|exp:<min_us>:<max_us>"

#endif /* _REFNIC_DEVARGS_H_ */

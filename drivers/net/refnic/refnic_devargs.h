/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

#ifndef _REFNIC_DEVARGS_H_
#define _REFNIC_DEVARGS_H_

#include <stdbool.h>
#include <stdint.h>

/* Devarg keys: the names users type. Keep them stable. */
#define REFNIC_ARG_CABLE		"cable"
#define REFNIC_ARG_PROFILE		"profile"
#define REFNIC_ARG_QUEUES		"queues"
#define REFNIC_ARG_ENGINES		"engines"
#define REFNIC_ARG_ENGINES_MAX		8	/* device engine threads per process */
#define REFNIC_ARG_ADMIN_POLL		"admin_poll"
#define REFNIC_ARG_ADMIN_LATENCY_PCT	"admin_latency_pct"
#define REFNIC_ARG_FAULT_ADMIN_TIMEOUT	"fault_admin_timeout"
#define REFNIC_ARG_FAULT_RESET_FAIL	"fault_reset_fail"

#define REFNIC_ARG_NAME_LEN		64

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
	/* The embedded device's own settings, handed to it by the bus glue. */
	char cable[REFNIC_ARG_NAME_LEN];
	char profile[REFNIC_ARG_NAME_LEN];	/* empty: the device's default */
	uint16_t queues;			/* 0: the device's default */
	uint16_t engines;			/* 0: the device's default */
	int32_t admin_latency_pct;		/* -1: the device's default */
	char fault_admin_timeout[REFNIC_ARG_NAME_LEN];	/* checked by the device */
	uint32_t fault_reset_fail;
};

int refnic_devargs_parse(const char *name, const char *args, struct refnic_devargs *out);
int refnic_poll_policy_format(const struct refnic_poll_policy *p, char *buf, size_t len);

#define REFNIC_PARAM_STRING \
	REFNIC_ARG_CABLE "=loopback|<name>|shm:<name>|tap:<ifname> " \
	REFNIC_ARG_PROFILE "=ideal|baremetal|vm " \
	REFNIC_ARG_QUEUES "=<1-64> " \
	REFNIC_ARG_ENGINES "=<1-8> " \
	REFNIC_ARG_ADMIN_POLL "=backoff|fixed:<us>|exp:<min_us>:<max_us> " \
	REFNIC_ARG_ADMIN_LATENCY_PCT "=<0-100000> " \
	REFNIC_ARG_FAULT_ADMIN_TIMEOUT "=<command>[:<times>]|any[:<times>]|every:<n> " \
	REFNIC_ARG_FAULT_RESET_FAIL "=<resets>"

#endif /* _REFNIC_DEVARGS_H_ */

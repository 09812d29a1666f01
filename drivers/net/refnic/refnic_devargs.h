/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

#ifndef _REFNIC_DEVARGS_H_
#define _REFNIC_DEVARGS_H_

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_kvargs.h>

/*
 * The driver's devarg keys: the names users type. Keep them stable. The
 * embedded device has keys of its own (cable, profile, ...), which the bus
 * glue hands to it.
 */
#define REFNIC_ARG_ADMIN_POLL		"admin_poll"
#define REFNIC_ARG_ITR			"itr"
#define REFNIC_ARG_RX_ITR_US		"rx_itr_us"
#define REFNIC_ARG_TX_ITR_US		"tx_itr_us"
#define REFNIC_ARG_DOORBELL_CHECK	"doorbell_check"
#define REFNIC_ARG_DOORBELL_CHECK_US	"doorbell_check_us"
#define REFNIC_ARG_WC			"wc"
#define REFNIC_ARG_SIMD			"simd"
#define REFNIC_ARG_RX_WB		"rx_wb"

/*
 * Error lines quote at most REFNIC_ARG_QUOTE_LEN characters of a value
 * users typed, then "...": a devargs value may be kilobytes long, and one
 * line must stay readable. Use as
 *   PMD_INIT_LOG(ERR, "invalid %s=" REFNIC_ARG_QUOTE_FMT, key, REFNIC_ARG_QUOTE(v));
 * The device quotes its own keys' values the same way (refnic_emu_devargs.c):
 * the two share nothing but the hardware contract.
 */
#define REFNIC_ARG_QUOTE_LEN		32
#define REFNIC_ARG_QUOTE_FMT		"%.*s%s"
#define REFNIC_ARG_QUOTE(v)		REFNIC_ARG_QUOTE_LEN, refnic_arg_or_empty(v), \
					refnic_arg_ellipsis(v)

static inline const char *
refnic_arg_or_empty(const char *v)
{
	return v != NULL ? v : "";
}

static inline const char *
refnic_arg_ellipsis(const char *v)
{
	return v != NULL && strnlen(v, REFNIC_ARG_QUOTE_LEN + 1) > REFNIC_ARG_QUOTE_LEN ?
	       "..." : "";
}

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

/* Interrupt moderation (refnic_moderation.c). */
enum refnic_itr_mode {
	REFNIC_ITR_ADAPTIVE,		/* intervals follow the load (default) */
	REFNIC_ITR_STATIC,		/* rx_itr_us / tx_itr_us */
	REFNIC_ITR_OFF,			/* every completion may interrupt */
};

#define REFNIC_ITR_DEFAULT_US		50	/* itr=static without a value */

struct refnic_itr_conf {
	enum refnic_itr_mode mode;
	uint32_t rx_us;
	uint32_t tx_us;
};

/* Missed-doorbell recovery (refnic_doorbell.c). */
enum refnic_db_check_mode {
	REFNIC_DB_CHECK_AUTO,		/* where the device has the erratum (default) */
	REFNIC_DB_CHECK_ON,
	REFNIC_DB_CHECK_OFF,
};

#define REFNIC_DB_CHECK_DEFAULT_US	1000	/* a stall is re-rung after this */
#define REFNIC_DB_CHECK_MIN_US		100
#define REFNIC_DB_CHECK_MAX_US		1000000

struct refnic_db_check_conf {
	enum refnic_db_check_mode mode;
	uint32_t deadline_us;
};

/* TX push through the write-combining window (refnic_wc.c). */
enum refnic_wc_mode {
	REFNIC_WC_AUTO,			/* push if the mapping checks out */
	REFNIC_WC_ON,			/* push, even if it does not */
	REFNIC_WC_OFF,			/* ring TAIL, let the device fetch */
};

/* Which burst functions a port runs (refnic_burst_select()). */
enum refnic_simd_mode {
	REFNIC_SIMD_AUTO,		/* vector where the CPU and EAL allow it */
	REFNIC_SIMD_SCALAR,		/* one completion, one packet at a time */
	REFNIC_SIMD_SSE,		/* the SSE4.2 bursts, whatever EAL's max */
	REFNIC_SIMD_AVX2,		/* the AVX2 bursts, whatever EAL's max */
};

/* Where RX completions go (refnic_hw.h, REFNIC_QCREATE_RX_WB). */
enum refnic_rx_wb_mode {
	REFNIC_RX_WB_OFF,		/* the completion ring: the default */
	REFNIC_RX_WB_ON,		/* written back; a start fails without it */
};

struct refnic_devargs {
	struct refnic_poll_policy admin_poll;
	struct refnic_itr_conf itr;
	struct refnic_db_check_conf db_check;
	enum refnic_wc_mode wc;
	enum refnic_simd_mode simd;
	enum refnic_rx_wb_mode rx_wb;
};

/* NULL-terminated. */
extern const char * const refnic_devargs_keys[];

/* The driver's keys of kvlist (NULL: none given) into out, defaults for the rest. */
int refnic_devargs_parse(const struct rte_kvargs *kvlist, struct refnic_devargs *out);
int refnic_poll_policy_format(const struct refnic_poll_policy *p, char *buf, size_t len);

int refnic_itr_mode_format(enum refnic_itr_mode mode, char *buf, size_t len);
int refnic_db_check_mode_format(enum refnic_db_check_mode mode, char *buf, size_t len);
const char *refnic_wc_mode_name(enum refnic_wc_mode mode);
const char *refnic_simd_mode_name(enum refnic_simd_mode mode);
const char *refnic_rx_wb_mode_name(enum refnic_rx_wb_mode mode);

#define REFNIC_DRV_PARAM_STRING \
	REFNIC_ARG_ADMIN_POLL "=backoff|fixed:<us>|exp:<min_us>:<max_us> " \
	REFNIC_ARG_ITR "=adaptive|static|off " \
	REFNIC_ARG_RX_ITR_US "=<0-10000> " \
	REFNIC_ARG_TX_ITR_US "=<0-10000> " \
	REFNIC_ARG_RX_WB "=off|on " \
	REFNIC_ARG_DOORBELL_CHECK "=auto|on|off " \
	REFNIC_ARG_DOORBELL_CHECK_US "=<100-1000000> " \
	REFNIC_ARG_WC "=auto|on|off " \
	REFNIC_ARG_SIMD "=auto|scalar|sse|avx2"

#endif /* _REFNIC_DEVARGS_H_ */

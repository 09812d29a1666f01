/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * The driver's devargs, the ENA way: a NULL-terminated list of keys, one
 * typed handler per key, strict parsing with one clear error line per bad
 * value, and a failed probe when anything does not parse.
 */

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_kvargs.h>
#include <rte_string_fns.h>

#include "refnic_devargs.h"
#include "refnic_hw.h"
#include "refnic_logs.h"

#define POLL_US_MAX	1000000	/* one second between polls is already absurd */

const char * const refnic_devargs_keys[] = {
	REFNIC_ARG_ADMIN_POLL,
	REFNIC_ARG_ITR,
	REFNIC_ARG_RX_ITR_US,
	REFNIC_ARG_TX_ITR_US,
	REFNIC_ARG_DOORBELL_CHECK,
	REFNIC_ARG_DOORBELL_CHECK_US,
	REFNIC_ARG_WC,
	REFNIC_ARG_SIMD,
	REFNIC_ARG_RX_WB,
	NULL
};

static const char * const itr_mode_names[] = {
	[REFNIC_ITR_ADAPTIVE] = "adaptive",
	[REFNIC_ITR_STATIC] = "static",
	[REFNIC_ITR_OFF] = "off",
};

static const char * const db_check_mode_names[] = {
	[REFNIC_DB_CHECK_AUTO] = "auto",
	[REFNIC_DB_CHECK_ON] = "on",
	[REFNIC_DB_CHECK_OFF] = "off",
};

static const char * const wc_mode_names[] = {
	[REFNIC_WC_AUTO] = "auto",
	[REFNIC_WC_ON] = "on",
	[REFNIC_WC_OFF] = "off",
};

static const char * const simd_mode_names[] = {
	[REFNIC_SIMD_AUTO] = "auto",
	[REFNIC_SIMD_SCALAR] = "scalar",
	[REFNIC_SIMD_SSE] = "sse",
	[REFNIC_SIMD_AVX2] = "avx2",
};

static const char * const rx_wb_mode_names[] = {
	[REFNIC_RX_WB_OFF] = "off",
	[REFNIC_RX_WB_ON] = "on",
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
	PMD_INIT_LOG(ERR, "invalid %s=" REFNIC_ARG_QUOTE_FMT ": expected backoff, "
		     "fixed:<us> or exp:<min_us>:<max_us> (1 to %u us, min <= max)",
		     key, REFNIC_ARG_QUOTE(value), POLL_US_MAX);
	return -EINVAL;
}

static int
handle_itr(const char *key, const char *value, void *opaque)
{
	struct refnic_itr_conf *itr = opaque;
	unsigned int m;

	for (m = 0; m < RTE_DIM(itr_mode_names); m++)
		if (value != NULL && strcmp(value, itr_mode_names[m]) == 0) {
			itr->mode = m;
			return 0;
		}
	PMD_INIT_LOG(ERR, "invalid %s=" REFNIC_ARG_QUOTE_FMT ": expected adaptive, static "
		     "or off", key, REFNIC_ARG_QUOTE(value));
	return -EINVAL;
}

static int
handle_itr_us(const char *key, const char *value, void *opaque)
{
	if (parse_u32(value, 0, REFNIC_ITR_MAX_US, opaque) == 0)
		return 0;
	PMD_INIT_LOG(ERR, "invalid %s=" REFNIC_ARG_QUOTE_FMT ": expected microseconds, 0 to %u",
		     key, REFNIC_ARG_QUOTE(value), REFNIC_ITR_MAX_US);
	return -EINVAL;
}

/* A key whose value is one of a list of names; *out takes its index. */
struct enum_arg {
	const char * const *names;
	unsigned int nb_names;
	const char *expected;	/* the names, for the error line */
	unsigned int *out;
};

static int
handle_enum(const char *key, const char *value, void *opaque)
{
	const struct enum_arg *arg = opaque;
	unsigned int m;

	for (m = 0; m < arg->nb_names; m++)
		if (value != NULL && strcmp(value, arg->names[m]) == 0) {
			*arg->out = m;
			return 0;
		}
	PMD_INIT_LOG(ERR, "invalid %s=" REFNIC_ARG_QUOTE_FMT ": expected %s", key,
		     REFNIC_ARG_QUOTE(value), arg->expected);
	return -EINVAL;
}

/* itr=, rx_itr_us=, tx_itr_us=: an interval given alone means itr=static. */
static int
parse_itr(const struct rte_kvargs *kvlist, struct refnic_itr_conf *itr)
{
	bool mode_given = rte_kvargs_count(kvlist, REFNIC_ARG_ITR) != 0;
	bool us_given = rte_kvargs_count(kvlist, REFNIC_ARG_RX_ITR_US) != 0 ||
			rte_kvargs_count(kvlist, REFNIC_ARG_TX_ITR_US) != 0;

	if (rte_kvargs_process(kvlist, REFNIC_ARG_ITR, handle_itr, itr) != 0 ||
	    rte_kvargs_process(kvlist, REFNIC_ARG_RX_ITR_US, handle_itr_us, &itr->rx_us) != 0 ||
	    rte_kvargs_process(kvlist, REFNIC_ARG_TX_ITR_US, handle_itr_us, &itr->tx_us) != 0)
		return -EINVAL;
	if (!us_given)
		return 0;
	if (mode_given && itr->mode != REFNIC_ITR_STATIC) {
		PMD_INIT_LOG(ERR, "%s/%s set static intervals: they conflict with %s=%s",
			     REFNIC_ARG_RX_ITR_US, REFNIC_ARG_TX_ITR_US, REFNIC_ARG_ITR,
			     itr_mode_names[itr->mode]);
		return -EINVAL;
	}
	itr->mode = REFNIC_ITR_STATIC;
	return 0;
}

static int
handle_db_check(const char *key, const char *value, void *opaque)
{
	struct refnic_db_check_conf *c = opaque;
	unsigned int m;

	for (m = 0; m < RTE_DIM(db_check_mode_names); m++)
		if (value != NULL && strcmp(value, db_check_mode_names[m]) == 0) {
			c->mode = m;
			return 0;
		}
	PMD_INIT_LOG(ERR, "invalid %s=" REFNIC_ARG_QUOTE_FMT ": expected auto (where the "
		     "device has the missed-doorbell erratum), on or off", key,
		     REFNIC_ARG_QUOTE(value));
	return -EINVAL;
}

static int
handle_db_check_us(const char *key, const char *value, void *opaque)
{
	struct refnic_db_check_conf *c = opaque;

	if (parse_u32(value, REFNIC_DB_CHECK_MIN_US, REFNIC_DB_CHECK_MAX_US,
		      &c->deadline_us) == 0)
		return 0;
	PMD_INIT_LOG(ERR, "invalid %s=" REFNIC_ARG_QUOTE_FMT ": expected microseconds, %u to %u",
		     key, REFNIC_ARG_QUOTE(value), REFNIC_DB_CHECK_MIN_US, REFNIC_DB_CHECK_MAX_US);
	return -EINVAL;
}

/* doorbell_check=, doorbell_check_us=: a deadline for a check that is off is a mistake. */
static int
parse_db_check(const struct rte_kvargs *kvlist, struct refnic_db_check_conf *c)
{
	if (rte_kvargs_process(kvlist, REFNIC_ARG_DOORBELL_CHECK, handle_db_check, c) != 0 ||
	    rte_kvargs_process(kvlist, REFNIC_ARG_DOORBELL_CHECK_US, handle_db_check_us, c) != 0)
		return -EINVAL;
	if (c->mode == REFNIC_DB_CHECK_OFF &&
	    rte_kvargs_count(kvlist, REFNIC_ARG_DOORBELL_CHECK_US) != 0) {
		PMD_INIT_LOG(ERR, "%s sets the doorbell check's deadline: it conflicts with %s=off",
			     REFNIC_ARG_DOORBELL_CHECK_US, REFNIC_ARG_DOORBELL_CHECK);
		return -EINVAL;
	}
	return 0;
}

int
refnic_devargs_parse(const struct rte_kvargs *kvlist, struct refnic_devargs *out)
{
	unsigned int wc = REFNIC_WC_AUTO, simd = REFNIC_SIMD_AUTO, rx_wb = REFNIC_RX_WB_OFF;
	struct enum_arg wc_arg = { wc_mode_names, RTE_DIM(wc_mode_names),
				   "auto, on or off", &wc };
	struct enum_arg rx_wb_arg = { rx_wb_mode_names, RTE_DIM(rx_wb_mode_names),
				      "off or on", &rx_wb };
	struct enum_arg simd_arg = { simd_mode_names, RTE_DIM(simd_mode_names),
				     "auto, scalar, sse or avx2", &simd };

	memset(out, 0, sizeof(*out));
	out->admin_poll.mode = REFNIC_POLL_BACKOFF;
	out->itr.mode = REFNIC_ITR_ADAPTIVE;
	out->itr.rx_us = REFNIC_ITR_DEFAULT_US;
	out->itr.tx_us = REFNIC_ITR_DEFAULT_US;
	out->db_check.mode = REFNIC_DB_CHECK_AUTO;
	out->db_check.deadline_us = REFNIC_DB_CHECK_DEFAULT_US;
	if (kvlist == NULL)
		return 0;
	if (rte_kvargs_process(kvlist, REFNIC_ARG_ADMIN_POLL, handle_admin_poll, out) != 0 ||
	    rte_kvargs_process(kvlist, REFNIC_ARG_WC, handle_enum, &wc_arg) != 0 ||
	    rte_kvargs_process(kvlist, REFNIC_ARG_SIMD, handle_enum, &simd_arg) != 0 ||
	    rte_kvargs_process(kvlist, REFNIC_ARG_RX_WB, handle_enum, &rx_wb_arg) != 0)
		return -EINVAL;
	out->wc = wc;
	out->simd = simd;
	out->rx_wb = rx_wb;
	if (parse_itr(kvlist, &out->itr) != 0)
		return -EINVAL;
	return parse_db_check(kvlist, &out->db_check);
}

int
refnic_db_check_mode_format(enum refnic_db_check_mode mode, char *buf, size_t len)
{
	return snprintf(buf, len, "%s", mode < RTE_DIM(db_check_mode_names) ?
			db_check_mode_names[mode] : "?");
}

int
refnic_itr_mode_format(enum refnic_itr_mode mode, char *buf, size_t len)
{
	return snprintf(buf, len, "%s", mode < RTE_DIM(itr_mode_names) ?
			itr_mode_names[mode] : "?");
}

const char *
refnic_wc_mode_name(enum refnic_wc_mode mode)
{
	return mode < RTE_DIM(wc_mode_names) ? wc_mode_names[mode] : "?";
}

const char *
refnic_simd_mode_name(enum refnic_simd_mode mode)
{
	return mode < RTE_DIM(simd_mode_names) ? simd_mode_names[mode] : "?";
}

const char *
refnic_rx_wb_mode_name(enum refnic_rx_wb_mode mode)
{
	return mode < RTE_DIM(rx_wb_mode_names) ? rx_wb_mode_names[mode] : "?";
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

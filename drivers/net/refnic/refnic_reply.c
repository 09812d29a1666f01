/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * Admin replies: the buffers the device DMA-writes for IDENTIFY and
 * STATS_GET (RSS_GET's is checked in refnic_rss.c) are untrusted input,
 * like its completions. Each is copied out of the DMA buffer once and the
 * copy checked field by field before anything reads it:
 *  - a value no device can mean (no queues, a ring range upside down, a
 *    counter that went backwards) rejects the whole reply: IDENTIFY then
 *    fails the probe, reset or recovery; a rejected STATS_GET keeps the
 *    last good counters;
 *  - a limit beyond what the contract allows is clamped to it.
 * Either way one line says which field, what it held and what was allowed,
 * and admin_reply_errors counts it.
 */

#include <stdarg.h>
#include <stdio.h>

#include "refnic.h"

static void __rte_format_printf(3, 4)
reply_error(struct refnic_adapter *ad, const char *cmd, const char *fmt, ...)
{
	char what[192];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	__atomic_fetch_add(&ad->failure_stats.reply_errors, 1, __ATOMIC_RELAXED);
	rte_log(RTE_LOG_ERR, refnic_logtype_driver, "refnic: port %u: device's %s reply: %s\n",
		ad->port_id, cmd, what);
}

void
refnic_reply_error(struct refnic_adapter *ad, const char *cmd, const char *what)
{
	reply_error(ad, cmd, "%s", what);
}

/* A limit beyond the contract's: the contract's instead. */
#define ID_CLAMP(ad, id, field, op, limit) do {					\
	if ((id)->field op (limit)) {						\
		reply_error(ad, "IDENTIFY", #field " %u beyond "	\
			    "the contract's %u; using %u", (unsigned int)(id)->field, \
			    (unsigned int)(limit), (unsigned int)(limit));	\
		(id)->field = (limit);						\
	}									\
} while (0)

#define ID_REFUSE(ad, fmt, ...) do {						\
	reply_error(ad, "IDENTIFY", fmt "; device refused", ##__VA_ARGS__); \
	return -EIO;								\
} while (0)

/* Who it is: it must agree with its own registers. */
static int
identify_check_who(struct refnic_adapter *ad, const struct refnic_identify *id)
{
	uint64_t caps = (uint64_t)refnic_reg_read(&ad->hw, REFNIC_REG_CAPS_HI) << 32 |
			refnic_reg_read(&ad->hw, REFNIC_REG_CAPS_LO);
	uint32_t version = refnic_reg_read(&ad->hw, REFNIC_REG_VERSION);

	if (id->magic != REFNIC_HW_MAGIC)
		ID_REFUSE(ad, "magic 0x%08x, expected 0x%08x", id->magic, REFNIC_HW_MAGIC);
	if (id->hw_version != version)
		ID_REFUSE(ad, "hw_version 0x%08x, the VERSION register says 0x%08x",
			  id->hw_version, version);
	if (id->caps != caps)
		ID_REFUSE(ad, "caps 0x%" PRIx64 ", the CAPS registers say 0x%" PRIx64,
			  id->caps, caps);
	return 0;
}

/* Limits no device can have. */
static int
identify_check_limits(struct refnic_adapter *ad, const struct refnic_identify *id)
{
	if (id->max_queues == 0)
		ID_REFUSE(ad, "max_queues 0");
	if (id->num_vectors < 2)
		ID_REFUSE(ad, "num_vectors %u, at least 2 needed (events, one queue pair)",
			  id->num_vectors);
	if (id->min_ring_size > id->max_ring_size || id->min_mtu > id->max_mtu)
		ID_REFUSE(ad, "ring sizes %u-%u, MTU %u-%u: a range upside down",
			  id->min_ring_size, id->max_ring_size, id->min_mtu, id->max_mtu);
	if (id->max_tx_segs == 0)
		ID_REFUSE(ad, "max_tx_segs 0");
	if (id->min_rx_buf_size > REFNIC_MAX_FRAME_LEN)
		ID_REFUSE(ad, "min_rx_buf_size %u above the largest frame, %u",
			  id->min_rx_buf_size, REFNIC_MAX_FRAME_LEN);
	return 0;
}

/* Beyond the contract: clamped to it; refused if the rings' and MTU's
 * ranges are then no longer sane. */
static int
identify_clamp_to_contract(struct refnic_adapter *ad, struct refnic_identify *id)
{
	ID_CLAMP(ad, id, max_queues, >, REFNIC_MAX_QUEUES);
	ID_CLAMP(ad, id, max_queues, >, id->num_vectors - 1);	/* 1 + q is q's vector */
	ID_CLAMP(ad, id, min_ring_size, <, REFNIC_MIN_RING_SIZE);
	ID_CLAMP(ad, id, max_ring_size, >, REFNIC_MAX_RING_SIZE);
	ID_CLAMP(ad, id, min_mtu, <, REFNIC_MIN_MTU);
	ID_CLAMP(ad, id, max_mtu, >, REFNIC_MAX_MTU);
	ID_CLAMP(ad, id, max_tx_segs, >, REFNIC_MAX_TX_SEGS);
	ID_CLAMP(ad, id, min_rx_buf_size, <, REFNIC_MIN_RX_BUF_SIZE);
	ID_CLAMP(ad, id, max_mac_filters, >, REFNIC_MAX_MAC_FILTERS);
	/* After clamping: rings are powers of two, and the range not empty. */
	if (!rte_is_power_of_2(id->min_ring_size) || !rte_is_power_of_2(id->max_ring_size) ||
	    id->min_ring_size > id->max_ring_size || id->min_mtu > id->max_mtu)
		ID_REFUSE(ad, "ring sizes %u-%u, MTU %u-%u: outside the contract's %u-%u, "
			  "%u-%u or not powers of two", id->min_ring_size, id->max_ring_size,
			  id->min_mtu, id->max_mtu, REFNIC_MIN_RING_SIZE, REFNIC_MAX_RING_SIZE,
			  REFNIC_MIN_MTU, REFNIC_MAX_MTU);
	return 0;
}

/* Features whose parameters the driver cannot use: the port goes without
 * them, with one line each; a bad speed or name is made harmless. */
static void
identify_drop_unusable(struct refnic_adapter *ad, struct refnic_identify *id)
{
	if ((id->caps & REFNIC_CAP_RSS) && (id->rss_key_size != REFNIC_RSS_KEY_SIZE ||
					    id->rss_reta_size != REFNIC_RSS_RETA_SIZE)) {
		reply_error(ad, "IDENTIFY", "RSS key of %u bytes, RETA of %u "
			    "entries, the contract's are %u and %u; RSS not used",
			    id->rss_key_size, id->rss_reta_size, REFNIC_RSS_KEY_SIZE,
			    REFNIC_RSS_RETA_SIZE);
		id->caps &= ~REFNIC_CAP_RSS;
	}
	ID_CLAMP(ad, id, max_flows, >, REFNIC_MAX_FLOWS);
	if ((id->caps & REFNIC_CAP_FLOW) && (id->max_flows == 0 || id->flow_priorities < 2)) {
		reply_error(ad, "IDENTIFY", "a flow table of %u slots and %u priorities; "
			    "flow rules not used", id->max_flows, id->flow_priorities);
		id->caps &= ~REFNIC_CAP_FLOW;
	}
	ID_CLAMP(ad, id, max_tso_size, >, REFNIC_MAX_TSO_SIZE);
	ID_CLAMP(ad, id, max_tso_segs, >, REFNIC_MAX_TSO_SEGS);
	if ((id->caps & REFNIC_CAP_TSO) && (id->max_tso_size == 0 || id->max_tso_segs == 0)) {
		reply_error(ad, "IDENTIFY", "TSO of at most %u bytes in %u descriptors; "
			    "TSO not used", id->max_tso_size, id->max_tso_segs);
		id->caps &= ~REFNIC_CAP_TSO;
	}
	if (id->link_speed_mbps > RTE_ETH_SPEED_NUM_200G) {
		reply_error(ad, "IDENTIFY", "link speed %u Mb/s; reported as "
			    "unknown", id->link_speed_mbps);
		id->link_speed_mbps = RTE_ETH_SPEED_NUM_UNKNOWN;
	}
	if (strnlen(id->fw_version, sizeof(id->fw_version)) == sizeof(id->fw_version)) {
		id->fw_version[sizeof(id->fw_version) - 1] = '\0';
		reply_error(ad, "IDENTIFY", "fw_version not terminated; "
			    "cut to \"%s\"", id->fw_version);
	}
}

/*
 * Check the IDENTIFY data in *id (the driver's copy); on success it becomes
 * the port's (ad->ident). On failure ad->ident keeps what it held.
 */
int
refnic_identify_check(struct refnic_adapter *ad, struct refnic_identify *id)
{
	int ret;

	ret = identify_check_who(ad, id);
	if (ret == 0)
		ret = identify_check_limits(ad, id);
	if (ret == 0)
		ret = identify_clamp_to_contract(ad, id);
	if (ret != 0)
		return ret;
	identify_drop_unusable(ad, id);
	ad->ident = *id;
	return 0;
}

/* Is no counter of a below the same counter of b? Else the first that is. */
static bool
stats_not_below(const struct refnic_hw_stats *a, const struct refnic_hw_stats *b, size_t *at)
{
	const uint64_t *x = (const uint64_t *)a, *y = (const uint64_t *)b;
	size_t w;

	for (w = 0; w < sizeof(*a) / sizeof(*x); w++) {
		if (x[w] < y[w]) {
			*at = w;
			return false;
		}
	}
	return true;
}

/*
 * STATS_GET: the device's counters run from its creation and nothing but
 * STATS_CLEAR, which the driver never sends, sets them back; a reply that
 * could only come after a reset and a command (the admin queue exists)
 * counts at least one of each; queues the device does not have count
 * nothing. Checked against since, the port's baseline, unless NULL (where
 * it takes a new one: probe, reset, stats reset): not against the last
 * accepted copy, or one garbled reply accepted (a jump no check could tell
 * from traffic) would make every later, true one look like it went back.
 */
int
refnic_stats_check(struct refnic_adapter *ad, const struct refnic_hw_stats *s,
		   const struct refnic_hw_stats *since)
{
	static const struct refnic_hw_queue_stats none;
	size_t w;
	uint16_t q;

	if (s->resets == 0 || s->admin_commands == 0) {
		reply_error(ad, "STATS_GET", "%" PRIu64 " resets, %" PRIu64
			    " admin commands, though it answers one after a reset; ignored",
			    s->resets, s->admin_commands);
		return -EIO;
	}
	for (q = ad->ident.max_queues; q < REFNIC_MAX_QUEUES; q++) {
		if (memcmp(&s->q[q], &none, sizeof(none)) != 0) {
			reply_error(ad, "STATS_GET", "counts for queue %u, which "
				    "it does not have (%u queue pairs); ignored", q,
				    ad->ident.max_queues);
			return -EIO;
		}
	}
	if (since != NULL && !stats_not_below(s, since, &w)) {
		reply_error(ad, "STATS_GET", "the counter at offset %zu went back from %"
			    PRIu64 " to %" PRIu64 "; ignored", w * sizeof(uint64_t),
			    ((const uint64_t *)since)[w], ((const uint64_t *)s)[w]);
		return -EIO;
	}
	return 0;
}

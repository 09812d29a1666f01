/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * What differs between the DPDK releases refnic builds against: 22.11
 * (Debian 12), 24.11 (Debian 13) and 25.11 (Debian forky). Each entry names
 * the release that changed the API; the code is written for the newest
 * form, and older releases get it here. Nothing else in the tree tests
 * RTE_VERSION. Every target of the build sees this header (meson.build).
 */

#ifndef REFNIC_COMPAT_H
#define REFNIC_COMPAT_H

#include <rte_version.h>

/*
 * 23.03: telemetry's unsigned dictionary values are
 * rte_tel_data_add_dict_uint(); the u64 name is deprecated in 24.11 and
 * gone in 25.11.
 */
#if RTE_VERSION < RTE_VERSION_NUM(23, 3, 0, 0)
#define rte_tel_data_add_dict_uint rte_tel_data_add_dict_u64
#endif

/*
 * 24.11: an IPv6 header's addresses are struct rte_ipv6_addr, no longer
 * uint8_t[16]. REFNIC_IPV6_BYTES() is the 16 bytes of either;
 * REFNIC_IPV6_MASK_FULL initialises one with all bits set.
 */
#if RTE_VERSION < RTE_VERSION_NUM(24, 11, 0, 0)
#define REFNIC_IPV6_BYTES(addr)	(addr)
#define REFNIC_IPV6_MASK_FULL	{ 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, \
				  0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff }
#else
#define REFNIC_IPV6_BYTES(addr)	((addr).a)
#define REFNIC_IPV6_MASK_FULL	RTE_IPV6_MASK_FULL
#endif

/*
 * 25.03: a packed structure is struct __rte_packed_begin NAME { ... }
 * __rte_packed_end; the older __rte_packed is deprecated in 25.11.
 */
#if RTE_VERSION < RTE_VERSION_NUM(25, 3, 0, 0)
#define __rte_packed_begin
#define __rte_packed_end	__rte_packed
#endif

/*
 * 24.03: dev_supported_ptypes_get() also returns the array's length.
 * REFNIC_PTYPES_GET_OP(name, fn) defines the op for this release around
 * fn(dev, &len), which returns the array ending in RTE_PTYPE_UNKNOWN (the
 * terminator the older releases need) and its length without it.
 */
#if RTE_VERSION < RTE_VERSION_NUM(24, 3, 0, 0)
#define REFNIC_PTYPES_GET_OP(name, fn) \
static const uint32_t * \
name(struct rte_eth_dev *dev) \
{ \
	size_t len; \
	return fn(dev, &len); \
}
#else
#define REFNIC_PTYPES_GET_OP(name, fn) \
static const uint32_t * \
name(struct rte_eth_dev *dev, size_t *no_of_elements) \
{ \
	return fn(dev, no_of_elements); \
}
#endif

/*
 * 25.11: stats_get() gets the per-queue counters apart, in struct
 * eth_queue_stats (NULL when nobody asked for them); before, they were part
 * of struct rte_eth_stats, under the same field names. struct
 * refnic_qstats is whichever holds them, and REFNIC_STATS_GET_OP(name, fn)
 * defines the op for this release around fn(dev, stats, qstats).
 */
#if RTE_VERSION < RTE_VERSION_NUM(25, 11, 0, 0)
#define refnic_qstats rte_eth_stats
#define REFNIC_STATS_GET_OP(name, fn) \
static int \
name(struct rte_eth_dev *dev, struct rte_eth_stats *stats) \
{ \
	return fn(dev, stats, stats); \
}
#else
#define refnic_qstats eth_queue_stats
#define REFNIC_STATS_GET_OP(name, fn) \
static int \
name(struct rte_eth_dev *dev, struct rte_eth_stats *stats, struct eth_queue_stats *qstats) \
{ \
	return fn(dev, stats, qstats); \
}
#endif

/* 25.11: rx_queue_count() returns int (room for a negative errno). */
#if RTE_VERSION < RTE_VERSION_NUM(25, 11, 0, 0)
#define REFNIC_RX_QUEUE_COUNT_RET	uint32_t
#else
#define REFNIC_RX_QUEUE_COUNT_RET	int
#endif

#endif /* REFNIC_COMPAT_H */

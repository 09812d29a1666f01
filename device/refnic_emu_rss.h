/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

#ifndef _REFNIC_EMU_RSS_H_
#define _REFNIC_EMU_RSS_H_

/* Receive-side scaling (refnic_emu_rss.c). */

#include <stdbool.h>
#include <stdint.h>

#include "refnic_hw.h"

struct refnic_emu;
struct refnic_pkt_hdrs;

#define REFNIC_EMU_RSS_HASH_ALL	(REFNIC_RSS_HASH_IPV4 | REFNIC_RSS_HASH_TCP_IPV4 | \
				 REFNIC_RSS_HASH_UDP_IPV4 | REFNIC_RSS_HASH_IPV6 | \
				 REFNIC_RSS_HASH_TCP_IPV6 | REFNIC_RSS_HASH_UDP_IPV6)
/* The longest tuple hashed: two IPv6 addresses and two ports. */
#define REFNIC_EMU_RSS_TUPLE_MAX	36

/*
 * Toeplitz is linear: a tuple's hash is the XOR of the key windows of its
 * set bits. For each byte of a tuple, the XOR for each of its 256 values,
 * computed once per key (refnic_emu_rss_table_update()): one look-up a
 * byte instead of eight shifts and tests. 36 KiB; an IPv4 tuple with
 * ports reads from the first 12 KiB.
 */
struct refnic_emu_rss_table {
	uint32_t byte[REFNIC_EMU_RSS_TUPLE_MAX][256];
	uint8_t key[REFNIC_RSS_KEY_SIZE];	/* the key it was computed for */
	bool valid;
};
/* The table for key, unless it is already. */
void refnic_emu_rss_table_update(struct refnic_emu_rss_table *t, const uint8_t *key);
/* The Toeplitz hash of len <= REFNIC_EMU_RSS_TUPLE_MAX bytes by t. */
uint32_t refnic_emu_rss_table_hash(const struct refnic_emu_rss_table *t, const uint8_t *data,
				   uint32_t len);

/* Toeplitz hash of a frame over types with key; false if they do not hash it. */
bool refnic_emu_rss_hash(uint32_t types, const uint8_t *key, const uint8_t *p,
			 const struct refnic_pkt_hdrs *h, uint32_t *hash);
/* RX queue for a frame, and its hash if RSS applies (*hashed), by the
 * device's table (refnic_emu_rx_plan_update() keeps it to its key). */
uint16_t refnic_emu_rss_queue(const struct refnic_emu *emu, const uint8_t *p,
			      const struct refnic_pkt_hdrs *h, uint32_t *hash, bool *hashed);
uint16_t refnic_emu_admin_rss(struct refnic_emu *emu, const struct refnic_admin_cmd *cmd);

#endif /* _REFNIC_EMU_RSS_H_ */

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * Receive-side scaling as NICs do it: a Toeplitz hash over the IP addresses
 * (and the TCP/UDP ports, where the hash types say so), whose low bits index
 * the redirection table that names the RX queue.
 */

#include <string.h>

#include "refnic_emu_admin.h"
#include "refnic_emu_dma_map.h"
#include "refnic_emu_parse.h"
#include "refnic_emu_priv.h"
#include "refnic_emu_rss.h"

/* The device's RSS hash (Toeplitz, key of len + 4 bytes at least). */
static uint32_t
refnic_emu_toeplitz(const uint8_t *key, const uint8_t *data, uint32_t len)
{
	uint32_t hash = 0, window = key[0] << 24 | key[1] << 16 | key[2] << 8 | key[3];
	uint32_t i;
	int bit;

	for (i = 0; i < len; i++) {
		for (bit = 7; bit >= 0; bit--) {
			if (data[i] & (1u << bit))
				hash ^= window;
			window = window << 1 | ((key[i + 4] >> bit) & 1);
		}
	}
	return hash;
}

/* The key's 32 bits from bit j on: what a set tuple bit j adds to the hash. */
static uint32_t
key_window(const uint8_t *key, unsigned int j)
{
	uint64_t w = 0;
	unsigned int i;

	for (i = 0; i < 5; i++)
		w = w << 8 | (j / 8 + i < REFNIC_RSS_KEY_SIZE ? key[j / 8 + i] : 0);
	return (uint32_t)(w >> (8 - j % 8));
}

void
refnic_emu_rss_table_update(struct refnic_emu_rss_table *t, const uint8_t *key)
{
	unsigned int k, v, b;

	if (t->valid && memcmp(t->key, key, sizeof(t->key)) == 0)
		return;
	/* A byte's value: the value without its lowest set bit, plus that
	 * bit's window (bit b of a byte, from its top, is tuple bit 8k + b). */
	for (k = 0; k < RTE_DIM(t->byte); k++) {
		t->byte[k][0] = 0;
		for (v = 1; v < 256; v++) {
			b = 7 - __builtin_ctz(v);
			t->byte[k][v] = t->byte[k][v & (v - 1)] ^ key_window(key, 8 * k + b);
		}
	}
	memcpy(t->key, key, sizeof(t->key));
	t->valid = true;
}

/* Four tuple bytes by the table's rows from `row` on: each row's offset
 * a constant. */
static inline uint32_t
toeplitz_4(const uint32_t (*row)[256], const uint8_t *d)
{
	return row[0][d[0]] ^ row[1][d[1]] ^ row[2][d[2]] ^ row[3][d[3]];
}

/* refnic_emu_toeplitz() by the table from its row `row` on: four bytes a
 * step, the rest one by one. */
static inline uint32_t
toeplitz_by_table(const uint32_t (*row)[256], const uint8_t *data, uint32_t len)
{
	const uint8_t *end = data + len;
	uint32_t hash = 0;

	for (; end - data >= 4; data += 4, row += 4)
		hash ^= toeplitz_4(row, data);
	for (; data < end; data++, row++)
		hash ^= row[0][data[0]];
	return hash;
}

uint32_t
refnic_emu_rss_table_hash(const struct refnic_emu_rss_table *t, const uint8_t *data,
			  uint32_t len)
{
	return toeplitz_by_table(t->byte, data,
				 RTE_MIN(len, (uint32_t)REFNIC_EMU_RSS_TUPLE_MAX));
}

/*
 * What of a frame the hash takes: its two addresses (the tuple's first
 * 2 x addr_len bytes, at p + h->l3 + addr_off), then its ports (4 bytes at
 * p + h->l4) if the L4 type is hashed. Returns 0 if the frame is not
 * hashed at all, 1 for the addresses alone, 2 with the ports.
 */
static inline unsigned int
rss_tuple_parts(uint32_t types, const struct refnic_pkt_hdrs *h)
{
	bool v4 = h->ip_version == 4;
	uint32_t ip_type = v4 ? REFNIC_RSS_HASH_IPV4 : REFNIC_RSS_HASH_IPV6;
	uint32_t tcp_type = v4 ? REFNIC_RSS_HASH_TCP_IPV4 : REFNIC_RSS_HASH_TCP_IPV6;
	uint32_t udp_type = v4 ? REFNIC_RSS_HASH_UDP_IPV4 : REFNIC_RSS_HASH_UDP_IPV6;

	if (h->ip_version == 0)
		return 0;
	if (!h->frag && h->l4 + 4 <= h->len &&
	    ((h->proto == EMU_IPPROTO_TCP && (types & tcp_type)) ||
	     (h->proto == EMU_IPPROTO_UDP && (types & udp_type))))
		return 2;
	return (types & ip_type) ? 1 : 0;
}

/* The Toeplitz hash of a frame over types with key; false if they do not hash it. */
bool
refnic_emu_rss_hash(uint32_t types, const uint8_t *key, const uint8_t *p,
		    const struct refnic_pkt_hdrs *h, uint32_t *hash)
{
	uint8_t tuple[REFNIC_EMU_RSS_TUPLE_MAX];
	uint32_t addr_len = h->ip_version == 4 ? 4 : 16;
	uint32_t addr_off = h->ip_version == 4 ? 12 : 8;
	unsigned int parts = types == 0 ? 0 : rss_tuple_parts(types, h);

	if (parts == 0)
		return false;
	memcpy(tuple, p + h->l3 + addr_off, 2 * addr_len);
	if (parts == 2)
		memcpy(tuple + 2 * addr_len, p + h->l4, 4);
	*hash = refnic_emu_toeplitz(key, tuple, 2 * addr_len + (parts == 2 ? 4 : 0));
	return true;
}

/* The hash by the table straight from the frame, no tuple copied: the
 * addresses by the table's first rows, the ports by the rows after them
 * (Toeplitz is linear). IPv4's twelve bytes unrolled: the common case. */
uint16_t
refnic_emu_rss_queue(const struct refnic_emu *emu, const uint8_t *p,
		     const struct refnic_pkt_hdrs *h, uint32_t *hash, bool *hashed)
{
	const uint32_t (*row)[256] = emu->rss_table.byte;
	unsigned int parts = emu->rss.hash_types == 0 ? 0 :
			     rss_tuple_parts(emu->rss.hash_types, h);
	const uint8_t *addr;
	uint32_t v;

	*hashed = parts != 0;
	if (parts == 0)
		return 0;
	if (h->ip_version == 4) {
		addr = p + h->l3 + 12;
		v = toeplitz_4(row, addr) ^ toeplitz_4(row + 4, addr + 4);
		if (parts == 2)
			v ^= toeplitz_4(row + 8, p + h->l4);
	} else {
		v = toeplitz_by_table(row, p + h->l3 + 8, 32);
		if (parts == 2)
			v ^= toeplitz_4(row + 32, p + h->l4);
	}
	*hash = v;
	return emu->rss.reta[v & (REFNIC_RSS_RETA_SIZE - 1)];
}

static uint16_t
rss_set(struct refnic_emu *emu, const struct refnic_admin_buf *buf)
{
	const struct refnic_rss_config *host;
	struct refnic_rss_config cfg;
	unsigned int i;

	if (buf->len < sizeof(cfg))
		return REFNIC_ADMIN_STS_INVALID;
	host = refnic_emu_dma_map(emu, buf->iova, sizeof(cfg));
	if (host == NULL)
		return REFNIC_ADMIN_STS_DMA_ERROR;
	/* One read of host memory; what is checked is what is used. */
	cfg = *host;
	emu_stats(emu)->dma_reads++;
	if (cfg.hash_types & ~REFNIC_EMU_RSS_HASH_ALL)
		return REFNIC_ADMIN_STS_INVALID;
	for (i = 0; i < REFNIC_RSS_RETA_SIZE; i++)
		if (cfg.reta[i] >= emu->params.max_queues)
			return REFNIC_ADMIN_STS_INVALID;
	emu->rss = cfg;
	return REFNIC_ADMIN_STS_OK;
}

uint16_t
refnic_emu_admin_rss(struct refnic_emu *emu, const struct refnic_admin_cmd *cmd)
{
	if (!emu_has_cap(emu, REFNIC_CAP_RSS))
		return REFNIC_ADMIN_STS_UNSUPPORTED;	/* caps_off=rss */
	return cmd->opcode == REFNIC_ADMIN_RSS_SET ? rss_set(emu, &cmd->buf) :
		refnic_emu_admin_dma_to_host(emu, cmd, &emu->rss, sizeof(emu->rss));
}

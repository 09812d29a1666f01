/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * Receive-side scaling as NICs do it: a Toeplitz hash over the IP addresses
 * (and the TCP/UDP ports, where the hash types say so), whose low bits index
 * the redirection table that names the RX queue.
 */

#include <string.h>

#include "refnic_emu_priv.h"

#define ETH_HLEN		14
#define ETH_P_IPV4		0x0800
#define ETH_P_IPV6		0x86dd
#define ETH_P_VLAN		0x8100
#define IPPROTO_TCP_		6
#define IPPROTO_UDP_		17
#define RSS_HASH_ALL		(REFNIC_RSS_HASH_IPV4 | REFNIC_RSS_HASH_TCP_IPV4 | \
				 REFNIC_RSS_HASH_UDP_IPV4 | REFNIC_RSS_HASH_IPV6 | \
				 REFNIC_RSS_HASH_TCP_IPV6 | REFNIC_RSS_HASH_UDP_IPV6)

uint32_t
refnic_toeplitz(const uint8_t *key, const uint8_t *data, uint32_t len)
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

/*
 * The hash input for a frame: addresses, then ports if the L4 type is
 * hashed. Returns its length, 0 if the frame is not hashed at all.
 */
static uint32_t
rss_tuple(uint32_t types, const uint8_t *hdr, uint32_t hdr_len, uint8_t *tuple)
{
	uint32_t l3 = ETH_HLEN, l4, addr_len;
	uint16_t ethertype = hdr[12] << 8 | hdr[13];
	uint32_t ip_type, tcp_type, udp_type;
	uint8_t proto;
	bool frag = false;

	if (ethertype == ETH_P_VLAN && hdr_len >= ETH_HLEN + 4) {
		ethertype = hdr[16] << 8 | hdr[17];
		l3 += 4;
	}
	if (ethertype == ETH_P_IPV4 && hdr_len >= l3 + 20) {
		addr_len = 4;
		proto = hdr[l3 + 9];
		l4 = l3 + (hdr[l3] & 0x0f) * 4;
		frag = (hdr[l3 + 6] & 0x3f) != 0 || hdr[l3 + 7] != 0;
		memcpy(tuple, hdr + l3 + 12, 8);
		ip_type = REFNIC_RSS_HASH_IPV4;
		tcp_type = REFNIC_RSS_HASH_TCP_IPV4;
		udp_type = REFNIC_RSS_HASH_UDP_IPV4;
	} else if (ethertype == ETH_P_IPV6 && hdr_len >= l3 + 40) {
		addr_len = 16;
		proto = hdr[l3 + 6];
		l4 = l3 + 40;
		memcpy(tuple, hdr + l3 + 8, 32);
		ip_type = REFNIC_RSS_HASH_IPV6;
		tcp_type = REFNIC_RSS_HASH_TCP_IPV6;
		udp_type = REFNIC_RSS_HASH_UDP_IPV6;
	} else {
		return 0;
	}
	if (!frag && hdr_len >= l4 + 4 &&
	    ((proto == IPPROTO_TCP_ && (types & tcp_type)) ||
	     (proto == IPPROTO_UDP_ && (types & udp_type)))) {
		memcpy(tuple + 2 * addr_len, hdr + l4, 4);
		return 2 * addr_len + 4;
	}
	return (types & ip_type) ? 2 * addr_len : 0;
}

uint16_t
refnic_emu_rss_queue(const struct refnic_emu *emu, const uint8_t *hdr, uint32_t hdr_len,
		     uint32_t *hash, bool *hashed)
{
	uint8_t tuple[36];
	uint32_t len;

	*hashed = false;
	if (emu->rss.hash_types == 0)
		return 0;
	len = rss_tuple(emu->rss.hash_types, hdr, hdr_len, tuple);
	if (len == 0)
		return 0;
	*hash = refnic_toeplitz(emu->rss.key, tuple, len);
	*hashed = true;
	return emu->rss.reta[*hash & (REFNIC_RSS_RETA_SIZE - 1)];
}

static uint16_t
rss_set(struct refnic_emu *emu, const struct refnic_admin_buf *buf)
{
	const struct refnic_rss_config *cfg;
	unsigned int i;

	if (buf->len < sizeof(*cfg))
		return REFNIC_ADMIN_STS_INVALID;
	cfg = refnic_dma_map(emu, buf->iova, sizeof(*cfg));
	if (cfg == NULL)
		return REFNIC_ADMIN_STS_DMA_ERROR;
	emu->stats.dma_reads++;
	if (cfg->hash_types & ~RSS_HASH_ALL)
		return REFNIC_ADMIN_STS_INVALID;
	for (i = 0; i < REFNIC_RSS_RETA_SIZE; i++)
		if (cfg->reta[i] >= emu->params.max_queues)
			return REFNIC_ADMIN_STS_INVALID;
	emu->rss = *cfg;
	return REFNIC_ADMIN_STS_OK;
}

static uint16_t
rss_get(struct refnic_emu *emu, const struct refnic_admin_buf *buf)
{
	void *dst;

	if (buf->len < sizeof(emu->rss))
		return REFNIC_ADMIN_STS_INVALID;
	dst = refnic_dma_map(emu, buf->iova, sizeof(emu->rss));
	if (dst == NULL)
		return REFNIC_ADMIN_STS_DMA_ERROR;
	memcpy(dst, &emu->rss, sizeof(emu->rss));
	emu->stats.dma_writes++;
	return REFNIC_ADMIN_STS_OK;
}

uint16_t
refnic_emu_admin_rss(struct refnic_emu *emu, const struct refnic_admin_cmd *cmd)
{
	return cmd->opcode == REFNIC_ADMIN_RSS_SET ? rss_set(emu, &cmd->buf) :
						     rss_get(emu, &cmd->buf);
}

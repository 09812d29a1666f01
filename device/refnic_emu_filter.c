/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * The port's receive filter: its own address, extra unicast addresses, the
 * multicast list, VLAN filtering, and the rx mode (promiscuous, all-multicast)
 * that overrides them. Set through admin commands.
 */

#include <string.h>

#include "refnic_emu_dma_map.h"
#include "refnic_emu_filter.h"
#include "refnic_emu_parse.h"
#include "refnic_emu_priv.h"

#define ETH_ALEN	6

void
refnic_emu_filters_reset(struct refnic_emu *emu)
{
	emu->rx_mode = REFNIC_RX_MODE_UNICAST | REFNIC_RX_MODE_BROADCAST |
		       REFNIC_RX_MODE_MULTICAST;
	emu->nb_mac_filters = 0;
	emu->nb_mc_filters = 0;
	memset(emu->vlan_filter, 0, sizeof(emu->vlan_filter));
}

static bool
addr_in(const uint8_t (*list)[ETH_ALEN], uint32_t n, const uint8_t *addr)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		if (memcmp(list[i], addr, ETH_ALEN) == 0)
			return true;
	return false;
}

static bool
vlan_accepted(const struct refnic_emu *emu, const uint8_t *hdr, uint32_t hdr_len)
{
	uint16_t vid;

	if (!(emu->features & REFNIC_CAP_VLAN_FILTER) || hdr_len < 16 ||
	    (hdr[12] << 8 | hdr[13]) != EMU_ETH_P_VLAN)
		return true;	/* untagged frames are not VLAN filtered */
	vid = (hdr[14] << 8 | hdr[15]) & REFNIC_MAX_VLAN_ID;
	return emu->vlan_filter[vid / 64] & (UINT64_C(1) << (vid % 64));
}

bool
refnic_emu_rx_accept(struct refnic_emu *emu, const uint8_t *hdr, uint32_t hdr_len)
{
	static const uint8_t bcast[ETH_ALEN] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	const uint8_t *dst = hdr;

	if (!vlan_accepted(emu, hdr, hdr_len))
		return false;
	if (emu->rx_mode & REFNIC_RX_MODE_PROMISC)
		return true;
	if (memcmp(dst, bcast, ETH_ALEN) == 0)
		return emu->rx_mode & REFNIC_RX_MODE_BROADCAST;
	if (dst[0] & 0x01)
		return (emu->rx_mode & REFNIC_RX_MODE_ALLMULTI) ||
		       ((emu->rx_mode & REFNIC_RX_MODE_MULTICAST) &&
			addr_in((const uint8_t (*)[ETH_ALEN])emu->mc_filter,
				emu->nb_mc_filters, dst));
	if (!(emu->rx_mode & REFNIC_RX_MODE_UNICAST))
		return false;
	return memcmp(dst, emu->mac, ETH_ALEN) == 0 ||
	       addr_in((const uint8_t (*)[ETH_ALEN])emu->mac_filter, emu->nb_mac_filters, dst);
}

static uint16_t
mac_filter_add(struct refnic_emu *emu, const uint8_t *mac)
{
	if (mac[0] & 0x01)
		return REFNIC_ADMIN_STS_INVALID;
	if (addr_in((const uint8_t (*)[ETH_ALEN])emu->mac_filter, emu->nb_mac_filters, mac))
		return REFNIC_ADMIN_STS_OK;
	if (emu->nb_mac_filters == REFNIC_MAX_MAC_FILTERS)
		return REFNIC_ADMIN_STS_NOSPC;
	memcpy(emu->mac_filter[emu->nb_mac_filters++], mac, ETH_ALEN);
	return REFNIC_ADMIN_STS_OK;
}

static uint16_t
mac_filter_del(struct refnic_emu *emu, const uint8_t *mac)
{
	uint32_t i;

	for (i = 0; i < emu->nb_mac_filters; i++) {
		if (memcmp(emu->mac_filter[i], mac, ETH_ALEN) != 0)
			continue;
		memmove(emu->mac_filter[i], emu->mac_filter[i + 1],
			(emu->nb_mac_filters - i - 1) * ETH_ALEN);
		emu->nb_mac_filters--;
		return REFNIC_ADMIN_STS_OK;
	}
	return REFNIC_ADMIN_STS_NOT_FOUND;
}

/* Replace the multicast list with the buffer's addresses. */
static uint16_t
mc_list_set(struct refnic_emu *emu, const struct refnic_admin_buf *buf)
{
	uint32_t n = buf->len / ETH_ALEN, i;
	const uint8_t *addrs;

	if (buf->len % ETH_ALEN != 0 || n > REFNIC_MAX_MC_FILTERS)
		return REFNIC_ADMIN_STS_INVALID;
	if (n == 0) {
		emu->nb_mc_filters = 0;
		return REFNIC_ADMIN_STS_OK;
	}
	addrs = refnic_emu_dma_map(emu, buf->iova, buf->len);
	if (addrs == NULL)
		return REFNIC_ADMIN_STS_DMA_ERROR;
	emu_stats(emu)->dma_reads++;
	for (i = 0; i < n; i++)
		if (!(addrs[i * ETH_ALEN] & 0x01))
			return REFNIC_ADMIN_STS_INVALID;
	memcpy(emu->mc_filter, addrs, buf->len);
	emu->nb_mc_filters = n;
	return REFNIC_ADMIN_STS_OK;
}

uint16_t
refnic_emu_admin_filter(struct refnic_emu *emu, const struct refnic_admin_cmd *cmd)
{
	uint16_t vid = cmd->vlan_id;

	switch (cmd->opcode) {
	case REFNIC_ADMIN_MAC_FILTER_ADD:
		return mac_filter_add(emu, cmd->mac);
	case REFNIC_ADMIN_MAC_FILTER_DEL:
		return mac_filter_del(emu, cmd->mac);
	case REFNIC_ADMIN_MC_LIST_SET:
		return mc_list_set(emu, &cmd->buf);
	case REFNIC_ADMIN_VLAN_FILTER_ADD:
	case REFNIC_ADMIN_VLAN_FILTER_DEL:
		if (!emu_has_cap(emu, REFNIC_CAP_VLAN_FILTER))
			return REFNIC_ADMIN_STS_UNSUPPORTED;	/* caps_off=vlan_filter */
		if (vid > REFNIC_MAX_VLAN_ID)
			return REFNIC_ADMIN_STS_INVALID;
		if (cmd->opcode == REFNIC_ADMIN_VLAN_FILTER_ADD)
			emu->vlan_filter[vid / 64] |= UINT64_C(1) << (vid % 64);
		else
			emu->vlan_filter[vid / 64] &= ~(UINT64_C(1) << (vid % 64));
		return REFNIC_ADMIN_STS_OK;
	default:
		return REFNIC_ADMIN_STS_UNSUPPORTED;
	}
}
